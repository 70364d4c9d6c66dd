"""``omg-agent report RUN_DIR [--out FILE] [--json]``: render a run folder as one HTML page."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from omg_agent.cli.console import fail
from omg_agent.errors import OmgError


def report(
    run_dir: Path = typer.Argument(..., help="A run folder (the one holding trace.jsonl)."),
    out: Path | None = typer.Option(None, "--out", "-o",
                                    help="Where to write the HTML (default RUN_DIR/report.html)."),
    as_json: bool = typer.Option(False, "--json",
                                 help="Print the report's path with the run's task and result."),
) -> None:
    """Render a run's trace as one self-contained HTML page and print its path.

    Example: omg-agent report runs/20260101-120000-find-the-price

    Example: omg-agent report runs/demo/20260101-120000-demo --out demo.html --json
    """
    from omg_agent.trace.loader import load_trace
    from omg_agent.trace.report import render_report
    from omg_agent.trace.summary import summarize

    try:
        path = render_report(run_dir, out)
    except OmgError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot write the report: {exc}")
    if not as_json:
        typer.echo(str(path))
        return
    trace = load_trace(run_dir)
    result = trace.result or {}
    counts = summarize(trace).json_keys()  # "steps" is the older name of "turns"
    typer.echo(json.dumps({"report": str(path), "run_dir": str(run_dir), "task": trace.task,
                           "status": result.get("status"), "steps": len(trace.steps),
                           **counts, "warnings": list(trace.warnings)}, ensure_ascii=False))


def register(root: typer.Typer) -> None:
    """Add the ``report`` command to the ``omg-agent`` app."""
    root.command("report")(report)
