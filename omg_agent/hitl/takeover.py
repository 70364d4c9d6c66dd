"""A human takeover: the person at the mirror pauses the agent, acts, then presses Continue.

:class:`Takeover` is the switch the page flips; :class:`HeldDriver` is the agent's driver
behind it. While a takeover is on, the agent's next look at the screen waits (it sees the
screen the human leaves, not the one it last saw), and an action the agent decided on a
screen from before a takeover is not sent: it comes back failed, saying the human took over,
so the agent looks again. The mirror's own gestures use the driver itself and never wait.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from omg_agent.drivers.base import ActionOutcome, ExecResult
from omg_agent.drivers.wrapper import DriverWrapper

WAIT_SLICE_S = 0.5
TOOK_OVER = "not sent: the human took over the phone meanwhile; look at the screen again"


class Takeover:
    def __init__(self) -> None:
        self._cond = threading.Condition()
        self.active = False
        self.generation = 0  # how many takeovers began

    def begin(self) -> None:
        with self._cond:
            if not self.active:
                self.active = True
                self.generation += 1

    def end(self) -> None:
        with self._cond:
            self.active = False
            self._cond.notify_all()

    def wait_released(self) -> int:
        """Block while a takeover is on; the generation once it is off."""
        with self._cond:
            while self.active:
                self._cond.wait(WAIT_SLICE_S)
            return self.generation


class HeldDriver(DriverWrapper):
    """``driver`` for the agent, held by ``takeover`` (every other call passes through)."""

    def __init__(self, driver: Any, takeover: Takeover) -> None:
        super().__init__(driver)
        self._takeover = takeover
        self._seen = takeover.generation

    def observe(self, *, ocr: bool = False) -> Any:
        self._seen = self._takeover.wait_released()
        return self.inner.observe(ocr=ocr)

    def execute(self, actions: Sequence[Any], observation: Any = None, *,
                review: Any = None) -> ExecResult:
        if self._takeover.wait_released() != self._seen:
            return ExecResult(tuple(ActionOutcome(i, a, False, detail=TOOK_OVER)
                                    for i, a in enumerate(actions)))
        return self.inner.execute(actions, observation, review=review)

    def launch(self, app: str) -> None:
        self._takeover.wait_released()
        self.inner.launch(app)

    def __getattr__(self, name: str) -> Any:  # the driver's own parts (anchorer, io, …)
        if name == "inner":  # not set yet: no driver to ask
            raise AttributeError(name)
        return getattr(self.inner, name)
