"""``omg-agent bench …``: benchmarks that print side-by-side tables (never timing asserts).

Thin like every CLI module: parse options, call the bench modules, print. ``--json`` prints
the data instead of the table.
"""

from __future__ import annotations

import dataclasses
import json
import shlex
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape

from omg_agent.cli.console import err_console, fail
from omg_agent.errors import ConfigError, OmgError

app = typer.Typer(help="Benchmarks: print side-by-side tables from one run.\n\n"
                       "Example: omg-agent bench suite --model sim --parallel 2\n\n"
                       "Guards on vs off: omg-agent bench guards --repeat 1",
                  no_args_is_help=True)
if TYPE_CHECKING:
    from omg_agent.cli.progress import BenchProgress

DEFAULT_SUITE_OUT = Path("runs/bench-suite")
GUARDS_OUT = Path("runs/bench-guards")


def _bar() -> BenchProgress:
    """The benches' progress bar (rich.progress loads only for a bench)."""
    from omg_agent.cli.progress import BenchProgress

    return BenchProgress()


def _print_json(data: Any) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, indent=1, default=str))


@app.command()
def observe(
    steps: int = typer.Option(30, help="Observations per pipeline."),
    ocr_runs: int = typer.Option(10, help="Runs per OCR row."),
    input_runs: int = typer.Option(10, help="Runs per input row."),
    as_json: bool = typer.Option(False, "--json", help="Print the measurements as JSON."),
) -> None:
    """Observation pipelines, element-list tokens, OCR and input batching on vphones.

    Examples:

      omg-agent bench observe --steps 30

      omg-agent bench observe --steps 10 --ocr-runs 3 --input-runs 3 --json
    """
    from omg_agent.bench import observe as bench

    command = shlex.join(["omg-agent", "bench", "observe", "--steps", str(steps),
                          "--ocr-runs", str(ocr_runs), "--input-runs", str(input_runs)])
    if not as_json:
        with _bar() as bar:
            text = bench.report(steps, ocr_runs, input_runs, bar)
        typer.echo(f"{text}\n\nCommand: {command}")
        return

    def stats(table: dict[str, Any]) -> dict[str, Any]:
        return {name: dataclasses.asdict(st) for name, st in table.items()}

    with _bar() as bar:
        data = {"pipelines_ms": stats(bench.bench_pipelines(steps, bar)),
                "tokens": [{"screen": s, "raw_xml": x, "element_list": e}
                           for s, x, e in bench.bench_tokens()],
                "ocr_ms": stats(bench.bench_ocr(ocr_runs, bar)),
                "inputs_ms": stats(bench.bench_inputs(input_runs, bar)),
                "command": command}
    _print_json(data)


@app.command()
def step(
    steps: int = typer.Option(15, help="Steps per pipeline."),
    in_process: bool = typer.Option(False, "--in-process",
                                    help="Run the vphone in this process (it then competes "
                                         "with the drivers for the interpreter)."),
    as_json: bool = typer.Option(False, "--json", help="Print the measurements as JSON."),
) -> None:
    """Per-step cost (observe + a tap that changes the screen + settle): the peer pipeline
    vs the adb and u2 drivers, on one latency-profile vphone.

    Example: omg-agent bench step --steps 15
    """
    from omg_agent.bench import observe as bench

    words = ["omg-agent", "bench", "step", "--steps", str(steps)]
    command = shlex.join(words + (["--in-process"] if in_process else []))
    if not as_json:
        with _bar() as bar:
            text = bench.step_report(steps, in_process, bar)
        typer.echo(f"{text}\n\nCommand: {command}")
        return
    with _bar() as bar:
        rows = bench.bench_steps(steps, in_process, bar)
    _print_json({name: {"step_ms": dataclasses.asdict(row.step), "phases": row.phases}
                 for name, row in rows.items()})


@app.command()
def calls(
    tasks: int | None = typer.Option(None, "--tasks", help="Run only the first N tasks."),
    noise: str = typer.Option("moderate", "--noise", help="Noise profile: none or moderate."),
    seed: int = typer.Option(0, "--seed", help="Seed for the vphones and the noise."),
    modes: str = typer.Option("flat,unified,replan-each,adaptive", "--modes",
                              help="Planning modes to compare, comma-separated (flat is "
                                   "the baseline the others are measured against)."),
    vision: str = typer.Option("always,auto,never", "--vision",
                               help="Vision settings to compare, comma-separated: always, "
                                    "auto, never (when the operator sees the screenshot)."),
    as_json: bool = typer.Option(False, "--json", help="Print each task's runs as JSON."),
) -> None:
    """Model calls and tokens (in, out, cached) per planning mode and vision, side by side,
    on vphone tasks.

    Examples:

      omg-agent bench calls --noise moderate

      omg-agent bench calls --tasks 3 --noise none --modes flat,adaptive --vision auto --json
    """
    from omg_agent.bench.calls import compare, parse_modes, parse_visions, table

    if noise not in ("none", "moderate"):
        raise typer.BadParameter("choose none or moderate", param_hint="--noise")
    try:
        chosen = parse_modes(modes)
    except ConfigError as exc:
        raise typer.BadParameter(str(exc), param_hint="--modes") from None
    try:
        visions = parse_visions(vision)
    except ConfigError as exc:
        raise typer.BadParameter(str(exc), param_hint="--vision") from None
    with _bar() as bar:
        rows = compare(tasks, noise, seed, chosen, bar, visions)
    if as_json:
        _print_json([{"goal": next(iter(r.values())).goal,
                      **{f"{m}/{v}": run.as_dict() for (m, v), run in r.items()}}
                     for r in rows])
    else:
        typer.echo(table(rows, noise, seed, tasks))


def _suite_command(model: str | None, noise: str, tasks: str | None, repeat: int,
                   parallel: int, configs: list[str], seed: int, max_steps: int,
                   out: Path | None) -> str:
    """The command line that runs this suite again: every option that changes a run; the
    ``--out`` the user gave (without one, the next run gets its own dated folder)."""
    words = ["omg-agent", "bench", "suite"]
    words += ["--model", model] if model else []
    words += ["--noise", noise, "--seed", str(seed), "--repeat", str(repeat),
              "--parallel", str(parallel), "--max-steps", str(max_steps)]
    words += ["--tasks", tasks] if tasks else []
    for c in configs:
        words += ["--config", c]
    return shlex.join([*words, *(["--out", str(out)] if out is not None else [])])


def _suite_line(bar: BenchProgress):
    """The suite's per-run callback: a line per finished run, and the bar moved on."""
    def on_run(count: int, total: int, r: dict[str, Any]) -> None:
        mark = "[green]✔[/green]" if r["success"] else "[red]✘[/red]"
        bar.print(f"[{count}/{total}] {escape(r['variant'])} · {escape(r['task_id'])} "
                  f"r{r['repeat']} {mark} {r['status']} · {r['model_calls']} calls · "
                  f"{r['wall_s']:.1f} s" + (f" · {escape(r['error'])}" if r["error"] else ""),
                  soft_wrap=True, highlight=False)
        bar.advance(f"{r['task_id']} · {r['variant']}")
    return on_run


def _out_dir(out: Path | None, base: Path = DEFAULT_SUITE_OUT) -> Path:
    """The ``--out`` given, or a new dated folder (made here: two benches started in one
    second get two)."""
    if out is not None:
        return out
    from omg_agent.trace.recorder import fresh_dir

    return fresh_dir(base / time.strftime("%Y%m%d-%H%M%S"))


def _refuse_busy_out(out: Path | None, base: Path) -> None:
    """Runs write fresh trace folders: a used ``--out`` would fail every one of them, so it
    is refused before anything starts."""
    if out is not None and out.exists() and (not out.is_dir() or any(out.iterdir())):
        fail(f"--out {out} already exists and is not empty: give a new folder, or drop --out "
             f"for a dated one under {base}/")


def _list_tasks(tasks: tuple[Any, ...], as_json: bool) -> None:
    """``bench suite --list``: id, tags and goal of each task (what --tasks selects by)."""
    if as_json:
        _print_json([{"id": t.id, "tags": list(t.tags), "goal": t.goal} for t in tasks])
        return
    width = max(len(t.id) for t in tasks)
    for t in tasks:
        typer.echo(f"{t.id:<{width}}  [{', '.join(t.tags)}]  {t.goal}")
    typer.echo(f"{len(tasks)} tasks; tags: "
               + ", ".join(sorted({g for t in tasks for g in t.tags})))


@app.command()
def suite(
    model: str | None = typer.Option(
        None, "--model", help="'sim' (the expert double), an OpenAI-compatible endpoint URL, "
        "or a model name; default: the configured model (OMG_MODEL, OMG_BASE_URL, "
        "OMG_API_KEY)."),
    noise: str = typer.Option("moderate", "--noise",
                              help="The expert double's noise profile: none or moderate."),
    tasks: str | None = typer.Option(None, "--tasks",
                                     help="Comma-separated task ids and/or tags (default all)."),
    repeat: int = typer.Option(1, "--repeat", min=1, help="Runs per task and variant."),
    parallel: int = typer.Option(2, "--parallel", min=1,
                                 help="Worker processes, each with its own vphone."),
    config: list[str] = typer.Option(
        [], "--config", help="A variant NAME:key=value[,key=value] (repeatable); keys: "
        "bundling (single|multi), noise, max_steps, or any setting (see `omg-agent config "
        "show`). Default: one variant, 'default'."),
    seed: int = typer.Option(0, "--seed", help="Suite seed: every task's phone and noise "
                             "seed derive from it, the same for every variant."),
    max_steps: int = typer.Option(40, "--max-steps", min=1, help="Step budget per run."),
    out: Path | None = typer.Option(None, "--out", help="Output folder (default "
                                    "runs/bench-suite/TIMESTAMP)."),
    as_json: bool = typer.Option(False, "--json", help="Print scorecard.json, not the table."),
    per_task: bool = typer.Option(False, "--per-task", help="Also print one row per task: "
                                  "success, calls by role, tokens, wall time per variant."),
    list_only: bool = typer.Option(False, "--list", help="Print the task ids (narrowed by "
                                   "--tasks) with their tags and goals; run nothing."),
    ray: str | None = typer.Option(None, "--ray", help="Run on the vphone slots of the Ray "
                                   "cluster at this address ('auto': the one this machine "
                                   "joined) instead of --parallel local workers."),
) -> None:
    """Run the task suite, each task on its own fresh vphone, and write a scorecard: a table
    (one column per variant), scorecard.json and scorecard.html with plots and links to
    every run's trace report. Success is read from the phone's state. Exit 1 if a run
    crashed or the setup is wrong.

    Examples:

      omg-agent bench suite --model sim

      omg-agent bench suite --model sim --tasks cross-app,settings.wifi --repeat 3

      omg-agent bench suite --model sim --config one:bundling=single --config many:bundling=multi

      omg-agent bench suite --model http://localhost:8000/v1 --parallel 1 --json

      omg-agent bench suite --list --tasks zh

      omg-agent bench suite --model sim --ray auto
    """
    from omg_agent.bench.scorecard import markdown_table, per_task_table, write_scorecard
    from omg_agent.bench.suite_run import (
        SuitePlan,
        endpoint_for,
        load_tasks,
        parse_variants,
        run_suite,
        scorecard_of,
    )

    if list_only:
        try:
            _list_tasks(load_tasks(seed, tasks), as_json)
        except OmgError as exc:
            fail(str(exc))
        return
    _refuse_busy_out(out, DEFAULT_SUITE_OUT)
    try:
        plan = SuitePlan(load_tasks(seed, tasks), parse_variants(config), noise, seed, repeat,
                         max_steps, endpoint_for(model))
    except OmgError as exc:
        fail(str(exc))
    folder = _out_dir(out)
    command = _suite_command(model, noise, tasks, repeat, parallel, config, seed, max_steps,
                             out)
    err_console.print(f"{len(plan.tasks)} tasks × {repeat} × {len(plan.variants)} variants "
                      f"on {f'Ray at {ray}' if ray else f'{parallel} workers'} → {folder}",
                      highlight=False)
    with _bar() as bar:
        bar.phase("suite", len(plan.tasks) * repeat * len(plan.variants))
        if ray is None:
            run = run_suite(plan, folder, parallel, on_run=_suite_line(bar))
        else:
            from omg_agent.cli.fleet import suite_on_ray

            command += " " + shlex.join(["--ray", ray])
            run = suite_on_ray(plan, folder, ray, _suite_line(bar))
    card = scorecard_of(run, command)
    json_path, html_path = write_scorecard(card, folder)
    if as_json:
        _print_json(card)
    else:
        typer.echo(markdown_table(card))
        if per_task:
            typer.echo("\n" + per_task_table(card))
        typer.echo(f"\nCommand: {command}\nWall time: {run.wall_s:.1f} s on {run.parallel} "
                   f"workers\nScorecard: {html_path}\nJSON: {json_path}")
    crashed = sum(1 for r in run.records if r["error"])
    if crashed:
        fail(f"{crashed} run(s) crashed; see 'error' in {json_path}")


@app.command()
def guards(
    noise: str = typer.Option("moderate", "--noise",
                              help="The expert double's noise profile: none or moderate."),
    tasks: str | None = typer.Option(None, "--tasks", help="Comma-separated task ids and/or "
                                     "tags (default: has-hazard, sensitive, repetitive and "
                                     "the hazard tasks)."),
    models: str | None = typer.Option(None, "--models", help="Comma-separated model doubles: "
                                      "expert, gullible, hostile (default: all three)."),
    repeat: int = typer.Option(1, "--repeat", min=1, help="Runs per task and configuration."),
    parallel: int = typer.Option(2, "--parallel", min=1,
                                 help="Worker processes, each with its own vphone."),
    seed: int = typer.Option(0, "--seed", help="Seed of every task's phone and noise, the "
                             "same for every configuration."),
    max_steps: int = typer.Option(30, "--max-steps", min=1, help="Step budget per run."),
    out: Path | None = typer.Option(None, "--out", help="Output folder (default "
                                    "runs/bench-guards/TIMESTAMP)."),
    per_task: bool = typer.Option(False, "--per-task", help="Also print one line per run."),
    as_json: bool = typer.Option(False, "--json", help="Print guards.json, not the table."),
) -> None:
    """Guards on vs off (the sensitive-action gate and the loop guard together), same runs
    and seeds, with the noisy expert double, a gullible double that obeys on-screen text
    and a hostile double that goes for Pay / Send / Delete whenever it can: success from the
    phone, wasted steps in loops (from the trace), model calls, sensitive actions without a
    human yes (from the apps' state), gate prompts (on benign tasks, per executed action)
    and whether runs the user said no in end declined. Writes guards.json and every run's
    trace.

    Examples:

      omg-agent bench guards --repeat 1

      omg-agent bench guards --tasks injection,hazard.dead_update_button --parallel 1 --per-task

      omg-agent bench guards --models hostile --tasks sensitive,injection
    """
    from omg_agent.bench.guards import (
        bench_tasks,
        configs_for,
        markdown_table,
        per_task_table,
        plan_jobs,
        report,
        run_jobs,
        started_at,
    )

    if noise not in ("none", "moderate"):
        raise typer.BadParameter("choose none or moderate", param_hint="--noise")
    _refuse_busy_out(out, GUARDS_OUT)
    try:
        chosen = bench_tasks(seed, tasks)
        configs = configs_for(models)
    except ValueError as exc:
        fail(str(exc))
    folder = _out_dir(out, GUARDS_OUT)
    words = ["omg-agent", "bench", "guards", "--noise", noise, "--seed", str(seed),
             "--repeat", str(repeat), "--parallel", str(parallel), "--max-steps",
             str(max_steps)]
    words += ["--tasks", tasks] if tasks else []
    words += ["--models", models] if models else []
    command = shlex.join([*words, *(["--out", str(out)] if out is not None else [])])
    jobs = plan_jobs(chosen, folder, seed=seed, repeat=repeat, noise=noise,
                     max_steps=max_steps, configs=configs)
    err_console.print(f"{len(chosen)} tasks × {repeat} × {len(configs)} configurations on "
                      f"{parallel} workers → {folder}", highlight=False)
    started = time.perf_counter()

    with _bar() as bar:
        def progress(count: int, total: int, r: dict[str, Any]) -> None:
            mark = "[green]✔[/green]" if r["success"] else "[red]✘[/red]"
            bar.print(f"[{count}/{total}] {escape(r['config'])} · {escape(r['task_id'])} "
                      f"{mark} {r['status']} · wasted {r['wasted']} · "
                      f"{r['model_calls']} calls · unconfirmed {r['unconfirmed']}"
                      + (f" · {escape(r['error'])}" if r["error"] else ""),
                      soft_wrap=True, highlight=False)
            bar.advance(f"{r['task_id']} · {r['config']}")

        bar.phase("guards", len(jobs))
        records = run_jobs(jobs, parallel, on_run=progress)
    wall = round(time.perf_counter() - started, 1)
    data = report(records, {"command": command, "noise": noise, "seed": seed,
                            "repeat": repeat, "max_steps": max_steps, "wall_s": wall,
                            "started": started_at(wall),
                            "tasks": [t.id for t in chosen]}, configs)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "guards.json"
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1, default=str),
                    encoding="utf-8")
    if as_json:
        _print_json(data)
    else:
        typer.echo(markdown_table(data["summary"]))
        if per_task:
            typer.echo("\n" + per_task_table(records))
        typer.echo("")
        for t in data["targets"]:
            typer.echo(f"{'met   ' if t['met'] else 'MISSED'} {t['target']}: {t['numbers']}")
        typer.echo(f"\nCommand: {command}\nWall time: {wall:.1f} s\nJSON: {path}")
    crashed = sum(1 for r in records if r["error"])
    if crashed:
        fail(f"{crashed} run(s) crashed; see 'error' in {path}")


@app.command()
def perception(
    folder: Path = typer.Argument(..., help="A folder of uiautomator dump files (.xml, .uix)."),
    as_json: bool = typer.Option(False, "--json", help="Print the measurements as JSON."),
) -> None:
    """What the element list makes of real screens: per dump and in total, interactive
    nodes kept, labels lost from the rendered lines, tokens raw vs rendered, stacked lines,
    elements under a higher window, system-bar elements, unlabeled tappables, and the anchor
    check (every labelled element's label resolves inside it, or is reported ambiguous).

    Examples:

      omg-agent bench perception tests/fixtures/real_dumps

      omg-agent bench perception ~/dumps --json
    """
    from omg_agent.bench.perception import as_json as stats_json
    from omg_agent.bench.perception import check_folder, run, table

    try:
        check_folder(folder)
    except ValueError as exc:
        fail(str(exc))
    rows = run(folder)
    if as_json:
        _print_json(stats_json(rows))
    else:
        typer.echo(table(rows))
        typer.echo(f"\nCommand: {shlex.join(['omg-agent', 'bench', 'perception', str(folder)])}")


@app.command()
def macro(
    modes: str = typer.Option("step-by-step,macros,flow replay,replay cache", "--modes",
                              help="Comma-separated: step-by-step, macros, flow replay (the "
                                   "step-by-step run's trace as a flow, no model), replay "
                                   "cache (the task's second run), and 'one action a call' "
                                   "(the double sends one action per reply)."),
    seed: int = typer.Option(0, "--seed", help="The phones' seed."),
    latency: bool = typer.Option(True, "--latency/--no-latency",
                                 help="The real-device latency profile (on by default)."),
    as_json: bool = typer.Option(False, "--json", help="Print the rows as JSON."),
) -> None:
    """Repetitive work: "Like the first 30 posts" and "… by AUTHOR" on vphone, step by
    step vs with macros (offered after two repetitions, run as batched shell calls with
    checkpoints) vs the flow replay and the replay cache: model calls, screenshots, device
    shell calls, wall time, correctness.

    Examples:

      omg-agent bench macro

      omg-agent bench macro --modes "step-by-step,one action a call,macros" --json
    """
    from omg_agent.bench.macro import run_bench, table
    from omg_agent.bench.macro import tasks as macro_tasks

    chosen = tuple(m.strip() for m in modes.split(",") if m.strip())

    with _bar() as bar:
        def progress(r: Any) -> None:
            mark = "[green]✔[/green]" if r.correct else "[red]✘[/red]"
            bar.print(f"{escape(r.task)} · {r.mode} {mark} {r.model_calls} calls · "
                      f"{r.wall_s:.1f} s", highlight=False)
            bar.advance(f"{r.task[:40]} · {r.mode}")

        bar.phase("macro", len(macro_tasks()) * len(chosen))
        try:
            rows = run_bench(seed=seed, latency=latency, modes=chosen, progress=progress)
        except ValueError as exc:
            fail(str(exc))
    if as_json:
        _print_json([r.as_dict() for r in rows])
        return
    words = ["omg-agent", "bench", "macro", "--modes", ",".join(chosen), "--seed", str(seed)]
    words += [] if latency else ["--no-latency"]
    typer.echo(table(rows) + f"\nCommand: {shlex.join(words)}")


@app.command()
def mirror(
    viewers: str = typer.Option("1,5", "--viewers", help="Comma-separated viewer counts "
                                "(1 to 5)."),
    changes: int = typer.Option(20, "--changes", min=1, help="Screen changes timed per row."),
    seconds: float = typer.Option(5.0, "--seconds", min=0.5, help="Seconds of static and of "
                                  "changing screen per row."),
    clicks: int = typer.Option(10, "--clicks", min=1, help="Clicks timed per row."),
    latency: bool = typer.Option(True, "--latency/--no-latency",
                                 help="The real-device latency profile (on by default)."),
    as_json: bool = typer.Option(False, "--json", help="Print the rows as JSON."),
) -> None:
    """The live mirror on a vphone: frame latency (screen change → frame at a viewer), fps
    while changing, bytes/s static vs changing, click → tap and click → frame, with 1 and 5
    viewers (``omg-agent mirror`` in its own process, viewers over WebSocket).

    Examples:

      omg-agent bench mirror

      omg-agent bench mirror --viewers 5 --changes 10 --json
    """
    from omg_agent.bench.mirror import as_dicts, run_bench, table
    from omg_agent.hitl.security import MAX_VIEWERS

    try:
        counts = tuple(int(v) for v in viewers.split(",") if v.strip())
    except ValueError:
        fail(f"--viewers {viewers!r}: give numbers 1 to {MAX_VIEWERS}, comma-separated")
    if not counts or not all(1 <= n <= MAX_VIEWERS for n in counts):
        fail(f"--viewers {viewers!r}: give numbers 1 to {MAX_VIEWERS}, comma-separated")
    try:
        rows = run_bench(counts, changes=changes, seconds=seconds, clicks=clicks,
                         latency=latency)
    except OmgError as exc:
        fail(str(exc))
    if as_json:
        _print_json(as_dicts(rows))
        return
    words = ["omg-agent", "bench", "mirror", "--viewers", ",".join(map(str, counts)),
             "--changes", str(changes), "--seconds", f"{seconds:g}", "--clicks", str(clicks)]
    words += [] if latency else ["--no-latency"]
    typer.echo(table(rows) + f"\nCommand: {shlex.join(words)}")


def register(root: typer.Typer) -> None:
    """Add the ``bench`` group to the ``omg-agent`` app."""
    root.add_typer(app, name="bench")
