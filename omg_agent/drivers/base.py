"""The one narrow protocol every device backend implements, and the values it returns.

``observe()`` gives an immutable :class:`~omg_agent.core.observation.Observation`. Who
does what in it: the driver fetches the raw material over its transport (the screenshot
frame, the uiautomator XML, the foreground app) and assembles the ``Observation`` itself,
turning that material into elements, screen hash and OCR boxes with :mod:`omg_agent.perception`
(``uitree.parse_elements``, ``ScreenHash``, ``OcrEngine``), whose per-device objects it holds
in a :class:`~omg_agent.drivers.perception_kit.DevicePerception`. Perception computes; only
drivers talk to the device.

``execute(actions)`` runs a bundle in order and stops after the first action that may change
the screen unpredictably (a *semantic boundary*, DESIGN.md §3), sending what it runs as one
batched device call where it can. Errors raised here are the ``DeviceError`` family of
:mod:`omg_agent.errors`, each carrying the serial and the command.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from omg_agent.core.actions import Action, Launch
from omg_agent.core.observation import Observation, UIElement
from omg_agent.errors import ActionRejected

if TYPE_CHECKING:
    from omg_agent.drivers.ports import Reviewer
    from omg_agent.drivers.profiles import DeviceProfileSpec


@dataclass(frozen=True)
class DeviceInfo:
    serial: str
    width: int
    height: int
    density: int
    sdk: int = 0
    brand: str = ""
    model: str = ""
    status_bar_px: int = 0
    nav_bar_px: int = 0
    driver: str = "adb"

    @classmethod
    def of_profile(cls, serial: str, profile: DeviceProfileSpec, *, driver: str, sdk: int = 0,
                   brand: str = "", model: str = "") -> DeviceInfo:
        """What a driver reports, from the one profile it works from
        (:func:`~omg_agent.drivers.profiles.driver_profile`)."""
        return cls(serial=serial, width=profile.width, height=profile.height,
                   density=profile.density, sdk=sdk, brand=brand, model=model,
                   status_bar_px=profile.status_bar_height,
                   nav_bar_px=profile.nav_bar_height, driver=driver)


@dataclass(frozen=True)
class ActionOutcome:
    """What happened to one action of a bundle."""

    index: int
    action: Action
    ok: bool
    detail: str = ""  # e.g. "snapped 38 px onto [5] button 'Save'", or the error
    point: tuple[int, int] | None = None  # pixel point actually used, for traces
    source: str = ""  # how the target was found: element | tree | ocr | grid | point
    element: UIElement | None = None  # what a touch landed on or text went into, if known
    error: Exception | None = None  # why it failed (AnchorNotFound, ActionRejected, …)


@dataclass(frozen=True)
class ExecResult:
    outcomes: tuple[ActionOutcome, ...]
    dropped: int = 0  # actions after the boundary that were not run
    device_calls: int = 0  # shell round trips used
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return all(o.ok for o in self.outcomes)

    @property
    def executed(self) -> int:
        return sum(1 for o in self.outcomes if o.ok)


@runtime_checkable
class Driver(Protocol):
    def info(self) -> DeviceInfo: ...

    def observe(self, *, ocr: bool = False) -> Observation: ...

    def execute(self, actions: Sequence[Action],
                observation: Observation | None = None, *,
                review: Reviewer | None = None) -> ExecResult: ...

    def launch(self, app: str) -> None: ...

    def current_app(self) -> tuple[str, str]: ...

    def close(self) -> None: ...


def launch_via_execute(driver: Driver, app: str, serial: str) -> None:
    """``launch`` for drivers whose ``execute`` handles a ``Launch`` action: run it, and turn
    a failed outcome into :class:`ActionRejected` naming the app and why."""
    result = driver.execute([Launch(app=app)])
    if not result.ok:
        detail = result.outcomes[0].detail if result.outcomes else "not run"
        raise ActionRejected(f"could not launch {app!r}: {detail}", serial=serial,
                             command=f"launch {app}")
