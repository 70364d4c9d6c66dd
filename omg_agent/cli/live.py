"""The live view of a run on the terminal (``omg-agent run``, ``omg-agent demo``): the plan
with ticks, the step, the last action, steps and tokens, the model client's retry notices,
and the agent's questions and the gate's asked with the view paused."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Group
from rich.live import Live
from rich.panel import Panel
from rich.text import Text

from omg_agent.cli.console import console, shortened, symbol
from omg_agent.core.secrets import asks_for_secret

if TYPE_CHECKING:
    from omg_agent.brain.run_state import Progress
    from omg_agent.guards.confirmation import TerminalChannel


class _Planning:
    """The first frame, "planning… 12 s": it counts while the planner model thinks."""

    def __init__(self) -> None:
        self.started = time.monotonic()

    def __rich__(self) -> Text:
        return Text(f"planning… {time.monotonic() - self.started:.0f} s")


class LiveView:
    """The rich live display: plan with ticks, step, last action, step/budget, tokens, and
    the model client's retry notices."""

    def __init__(self, task: str) -> None:
        self.task = shortened(" ".join(task.split()), 80)  # the frame's title: one line
        self.frame: Any = _Planning()
        self.live = Live(self.frame, console=console, refresh_per_second=8,
                         transient=False)

    def __enter__(self) -> LiveView:
        self.live.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.live.stop()
        if not console.is_terminal:  # a terminal ends the last frame's line; a pipe does not
            console.print()

    def update(self, p: Progress) -> None:
        from omg_agent.core.todo import render_todo

        plan = render_todo(p.plan, symbol("✔", "[x]"), symbol("○", "[ ]"))
        todo = Text("\n".join(shortened(line) for line in plan.splitlines())
                    or "(no plan yet)")
        status = Text(f"{p.phase} · step {p.steps_used}/{p.steps_limit} · tokens "
                      f"{p.tokens_in:,} in / {p.tokens_out:,} out", style="bold")
        body = Group(todo, Text(f"now: {shortened(p.step)}", style="cyan"),
                     Text(f"last: {p.last_action or '-'}", style="dim"), status)
        self.frame = Panel(body, title=Text(self.task), border_style="blue")
        self.live.update(self.frame)  # a retry notice shown under the last frame goes

    def notice(self, text: str) -> None:
        """A retry notice from a model client, shown under the frame until the next turn
        (on a pipe, which gets no live frames, as a line of its own)."""
        line = Text(f"{symbol('⚠', '!')} {text}", style="yellow")
        if not console.is_terminal:
            console.print(line)
            return
        self.live.update(Group(self.frame, line))

    def confirm_channel(self) -> TerminalChannel:
        """The gate's questions on this terminal (the live view paused while asking)."""
        def read(prompt: str) -> str | None:
            self.live.stop()
            try:
                return typer.prompt(prompt, default="", show_default=False)
            except (EOFError, typer.Abort):
                return None
            finally:
                self.live.start()

        from omg_agent.guards.confirmation import TerminalChannel

        return TerminalChannel(read, lambda text: console.print(Text(text)))

    def ask(self, question: str) -> str | None:
        self.live.stop()
        try:
            # an answer about a password, code or PIN is not echoed on the terminal
            answer = typer.prompt(f"The agent asks: {question}\nYour answer (empty: stop)",
                                  default="", show_default=False,
                                  hide_input=asks_for_secret(question))
        finally:
            self.live.start()
        return answer.strip() or None


__all__ = ["LiveView"]
