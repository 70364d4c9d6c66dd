"""The sensitive-action gate for the CLI's device commands (``tap``, ``long-press``,
``swipe``, ``type``, ``key``): the same choke point a run, the Python API and MCP pass
(:mod:`omg_agent.guards.choke`), asking whoever typed the command.

An input whose effect is sensitive — a tap on Pay, a swipe that is a tap on Send, ENTER on a
focused Delete — is asked about at the terminal; with stdin not a terminal nobody can be
asked and the command exits 5 (nothing was sent) unless ``--yes`` (the human who typed the
command approves what it does) or ``--allow CLASS`` (or the user's config) pre-authorises
it, as for ``omg-agent run``.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import typer

from omg_agent.cli.console import console, fail

if TYPE_CHECKING:
    from omg_agent.guards.choke import ChokePoint

EXIT_HELD = 5  # as `omg-agent run` when an action needs a human's yes
YesOpt = typer.Option(False, "--yes", help="Approve a sensitive input (Pay, Send, Delete, …) "
                      "without asking: you typed the command.")
AllowOpt = typer.Option([], "--allow", help="Pre-authorise a sensitive class (payment, "
                        "delete, send, …), optionally send:Bob, as for `omg-agent run`.")


def device_judge(serial: str, *, yes: bool = False, allow: list[str] | None = None
                 ) -> ChokePoint:
    """The choke point of a device command: the user's config and ``allow`` pre-authorise,
    ``yes`` approves, a terminal is asked, else nobody (a held input: exit 5)."""
    from omg_agent.brain.agent import gatekeeper
    from omg_agent.config import Settings
    from omg_agent.errors import OmgError
    from omg_agent.guards.choke import ChokePoint
    from omg_agent.guards.confirmation import ScriptedChannel, TerminalChannel

    try:
        settings = Settings.load(overrides={"allow": ",".join(allow or ()) or None})
        channel: Any = ScriptedChannel(policy=lambda request: True) if yes else \
            TerminalChannel.from_streams(sys.stdin, sys.stderr) if sys.stdin.isatty() else None
        return ChokePoint(gatekeeper(settings, "", channel), serial=serial)
    except OmgError as exc:
        fail(str(exc))


def exit_if_held(result: Any) -> None:
    """Exit 5 when the choke point held an input of ``result`` (nothing of it was sent),
    saying what and how to approve it."""
    from omg_agent.drivers.ports import InputHeld

    for outcome in result.outcomes:
        error = outcome.error
        if isinstance(error, InputHeld):
            request = error.request
            how = "you said no" if error.answer is False else \
                "nobody at a terminal to ask: a human must approve it"
            console.print(f"[red]held[/red] {request.describe} ({request.reason}) — {how}",
                          highlight=False)
            raise typer.Exit(EXIT_HELD)
