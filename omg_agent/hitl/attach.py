"""``omg-agent run --mirror``: a run's questions and approvals on the mirror page too.

:func:`attach_mirror` starts a :class:`~omg_agent.hitl.server.Mirror` on the run's driver
and returns the ``ask_user`` and confirmation channel to give the orchestrator: each asks
the page and (when given) the terminal at once; whichever answers first wins. Once the
orchestrator exists, :meth:`Mirror.audit_to` sends the human's actions to its trace;
:func:`progress_hook` shows the plan with ticks, the step and recent actions on the page.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

from omg_agent.guards.confirmation import ConfirmationChannel
from omg_agent.hitl.server import Mirror

Ask = Callable[[str], str | None]


def attach_mirror(stack: ExitStack, driver: Any, ask: Ask | None,
                  confirm: ConfirmationChannel | None, announce: Callable[[str], object],
                  **options: Any) -> tuple[Ask, ConfirmationChannel, Mirror]:
    """Start the mirror (closed with ``stack``), ``announce`` its one-time link."""
    mirror = stack.enter_context(Mirror(driver, **options))
    announce(mirror.url)
    both_ask, both_confirm = mirror.channel.with_terminal(ask, confirm)
    return both_ask, both_confirm, mirror


def progress_hook(mirror: Mirror, show: Callable[[Any], object] | None,
                  scrub: Callable[[Any], Any], task: str = "") -> Callable[[Any], None]:
    """The run's progress to ``show`` (the terminal's live view, if any) and to the page,
    masked with ``scrub`` (the run's secrets), under the run's ``task``."""
    mirror.channel.task = scrub(task)
    def both(progress: Any) -> None:
        if show is not None:
            show(progress)
        mirror.channel.show_progress(scrub(progress))

    return both
