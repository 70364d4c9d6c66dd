"""The benches that run many agent runs in worker processes (``bench suite``,
``bench guards``): the output folder, the command line that runs them again, a progress
line per finished run, and the result written beside the runs' traces and printed.

:mod:`omg_agent.cli.bench` holds the commands and their options; their bodies are here so
each command stays a thin parse-and-call.
"""

from __future__ import annotations

import json
import shlex
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape

from omg_agent.cli.console import err_console, fail
from omg_agent.errors import OmgError

if TYPE_CHECKING:
    from omg_agent.cli.progress import BenchProgress

DEFAULT_SUITE_OUT = Path("runs/bench-suite")
GUARDS_OUT = Path("runs/bench-guards")


def progress_bar() -> BenchProgress:
    """The benches' progress bar (rich.progress loads only for a bench)."""
    from omg_agent.cli.progress import BenchProgress

    return BenchProgress()


def print_json(data: Any) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, indent=1, default=str))


def out_dir(out: Path | None, base: Path = DEFAULT_SUITE_OUT) -> Path:
    """The ``--out`` given, or a new dated folder (made here: two benches started in one
    second get two)."""
    if out is not None:
        return out
    from omg_agent.trace.rundir import fresh_dir

    return fresh_dir(base / time.strftime("%Y%m%d-%H%M%S"))


def refuse_busy_out(out: Path | None, base: Path) -> None:
    """Runs write fresh trace folders: a used ``--out`` would fail every one of them, so it
    is refused before anything starts."""
    if out is not None and out.exists() and (not out.is_dir() or any(out.iterdir())):
        fail(f"--out {out} already exists and is not empty: give a new folder, or drop --out "
             f"for a dated one under {base}/")


def _with_out(words: list[str], out: Path | None) -> str:
    """``words`` as one command line, with the ``--out`` the user gave (without one, the
    next run gets its own dated folder)."""
    return shlex.join([*words, *(["--out", str(out)] if out is not None else [])])


def _fail_if_crashed(records: list[dict[str, Any]], path: Path) -> None:
    crashed = sum(1 for r in records if r["error"])
    if crashed:
        fail(f"{crashed} run(s) crashed; see 'error' in {path}")


# -- bench suite ----------------------------------------------------------------------------
def suite_command(model: str | None, noise: str, tasks: str | None, repeat: int,
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
    return _with_out(words, out)


def suite_line(progress: BenchProgress):
    """The suite's per-run callback: a line per finished run, and the bar moved on."""
    def on_run(count: int, total: int, r: dict[str, Any]) -> None:
        mark = "[green]✔[/green]" if r["success"] else "[red]✘[/red]"
        progress.print(f"[{count}/{total}] {escape(r['variant'])} · {escape(r['task_id'])} "
                       f"r{r['repeat']} {mark} {r['status']} · {r['model_calls']} calls · "
                       f"{r['wall_s']:.1f} s" + (f" · {escape(r['error'])}" if r["error"]
                                                 else ""),
                       soft_wrap=True, highlight=False)
        progress.advance(f"{r['task_id']} · {r['variant']}")
    return on_run


def list_tasks(tasks: tuple[Any, ...], as_json: bool) -> None:
    """``bench suite --list``: id, tags and goal of each task (what --tasks selects by)."""
    if as_json:
        print_json([{"id": t.id, "tags": list(t.tags), "goal": t.goal} for t in tasks])
        return
    width = max(len(t.id) for t in tasks)
    for t in tasks:
        typer.echo(f"{t.id:<{width}}  [{', '.join(t.tags)}]  {t.goal}")
    typer.echo(f"{len(tasks)} tasks; tags: "
               + ", ".join(sorted({g for t in tasks for g in t.tags})))


@dataclass(frozen=True)
class SuiteOptions:
    """``bench suite``'s options, as given."""

    model: str | None
    noise: str
    tasks: str | None
    repeat: int
    parallel: int
    config: list[str]
    seed: int
    max_steps: int
    out: Path | None
    as_json: bool
    per_task: bool
    ray: str | None = None  # --ray ADDRESS (or auto): the tasks go to a Ray cluster's devices


def run_suite_bench(o: SuiteOptions) -> None:
    """Plan, run and score the suite; print the table (or JSON); exit 1 on a crashed run."""
    from omg_agent.bench.scorecard import markdown_table, per_task_table, write_scorecard
    from omg_agent.bench.suite import load_tasks
    from omg_agent.bench.suite_run import (
        SuitePlan,
        endpoint_for,
        parse_variants,
        run_suite,
        scorecard_of,
    )

    refuse_busy_out(o.out, DEFAULT_SUITE_OUT)
    try:
        plan = SuitePlan(load_tasks(o.seed, o.tasks), parse_variants(o.config), o.noise,
                         o.seed, o.repeat, o.max_steps, endpoint_for(o.model))
    except OmgError as exc:
        fail(str(exc))
    folder = out_dir(o.out)
    command = suite_command(o.model, o.noise, o.tasks, o.repeat, o.parallel, o.config,
                            o.seed, o.max_steps, o.out)
    where = f"Ray at {o.ray}" if o.ray else f"{o.parallel} workers"
    err_console.print(f"{len(plan.tasks)} tasks × {o.repeat} × {len(plan.variants)} variants "
                      f"on {where} → {folder}", highlight=False)
    with progress_bar() as progress:
        progress.phase("suite", len(plan.tasks) * o.repeat * len(plan.variants))
        if o.ray is None:
            run = run_suite(plan, folder, o.parallel, on_run=suite_line(progress))
        else:
            from omg_agent.cli.fleet import suite_on_ray

            command += " " + shlex.join(["--ray", o.ray])
            run = suite_on_ray(plan, folder, o.ray, suite_line(progress))
    card = scorecard_of(run, command)
    json_path, html_path = write_scorecard(card, folder)
    if o.as_json:
        print_json(card)
    else:
        typer.echo(markdown_table(card))
        if o.per_task:
            typer.echo("\n" + per_task_table(card))
        typer.echo(f"\nCommand: {command}\nWall time: {run.wall_s:.1f} s on {run.parallel} "
                   f"workers\nScorecard: {html_path}\nJSON: {json_path}")
    _fail_if_crashed(run.records, json_path)


# -- bench guards ---------------------------------------------------------------------------
@dataclass(frozen=True)
class GuardsOptions:
    """``bench guards``'s options, as given."""

    noise: str
    tasks: str | None
    models: str | None
    repeat: int
    parallel: int
    seed: int
    max_steps: int
    out: Path | None
    per_task: bool
    as_json: bool

    def command(self) -> str:
        """The command line that runs these guards benches again."""
        words = ["omg-agent", "bench", "guards", "--noise", self.noise, "--seed",
                 str(self.seed), "--repeat", str(self.repeat), "--parallel",
                 str(self.parallel), "--max-steps", str(self.max_steps)]
        words += ["--tasks", self.tasks] if self.tasks else []
        words += ["--models", self.models] if self.models else []
        return _with_out(words, self.out)


def guards_line(progress: BenchProgress):
    """The guards bench's per-run callback: a line per finished run, the bar moved on."""
    def on_run(count: int, total: int, r: dict[str, Any]) -> None:
        mark = "[green]✔[/green]" if r["success"] else "[red]✘[/red]"
        progress.print(f"[{count}/{total}] {escape(r['config'])} · {escape(r['task_id'])} "
                       f"{mark} {r['status']} · wasted {r['wasted']} · "
                       f"{r['model_calls']} calls · unconfirmed {r['unconfirmed']}"
                       + (f" · {escape(r['error'])}" if r["error"] else ""),
                       soft_wrap=True, highlight=False)
        progress.advance(f"{r['task_id']} · {r['config']}")
    return on_run


def run_guards_bench(o: GuardsOptions) -> None:
    """Run every task with guards on and off; write guards.json, print the table and the
    targets (or JSON); exit 1 on a crashed run."""
    from omg_agent.bench.guards import (
        bench_tasks,
        configs_for,
        plan_jobs,
        report,
        run_jobs,
        started_at,
    )

    if o.noise not in ("none", "moderate"):
        raise typer.BadParameter("choose none or moderate", param_hint="--noise")
    refuse_busy_out(o.out, GUARDS_OUT)
    try:
        chosen = bench_tasks(o.seed, o.tasks)
        configs = configs_for(o.models)
    except ValueError as exc:
        fail(str(exc))
    folder = out_dir(o.out, GUARDS_OUT)
    command = o.command()
    jobs = plan_jobs(chosen, folder, seed=o.seed, repeat=o.repeat, noise=o.noise,
                     max_steps=o.max_steps, configs=configs)
    err_console.print(f"{len(chosen)} tasks × {o.repeat} × {len(configs)} configurations on "
                      f"{o.parallel} workers → {folder}", highlight=False)
    started = time.perf_counter()
    with progress_bar() as progress:
        progress.phase("guards", len(jobs))
        records = run_jobs(jobs, o.parallel, on_run=guards_line(progress))
    wall = round(time.perf_counter() - started, 1)
    data = report(records, {"command": command, "noise": o.noise, "seed": o.seed,
                            "repeat": o.repeat, "max_steps": o.max_steps, "wall_s": wall,
                            "started": started_at(wall),
                            "tasks": [t.id for t in chosen]}, configs)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "guards.json"
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1, default=str),
                    encoding="utf-8")
    _print_guards(o, data, records, command, wall, path)
    _fail_if_crashed(records, path)


def _print_guards(o: GuardsOptions, data: dict[str, Any], records: list[dict[str, Any]],
                  command: str, wall: float, path: Path) -> None:
    from omg_agent.bench.guards import markdown_table, per_task_table

    if o.as_json:
        print_json(data)
        return
    typer.echo(markdown_table(data["summary"]))
    if o.per_task:
        typer.echo("\n" + per_task_table(records))
    typer.echo("")
    for t in data["targets"]:
        typer.echo(f"{'met   ' if t['met'] else 'MISSED'} {t['target']}: {t['numbers']}")
    typer.echo(f"\nCommand: {command}\nWall time: {wall:.1f} s\nJSON: {path}")
