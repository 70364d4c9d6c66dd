"""The desktop driver: the Driver protocol over a :class:`~.backend.DesktopBackend`.

Same contract as the phone drivers (DESIGN.md §3): ``observe()`` gives an immutable
:class:`~omg_agent.core.observation.Observation` in screenshot pixels, ``execute()`` runs a
bundle through the one :class:`~omg_agent.drivers.executor.BundleExecutor`, over
:class:`~.port.DesktopPort`. What differs is where elements come from (DESIGN.md §4):

* the backend's **accessibility tree** when it has one (AT-SPI on Linux, :mod:`.atspi`;
  macOS AX, flattened by :mod:`.mac`); an anchor the tree does not name is still looked
  for with OCR by the anchorer, as on a phone;
* else **OCR**: every text box the OCR engine reads becomes a ``text`` element (class
  ``ocr.Text``), so the model, anchors (``text=Save``) and ``omg-agent observe`` see the
  screen's words with their boxes; the boxes also ride along as ``observation.ocr``. After
  the first look only what changed is read again (:mod:`.screenread`);
* the **labelled grid** stays the last resort, as on a phone
  (:meth:`~omg_agent.perception.anchor.Anchorer.resolve_cell`).

The "package" of an observation is the frontmost app (X11 ``WM_CLASS``, macOS bundle name),
its "activity" the window title. Launching takes an app name from ``apps`` (name →
command), a program on PATH, or a command line whose program is on PATH. After a
boundary the screen settles as on a phone (:mod:`omg_agent.drivers.settle`, frames).
"""

from __future__ import annotations

import logging
import shlex
import shutil
import time
from collections.abc import Mapping, Sequence
from typing import Any

from omg_agent.core.actions import Action, Launch, Swipe
from omg_agent.core.geometry import Point
from omg_agent.core.observation import Observation, OcrBox, UIElement
from omg_agent.drivers import settle
from omg_agent.drivers.base import ActionOutcome, DeviceInfo, ExecResult, launch_via_execute
from omg_agent.drivers.desktop.backend import DesktopBackend, DisplayInfo, DisplayScale
from omg_agent.drivers.desktop.keys import parse_combo
from omg_agent.drivers.desktop.port import DesktopPort, LongPressMode
from omg_agent.drivers.desktop.screenread import ScreenReader
from omg_agent.drivers.executor import BundleExecutor
from omg_agent.drivers.perception_kit import DevicePerception
from omg_agent.drivers.ports import InputJudge, Reviewer

log = logging.getLogger(__name__)

# select the field's text, then delete it: End, Shift+Home works in Tk, GTK, Qt and
# browsers (Tk binds ctrl+a to "line start"); macOS fields take cmd+a
CLEAR_KEYS = {"x11": (("end",), ("shift", "home"), ("backspace",)),
              "mac": (("cmd", "a"), ("backspace",))}


def ocr_elements(boxes: Sequence[OcrBox]) -> tuple[UIElement, ...]:
    """OCR boxes as the element list of a screen without an accessibility tree."""
    return tuple(UIElement(id=i, cls="ocr.Text", role="text", bounds=b.bounds, text=b.text)
                 for i, b in enumerate(boxes, 1))


class DesktopDriver:
    """A desktop through ``backend``. ``serial`` names it in errors and traces
    (``desktop=:99``); ``apps`` maps app names to launch commands."""

    name = "desktop"

    def __init__(self, backend: DesktopBackend, *, serial: str = "desktop",
                 apps: Mapping[str, str] | None = None,
                 long_press: LongPressMode = "right_click", scroll_px: int = 60,
                 ocr: Any = None, anchorer: Any = None, settle_timeout: float = 2.0,
                 settle_window: float = 0.25, judge: InputJudge | None = None) -> None:
        self.backend = backend
        self.serial = serial
        self.settle_timeout = settle_timeout
        self.settle_window = settle_window
        self._apps = dict(apps or {})
        self._display: DisplayInfo | None = None
        self._info: DeviceInfo | None = None
        self._programs: list[str] | None = None
        self._reader: ScreenReader | None = None
        self.perception = DevicePerception(self.info, ocr=ocr, anchorer=anchorer)
        self.last_observation: Observation | None = None
        self.port = DesktopPort(self, long_press=long_press, scroll_px=scroll_px)
        self._executor = BundleExecutor(self, self.port, self.aliases, judge=judge)

    # -- identity ------------------------------------------------------------------------
    def display(self) -> DisplayInfo:
        if self._display is None:
            self._display = self.backend.display()
        return self._display

    @property
    def scale(self) -> DisplayScale:
        return self.display().scale

    @property
    def clear_keys(self) -> tuple[tuple[str, ...], ...]:
        return CLEAR_KEYS.get(self.backend.name, CLEAR_KEYS["x11"])

    def info(self) -> DeviceInfo:
        if self._info is None:
            d = self.display()
            self._info = DeviceInfo(serial=self.serial, width=d.width, height=d.height,
                                    density=d.dpi, brand=self.backend.name, model=d.name,
                                    driver=self.name)
        return self._info

    def aliases(self) -> dict[str, str]:
        return self._apps

    def apps(self) -> list[str]:
        if self._programs is None:
            self._programs = self.backend.apps()
        return self._programs

    geometry = property(lambda self: self.perception.geometry)
    hasher = property(lambda self: self.perception.hasher)
    ocr_engine = property(lambda self: self.perception.ocr_engine)
    anchorer = property(lambda self: self.perception.anchorer)

    # -- observing -----------------------------------------------------------------------
    def observe(self, *, ocr: bool = False) -> Observation:
        """The screen now; elements from the accessibility tree, else from OCR (which then
        always runs: it is the element list)."""
        t0 = time.perf_counter()
        image = self.backend.screenshot()
        t1 = time.perf_counter()
        tree = self.backend.elements()
        t2 = time.perf_counter()
        app, title = self.backend.frontmost()
        screen_hash = self.hasher.compute(image, package=app, elements=tree or ())
        t3 = time.perf_counter()
        boxes: tuple[OcrBox, ...] | None = None
        if tree is None or ocr:  # again only where the screen changed (.screenread)
            if self._reader is None:
                self._reader = ScreenReader(self.ocr_engine)
            boxes = self._reader.read(image)
        t4 = time.perf_counter()
        elements = tuple(tree) if tree is not None else ocr_elements(boxes or ())
        timings = {"screencap": t1 - t0, "dump": t2 - t1, "hash": t3 - t2, "ocr": t4 - t3,
                   "total": time.perf_counter() - t0}
        obs = Observation(screenshot=image, elements=elements, package=app, activity=title,
                          screen_hash=screen_hash, timestamp=time.time(), ocr=boxes,
                          timings=timings, geometry=self.geometry)
        self.last_observation = obs
        return obs

    def current_app(self) -> tuple[str, str]:
        return self.backend.frontmost()

    def element_for(self, p: Point) -> UIElement | None:
        """The smallest element of the last observation under pixel ``p`` that an AX press
        can act on (a button, link, checkbox or menu item: ``clickable``)."""
        obs = self.last_observation
        return obs.element_at(p, lambda e: e.clickable) if obs is not None else None

    def wait_settled(self, timeout: float | None = None, *, previous: str = "",
                     change_grace: float = 0.3) -> bool:
        """Wait until screenshots stop changing (the phone drivers' rule); False on
        timeout."""
        result = settle.settle(
            [settle.frame_signal(self.backend.screenshot, self.hasher, self.last_observation,
                                 previous)],
            timeout=self.settle_timeout if timeout is None else timeout,
            window=self.settle_window, change_grace=change_grace, serial=self.serial)
        return result.ok

    # -- acting --------------------------------------------------------------------------
    def execute(self, actions: Sequence[Action],
                observation: Observation | None = None, *,
                review: Reviewer | None = None) -> ExecResult:
        actions = list(actions)
        for i, action in enumerate(actions):
            if isinstance(action, Launch) and not self._launchable(action.app):
                outcome = ActionOutcome(i, action, False, self._not_launchable(action.app))
                return ExecResult((outcome,), dropped=len(actions) - 1)
        self.port.scrolls = {i for i, a in enumerate(actions)
                             if isinstance(a, Swipe) and a.direction is not None}
        return self._executor.run(actions, observation, review)

    def hotkey(self, combo: str) -> None:
        """Press a hotkey written like ``ctrl+l`` or ``cmd+space``."""
        self.port.hotkey(list(parse_combo(combo)))

    def _launchable(self, app: str) -> bool:
        """Whether ``app`` is an alias, a program, or a command line of one (then it is
        remembered as its own alias, so the executor starts it as it is)."""
        if app in self._apps or app.strip() in self.apps():
            return True
        try:
            argv = shlex.split(app)
        except ValueError:
            return False
        if argv and shutil.which(argv[0]) is not None:
            self._apps[app] = app
            return True
        from omg_agent.drivers.commands import alias_package
        return alias_package(app, self._apps) is not None

    def _not_launchable(self, app: str) -> str:
        known = ", ".join(sorted(self._apps)) or "none configured"
        return (f"cannot launch {app!r}: not an app name ({known}), not a program on PATH, "
                "not a command line")

    def launch(self, app: str) -> None:
        launch_via_execute(self, app, self.serial)

    def close(self) -> None:
        self.backend.close()

    def __enter__(self) -> DesktopDriver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
