"""``omg-agent run --mirror``: a run's questions and approvals on the mirror page too.

:func:`attach_mirror` starts a :class:`~omg_agent.hitl.server.Mirror` on the run's driver
and returns the ``ask_user`` and confirmation channel to give the orchestrator: each asks
the page and (when given) the terminal at once; whichever answers first wins. Once the
orchestrator exists, :meth:`Mirror.audit_to` sends the human's actions to its trace;
:func:`progress_hook` shows the plan with ticks, the step and recent actions on the page,
each action with a thumbnail of the screen it acted on — except where that screen could show
a secret: the action's words held one (masked), the screen's text shows one or a piece of one
(checked on the text as the device gave it, or masked), or the screen has a password or
other secret field (a login screen, a PIN pad: in doubt, no picture).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import replace
from typing import Any

from omg_agent.drivers.secret_places import is_secret_input
from omg_agent.guards.confirmation import ConfirmationChannel
from omg_agent.hitl.frames import thumbnail
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
        seen = getattr(progress, "acted_on", None)
        masked = scrub(replace(progress, acted_on=None) if seen is not None else progress)
        shot = None  # made once per new action, not on every progress of its turn
        if (seen is not None and masked.last_action
                and not mirror.channel.lists(masked.last_action)
                and masked.last_action == progress.last_action
                and not _may_show_secret(seen, scrub)):
            shot = thumbnail(seen.screenshot)
        mirror.channel.show_progress(masked, shot)

    return both


def _may_show_secret(obs: Any, scrub: Callable[[Any], Any]) -> bool:
    """True when the screen ``obs`` has a password or other secret field (by what the field
    is), or a text that holds a secret or a piece of one — whether ``obs`` comes as the
    device saw it (``scrub`` changes the text) or already masked (a placeholder in it: the
    run masks its progress before it gets here, the pixels stay as they were)."""
    if obs is None:
        return False
    if any(is_secret_input(e) for e in obs.elements):
        return True
    texts = [t for e in obs.elements for t in (e.text, e.desc, e.hint, *e.extra_texts)]
    texts += [box.text for box in obs.ocr or ()]
    return any(t and ("{{secret:" in t or scrub(t) != t) for t in texts)
