"""Several devices, one run: :class:`DeviceRouter` is one Driver over named drivers.

A cross-device task ("read the code on the phone, type it into the desktop app") runs as
one plan, one memory bank, one trace. The plan's steps name their device
(``TaskStep.device``: ``phone``, ``desktop``…); before the orchestrator observes for a step
it calls :meth:`DeviceRouter.route` (its ``route`` hook), which makes that device the
active one, and every Driver call — observe, execute, launch, current app — goes to the
active device until the next switch. A step without a device stays on the one in use.
Memory needs nothing: values saved on one device (``mem_save``) are typed on the other as
``$name``, by the one MemoryBank the orchestrator holds. The trace records a ``device``
event at each switch, and each step's screenshot is the active device's screen.

:func:`parse_devices` reads ``--device`` values: ``phone=<serial>``, ``desktop=local``,
``desktop=:99``; a value without a name is named ``desktop`` (a desktop spec) or
``phone``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from omg_agent.core.actions import Action
from omg_agent.core.contracts import TaskStep
from omg_agent.core.observation import Observation
from omg_agent.drivers.base import DeviceInfo, Driver, ExecResult
from omg_agent.drivers.ports import Reviewer
from omg_agent.errors import ConfigError

log = logging.getLogger(__name__)


def parse_devices(values: Sequence[str]) -> dict[str, str]:
    """``["phone=emulator-5554", "desktop=local"]`` as ``{"phone": "emulator-5554",
    "desktop": "desktop=local"}`` (the desktop keeps its spec for ``open_desktop``)."""
    from omg_agent.drivers.desktop import is_desktop

    devices: dict[str, str] = {}
    for value in values:
        name, sep, target = value.partition("=")
        if is_desktop(value):
            name, target = "desktop", value if value.startswith("desktop=") else "desktop"
        elif not sep:
            name, target = "phone", value
        name, target = name.strip(), target.strip()
        if not name.isidentifier() or not target:
            raise ConfigError(f"bad --device {value!r}: write name=serial (phone=emulator-5554)"
                              " or desktop=local / desktop=:99")
        if name in devices:
            raise ConfigError(f"--device {name} is given twice")
        devices[name] = target
    return devices


class DeviceRouter:
    """The Driver protocol over ``drivers`` by name; ``active`` is the first by default."""

    def __init__(self, drivers: Mapping[str, Driver], active: str | None = None,
                 on_switch: Callable[[str], None] | None = None) -> None:
        if not drivers:
            raise ConfigError("a device router needs at least one device")
        self.drivers = dict(drivers)
        self.active = active or next(iter(self.drivers))
        self._check(self.active)
        self.on_switch = on_switch

    def _check(self, name: str) -> None:
        if name not in self.drivers:
            raise ConfigError(f"no device named {name!r} in this run (devices: "
                              + ", ".join(self.drivers) + ")")

    @property
    def current(self) -> Driver:
        return self.drivers[self.active]

    def use(self, name: str) -> bool:
        """Make ``name`` the active device; True when that is a switch."""
        self._check(name)
        if name == self.active:
            return False
        log.info("device: %s -> %s", self.active, name)
        self.active = name
        if self.on_switch is not None:
            self.on_switch(name)
        return True

    def route(self, step: TaskStep) -> str | None:
        """The orchestrator's hook: the step's device becomes the active one; the name when
        it switched."""
        return self.active if step.device and self.use(step.device) else None

    # -- the Driver protocol, on the active device ---------------------------------------
    def info(self) -> DeviceInfo:
        return self.current.info()

    def observe(self, *, ocr: bool = False) -> Observation:
        return self.current.observe(ocr=ocr)

    def execute(self, actions: Sequence[Action],
                observation: Observation | None = None, *,
                review: Reviewer | None = None) -> ExecResult:
        return self.current.execute(actions, observation, review=review)

    def launch(self, app: str) -> None:
        self.current.launch(app)

    def current_app(self) -> tuple[str, str]:
        return self.current.current_app()

    def close(self) -> None:
        for driver in self.drivers.values():
            driver.close()

    def __getattr__(self, name: str) -> Any:  # anchorer, geometry…: the active device's
        if name in ("drivers", "active"):
            raise AttributeError(name)
        return getattr(self.drivers[self.active], name)
