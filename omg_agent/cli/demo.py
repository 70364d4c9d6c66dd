"""``omg-agent demo``: the README's first command — the main job on a vphone, then the facts.

Thin: loads :class:`Settings`, says plainly which model answers (the configured one, or the
simulated double and how to set a real one), runs :func:`omg_agent.demo.run_demo` with the
live view of ``omg-agent run``, and prints the result, what the phone really shows, the
model calls / steps / time and the HTML report's path. Exit 0 only when the agent said done
AND the note on the phone holds the Shop's price.
"""

from __future__ import annotations

import json
import sys
from contextlib import nullcontext
from pathlib import Path

import typer
from rich.markup import escape

from omg_agent.cli.console import console, err_console, fail
from omg_agent.errors import OmgError


def demo(
    out: Path = typer.Option(Path("runs/demo"), "--out",
                             help="Folder for the demo's run (trace and HTML report)."),
    seed: int = typer.Option(0, "--seed", help="vphone seed (prices, content, hazards)."),
    as_json: bool = typer.Option(False, "--json", help="Print the outcome as JSON only."),
) -> None:
    """Run the main job on a vphone: find a Shop price and save it in Notes, then report.

    Uses the configured model (OMG_MODEL / OMG_BASE_URL or omg.toml); with none configured
    it uses a simulated model double and says so. Prints the result, the truth read from
    the phone, model calls, steps, time, and the path of the HTML trace report.

    Example: omg-agent demo

    Example: omg-agent demo --out runs/demo --seed 3 --json
    """
    from omg_agent.cli.live import LiveView
    from omg_agent.demo import REAL_MODEL_HINT, SIMULATED_NOTICE, demo_task, run_demo

    try:
        from omg_agent.config import Settings

        settings = Settings.load()
    except OmgError as exc:
        fail(str(exc))
    say = err_console if as_json else console
    if settings.model_configured:
        say.print(f"Model: {escape(settings.model_for('operator') or '')} at "
                  f"{escape(settings.base_url or 'the OpenAI API')}", soft_wrap=True)
    else:
        say.print(f"[bold yellow]{escape(SIMULATED_NOTICE)}[/bold yellow]", soft_wrap=True)
        say.print(escape(REAL_MODEL_HINT), soft_wrap=True)
    goal = demo_task().goal
    say.print(f"Task: {escape(goal)} (on a vphone, seed {seed})", soft_wrap=True)
    view = nullcontext(None) if as_json else LiveView(goal)
    try:
        with view as live:
            ask = live.ask if live is not None and sys.stdin.isatty() else None
            outcome = run_demo(settings, out, seed=seed, ask=ask,
                               on_progress=live.update if live is not None else None)
    except OmgError as exc:
        fail(str(exc))
    if as_json:
        typer.echo(json.dumps(outcome.as_dict(), ensure_ascii=False))
    else:
        _print_outcome(outcome)
    raise typer.Exit(0 if outcome.ok else 1)


def _print_outcome(o) -> None:
    colour = "green" if o.status == "done" else "red"
    console.print(f"[{colour}]{o.status}[/{colour}]: {escape(o.answer)}")
    if o.status != "done":
        console.print(escape(o.summary))
    shown = ", ".join(f'"{n}"' for n in o.notes) or "no note"
    verdict = ("[green]the note equals the Shop price ✔[/green]" if o.saved else
               "[red]no note equals the Shop price ✘[/red]")
    console.print(f"Checked on the phone: Shop price {escape(o.price)}; Notes holds "
                  f"{escape(shown)} — {verdict}")
    model = f"{o.model} (simulated)" if o.simulated else o.model
    console.print(f"model {escape(model)} · model calls {o.model_calls} · budget steps "
                  f"{o.steps} · tokens {o.tokens_in:,}/{o.tokens_out:,} · {o.wall_s:.1f} s")
    console.print(f"HTML trace report: {escape(o.report)}", soft_wrap=True)
    if not o.ok and not o.simulated:
        console.print("Check the model endpoint with `omg-agent doctor --only model`.")


def register(root: typer.Typer) -> None:
    """Add the ``demo`` command to the ``omg-agent`` app."""
    root.command(name="demo")(demo)
