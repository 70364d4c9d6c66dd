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
from typing import Any

import typer
from rich.markup import escape

from omg_agent.cli.console import err_console, fail
from omg_agent.errors import ConfigError, OmgError

app = typer.Typer(help="Benchmarks: print side-by-side tables from one run.\n\n"
                       "Example: omg-agent bench suite --model sim --parallel 2\n\n"
                       "Guards on vs off: omg-agent bench guards --repeat 1",
                  no_args_is_help=True)
DEFAULT_SUITE_OUT = Path("runs/bench-suite")


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

    if not as_json:
        typer.echo(bench.report(steps, ocr_runs, input_runs))
        return

    def stats(table: dict[str, Any]) -> dict[str, Any]:
        return {name: dataclasses.asdict(st) for name, st in table.items()}

    _print_json({
        "pipelines_ms": stats(bench.bench_pipelines(steps)),
        "tokens": [{"screen": s, "raw_xml": x, "element_list": e}
                   for s, x, e in bench.bench_tokens()],
        "ocr_ms": stats(bench.bench_ocr(ocr_runs)),
        "inputs_ms": stats(bench.bench_inputs(input_runs))})


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

    if not as_json:
        typer.echo(bench.step_report(steps, in_process))
        return
    _print_json({name: {"step_ms": dataclasses.asdict(row.step), "phases": row.phases}
                 for name, row in bench.bench_steps(steps, in_process).items()})


@app.command()
def calls(
    tasks: int | None = typer.Option(None, "--tasks", help="Run only the first N tasks."),
    noise: str = typer.Option("moderate", "--noise", help="Noise profile: none or moderate."),
    seed: int = typer.Option(0, "--seed", help="Seed for the vphones and the noise."),
    modes: str = typer.Option("flat,unified,replan-each,adaptive", "--modes",
                              help="Planning modes to compare, comma-separated (flat is "
                                   "the baseline the others are measured against)."),
    as_json: bool = typer.Option(False, "--json", help="Print each task's runs as JSON."),
) -> None:
    """Model calls per planning mode, side by side, on vphone tasks.

    Examples:

      omg-agent bench calls --noise moderate

      omg-agent bench calls --tasks 3 --noise none --modes flat,adaptive --json
    """
    from omg_agent.bench.calls import compare, parse_modes, table

    if noise not in ("none", "moderate"):
        raise typer.BadParameter("choose none or moderate", param_hint="--noise")
    try:
        chosen = parse_modes(modes)
    except ConfigError as exc:
        raise typer.BadParameter(str(exc), param_hint="--modes") from None
    rows = compare(tasks, noise, seed, chosen)
    if as_json:
        _print_json([{"goal": next(iter(r.values())).goal,
                      **{m: run.as_dict() for m, run in r.items()}} for r in rows])
    else:
        typer.echo(table(rows, noise, seed))


def _suite_command(model: str | None, noise: str, tasks: str | None, repeat: int,
                   parallel: int, configs: list[str], seed: int, max_steps: int,
                   out: Path) -> str:
    words = ["omg-agent", "bench", "suite"]
    words += ["--model", model] if model else []
    words += ["--noise", noise, "--seed", str(seed), "--repeat", str(repeat),
              "--parallel", str(parallel), "--max-steps", str(max_steps)]
    words += ["--tasks", tasks] if tasks else []
    for c in configs:
        words += ["--config", c]
    return shlex.join([*words, "--out", str(out)])


def _progress(count: int, total: int, r: dict[str, Any]) -> None:
    mark = "[green]✔[/green]" if r["success"] else "[red]✘[/red]"
    err_console.print(f"[{count}/{total}] {escape(r['variant'])} · {escape(r['task_id'])} "
                      f"r{r['repeat']} {mark} {r['status']} · {r['model_calls']} calls · "
                      f"{r['wall_s']:.1f} s" + (f" · {escape(r['error'])}" if r["error"]
                                                 else ""), soft_wrap=True, highlight=False)


def _out_dir(out: Path | None, base: Path = DEFAULT_SUITE_OUT) -> Path:
    if out is not None:
        return out
    stem = base / time.strftime("%Y%m%d-%H%M%S")
    candidate, k = stem, 1
    while candidate.exists():
        k += 1
        candidate = stem.with_name(f"{stem.name}-{k}")
    return candidate


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
                                    "runs/bench-suite/<timestamp>)."),
    as_json: bool = typer.Option(False, "--json", help="Print scorecard.json, not the table."),
    per_task: bool = typer.Option(False, "--per-task", help="Also print one row per task: "
                                  "success, calls by role, tokens, wall time per variant."),
    list_only: bool = typer.Option(False, "--list", help="Print the task ids (narrowed by "
                                   "--tasks) with their tags and goals; run nothing."),
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
    if out is not None and out.exists() and (not out.is_dir() or any(out.iterdir())):
        fail(f"--out {out} already exists and is not empty: give a new folder, or drop --out "
             "for a dated one under runs/bench-suite/")
    try:
        plan = SuitePlan(load_tasks(seed, tasks), parse_variants(config), noise, seed, repeat,
                         max_steps, endpoint_for(model))
    except OmgError as exc:
        fail(str(exc))
    folder = _out_dir(out)
    command = _suite_command(model, noise, tasks, repeat, parallel, config, seed, max_steps,
                             folder)
    err_console.print(f"{len(plan.tasks)} tasks × {repeat} × {len(plan.variants)} variants "
                      f"on {parallel} workers → {folder}", highlight=False)
    run = run_suite(plan, folder, parallel, on_run=_progress)
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
    repeat: int = typer.Option(1, "--repeat", min=1, help="Runs per task and configuration."),
    parallel: int = typer.Option(2, "--parallel", min=1,
                                 help="Worker processes, each with its own vphone."),
    seed: int = typer.Option(0, "--seed", help="Seed of every task's phone and noise, the "
                             "same for all four configurations."),
    max_steps: int = typer.Option(30, "--max-steps", min=1, help="Step budget per run."),
    out: Path | None = typer.Option(None, "--out", help="Output folder (default "
                                    "runs/bench-guards/<timestamp>)."),
    per_task: bool = typer.Option(False, "--per-task", help="Also print one line per run."),
    as_json: bool = typer.Option(False, "--json", help="Print guards.json, not the table."),
) -> None:
    """Guards on vs off (the sensitive-action gate and the loop guard together), same runs
    and seeds, with the noisy expert double and with a gullible double that obeys on-screen
    text: success from the phone, wasted steps in loops (from the trace), model calls,
    sensitive actions without a human yes (from the apps' state) and gate prompts. Writes
    guards.json and every run's trace.

    Examples:

      omg-agent bench guards --repeat 1

      omg-agent bench guards --tasks injection,hazard.dead_update_button --parallel 1 --per-task
    """
    from omg_agent.bench.guards import (
        bench_tasks,
        markdown_table,
        per_task_table,
        plan_jobs,
        report,
        run_jobs,
        started_at,
    )

    if noise not in ("none", "moderate"):
        raise typer.BadParameter("choose none or moderate", param_hint="--noise")
    try:
        chosen = bench_tasks(seed, tasks)
    except ValueError as exc:
        fail(str(exc))
    folder = _out_dir(out, Path("runs/bench-guards"))
    words = ["omg-agent", "bench", "guards", "--noise", noise, "--seed", str(seed),
             "--repeat", str(repeat), "--parallel", str(parallel), "--max-steps",
             str(max_steps)]
    words += ["--tasks", tasks] if tasks else []
    command = shlex.join([*words, "--out", str(folder)])
    jobs = plan_jobs(chosen, folder, seed=seed, repeat=repeat, noise=noise,
                     max_steps=max_steps)
    err_console.print(f"{len(chosen)} tasks × {repeat} × 4 configurations on {parallel} "
                      f"workers → {folder}", highlight=False)
    started = time.perf_counter()

    def progress(count: int, total: int, r: dict[str, Any]) -> None:
        mark = "[green]✔[/green]" if r["success"] else "[red]✘[/red]"
        err_console.print(f"[{count}/{total}] {escape(r['config'])} · {escape(r['task_id'])} "
                          f"{mark} {r['status']} · wasted {r['wasted']} · "
                          f"{r['model_calls']} calls · unconfirmed {r['unconfirmed']}"
                          + (f" · {escape(r['error'])}" if r["error"] else ""),
                          soft_wrap=True, highlight=False)

    records = run_jobs(jobs, parallel, on_run=progress)
    wall = round(time.perf_counter() - started, 1)
    data = report(records, {"command": command, "noise": noise, "seed": seed,
                            "repeat": repeat, "max_steps": max_steps, "wall_s": wall,
                            "started": started_at(wall),
                            "tasks": [t.id for t in chosen]})
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
    """Repetitive work: "Like the first 30 posts" and "… by <author>" on vphone, step by
    step vs with macros (offered after two repetitions, run as batched shell calls with
    checkpoints) vs the flow replay and the replay cache: model calls, screenshots, device
    shell calls, wall time, correctness.

    Examples:

      omg-agent bench macro

      omg-agent bench macro --modes "step-by-step,one action a call,macros" --json
    """
    from omg_agent.bench.macro import run_bench, table

    chosen = tuple(m.strip() for m in modes.split(",") if m.strip())

    def progress(r: Any) -> None:
        mark = "[green]✔[/green]" if r.correct else "[red]✘[/red]"
        err_console.print(f"{escape(r.task)} · {r.mode} {mark} {r.model_calls} calls · "
                          f"{r.wall_s:.1f} s", highlight=False)

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


def register(root: typer.Typer) -> None:
    """Add the ``bench`` group to the ``omg-agent`` app."""
    root.add_typer(app, name="bench")
