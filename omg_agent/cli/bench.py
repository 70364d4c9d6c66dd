"""``omg-agent bench …``: benchmarks that print side-by-side tables (never timing asserts).

Thin like every CLI module: parse options, call the bench modules, print. ``--json`` prints
the data instead of the table.
"""

from __future__ import annotations

import dataclasses
import shlex
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from omg_agent.cli.bench_runs import (
    GuardsOptions,
    SuiteOptions,
    list_tasks,
    run_guards_bench,
    run_suite_bench,
)
from omg_agent.cli.bench_runs import print_json as _print_json
from omg_agent.cli.bench_runs import progress_bar as _bar
from omg_agent.cli.console import fail
from omg_agent.errors import ConfigError, OmgError

app = typer.Typer(help="Benchmarks: print side-by-side tables from one run.\n\n"
                       "Example: omg-agent bench suite --model sim --parallel 2\n\n"
                       "Guards on vs off: omg-agent bench guards --repeat 1",
                  no_args_is_help=True)
@app.command()
def observe(
    steps: int = typer.Option(30, help="Observations per pipeline."),
    ocr_runs: int = typer.Option(10, help="Runs per OCR row."),
    input_runs: int = typer.Option(10, help="Runs per input row."),
    as_json: bool = typer.Option(False, "--json", help="Print the measurements as JSON."),
) -> None:
    """Observation pipelines, element-list tokens, OCR and input batching on vphones.

    Example: omg-agent bench observe --steps 30

    Example: omg-agent bench observe --steps 10 --ocr-runs 3 --input-runs 3 --json
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

    Example: omg-agent bench calls --noise moderate

    Example: omg-agent bench calls --tasks 3 --noise none --modes flat,adaptive --vision auto --json
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

    Example: omg-agent bench suite --model sim

    Example: omg-agent bench suite --model sim --tasks cross-app,settings.wifi --repeat 3

    Example: omg-agent bench suite --model sim --config one:bundling=single
    --config many:bundling=multi

    Example: omg-agent bench suite --model http://localhost:8000/v1 --parallel 1 --json

    Example: omg-agent bench suite --list --tasks zh

    Example: omg-agent bench suite --model sim --ray auto
    """
    if list_only:
        from omg_agent.bench.suite import load_tasks

        try:
            list_tasks(load_tasks(seed, tasks), as_json)
        except OmgError as exc:
            fail(str(exc))
        return
    run_suite_bench(SuiteOptions(model, noise, tasks, repeat, parallel, config, seed,
                                 max_steps, out, as_json, per_task, ray))


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

    Example: omg-agent bench guards --repeat 1

    Example: omg-agent bench guards --tasks injection,hazard.dead_update_button
    --parallel 1 --per-task

    Example: omg-agent bench guards --models hostile --tasks sensitive,injection
    """
    run_guards_bench(GuardsOptions(noise, tasks, models, repeat, parallel, seed, max_steps,
                                   out, per_task, as_json))


@app.command()
def perception(
    folder: Path = typer.Argument(..., help="A folder of uiautomator dump files (.xml, .uix)."),
    as_json: bool = typer.Option(False, "--json", help="Print the measurements as JSON."),
) -> None:
    """What the element list makes of real screens: per dump and in total, interactive
    nodes kept, labels lost from the rendered lines, tokens raw vs rendered, stacked lines,
    elements under a higher window, system-bar elements, unlabeled tappables, and the anchor
    check (every labelled element's label resolves inside it, or is reported ambiguous).

    Example: omg-agent bench perception tests/fixtures/real_dumps

    Example: omg-agent bench perception ~/dumps --json
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
def desktop(
    runs: int = typer.Option(5, help="Looks per app and pipeline (the median is shown)."),
    as_json: bool = typer.Option(False, "--json", help="Print the measurements as JSON."),
) -> None:
    """The accessibility tree vs OCR on real desktop apps in a private Xvfb session:
    elements found vs a hand count, wrong or missed anchors, ms per look.

    Example: omg-agent bench desktop --runs 5
    """
    from omg_agent.bench.desktop import bench_desktop, table

    try:
        rows = bench_desktop(runs, progress=lambda name: typer.echo(f"measuring {name}…"))
    except OmgError as exc:
        fail(str(exc))
    if as_json:
        _print_json([dataclasses.asdict(r) for r in rows])
        return
    typer.echo(f"{table(rows)}\n\nCommand: omg-agent bench desktop --runs {runs}")


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

    Example: omg-agent bench macro

    Example: omg-agent bench macro --modes "step-by-step,one action a call,macros" --json
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
    """The live mirror on a vphone, H.264 and JPEG side by side: frame latency (screen
    change → frame at a viewer), fps while changing, bytes/s static vs changing, server CPU,
    click → tap and click → frame, with 1 and 5 viewers (``omg-agent mirror`` in its own
    process, viewers over WebSocket).

    Example: omg-agent bench mirror

    Example: omg-agent bench mirror --viewers 5 --changes 10 --json
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
