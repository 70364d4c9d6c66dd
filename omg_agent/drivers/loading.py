"""Waiting out a loading screen after an action, so no model turn is spent on a spinner.

Issue 11 item 3: waiting is the executor's job. After a bundle ran an action that changes
the screen (a *boundary*), the executor waits for the frames to stop changing
(:mod:`.settle`) and then *arms* the driver's :class:`LoadingWait`. The first observation
after that — the one the orchestrator takes at the top of its next turn, and verifies the
step's checks on — is held back while the screen shows that it is still loading, for at
most ``timeout`` seconds from the action. Frames alone cannot tell: a spinner drawn with
animations off (``animator_duration_scale 0``, common on test phones) stands still and
looks settled, and a turning one may outlast the settle timeout. So the rule reads the
element list the observation brings anyway — no extra device call when nothing loads:

* a ``ProgressBar`` (role ``progress``; a SeekBar is a slider) of the foreground app, or
* a short label that says loading ("Loading…", "Searching… 搜索中", "Please wait", "加载中";
  the one list is :func:`omg_agent.perception.labels.loading_cue`), never typed text in a field.

A cue still there when the wait ran out (a progress bar that belongs to the screen, a
stuck "Loading") is remembered and not waited for again while it stays on the screen, so
it costs one ``timeout`` — not one per action. An observation that did not follow an action
is never held back.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable

from omg_agent.core.observation import Observation, UIElement
from omg_agent.perception.labels import loading_cue

log = logging.getLogger(__name__)

LOADING_TIMEOUT_S = 8.0  # the longest a screen may load after an action before we look
POLL_S = 0.1

Cue = tuple[str, str, str, str]  # package, resource-id, role, label: one loading sign


def loading_signs(obs: Observation) -> list[UIElement]:
    """The elements of ``obs`` that say its app is still loading (see the module doc)."""
    own = {"", obs.package}
    return [e for e in obs.elements if (not obs.package or e.package in own)
            and _says_loading(e)]


def _says_loading(element: UIElement) -> bool:
    if element.bounds.empty:
        return False
    if element.role == "progress":
        return True
    return not element.editable and any(
        loading_cue(t) for t in (element.text, element.desc) if t)


def _cue(element: UIElement) -> Cue:
    return element.package, element.resource_id, element.role, element.label


class LoadingWait:
    """One driver's wait for loading to end, armed by its executor after an action."""

    def __init__(self, timeout: float = LOADING_TIMEOUT_S, poll: float = POLL_S,
                 serial: str = "") -> None:
        if timeout < 0:
            raise ValueError(f"loading timeout must be 0 or more seconds, got {timeout}")
        self.timeout = timeout
        self.poll = poll
        self.serial = serial
        self._until: float | None = None
        self._lasting: set[Cue] = set()  # signs that outlasted a wait, while they stay

    def arm(self) -> None:
        """An action just ran: the next observation waits while the screen loads."""
        self._until = time.monotonic() + self.timeout

    def after(self, obs: Observation, observe: Callable[[], Observation]) -> Observation:
        """``obs`` — or, when armed and it shows loading, the first observation (by
        ``observe``) that no longer does, or the last one when the time ran out."""
        until, self._until = self._until, None
        started = time.monotonic()
        signs = self._pending(obs)
        if until is None or not signs:
            return obs
        while signs and time.monotonic() < until:
            time.sleep(min(self.poll, max(0.0, until - time.monotonic())))
            obs = observe()
            signs = self._pending(obs)
        waited = time.monotonic() - started
        if signs:
            self._lasting |= {_cue(e) for e in signs}
            log.info("%s: still loading after %.1f s (%s); not waiting for it again",
                     self.serial, waited, ", ".join(e.label or e.role for e in signs))
        timings = {**obs.timings, "loading": waited}
        return dataclasses.replace(obs, timings=timings)

    def _pending(self, obs: Observation) -> list[UIElement]:
        """Loading signs not known to outlast a wait; forgets the known ones that left."""
        signs = loading_signs(obs)
        self._lasting &= {_cue(e) for e in signs}
        return [e for e in signs if _cue(e) not in self._lasting]
