"""``run --dry-run``'s own ending: status ``dry_run`` (exit 0) and the actions it would have
sent, in order — never the loop guard's verdict on a screen that could not change, never a
resume hint (a dry run is not resumed)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text

from omg_agent.cli.console import console, print_json, shortened

if TYPE_CHECKING:
    from omg_agent.brain.run_state import RunResult


def first_pass(planned: list[str]) -> list[str]:
    """The actions a dry run planned, up to the first one planned again: the screen never
    changes in a dry run, so what follows is the agent retrying (waits between them are the
    loop guard's, not the plan's)."""
    seen: set[str] = set()
    out: list[str] = []
    for line in planned:
        if line in seen:
            break
        if '"type": "wait"' not in line:
            seen.add(line)
        out.append(line)
    while out and '"type": "wait"' in out[-1]:
        out.pop()
    return out


def print_dry(result: RunResult, planned: list[str], run_dir: Path, as_json: bool) -> None:
    """A dry run's result: status ``dry_run``, the actions it would have sent in order."""
    planned = first_pass(planned)
    if as_json:
        print_json({"status": "dry_run", "planned": planned, "question": result.question,
                    "model_calls": result.model_calls, "steps_used": result.steps_used,
                    "run_dir": str(run_dir)})
        return
    console.print(Text.assemble(("dry run", "cyan"), f": {len(planned)} planned action(s), "
                                "nothing was sent to the device"))
    for number, line in enumerate(planned, 1):
        console.print(Text(f"  {number}. {shortened(line, 2_000)}"), soft_wrap=True)
    if result.question:  # a sensitive action the gate held, or the model's question
        console.print(Text(f"then it would ask: {shortened(result.question, 2_000)}"),
                      soft_wrap=True)
    console.print(Text(f"{result.model_calls} model call(s) · trace {run_dir}"), soft_wrap=True)
