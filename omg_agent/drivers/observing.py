"""What the ADB and u2 drivers share: one way to build an observation, and the plumbing
around it (perception parts, the bundle executor, closing).

:class:`ObservingDriver` is their base. Its ``observe()`` builds the
:class:`~omg_agent.core.observation.Observation` the same way for both — the dump runs on a
worker thread while the frame comes in (or is taken ahead, :mod:`.nextlook`), the elements
are parsed with :func:`~omg_agent.perception.uitree.parse_elements`, the screen is hashed
with the package the dump shows (the foreground app read last when the dump names none),
and the foreground app is read again only when the screen hash or the dump's package
changed since it was last read. A driver supplies its transport through a few hooks:
``screenshot()``, ``hierarchy()``, :meth:`_frame` (a frame it already holds),
:meth:`_frame_token` (a frame in a settle signal's terms), :meth:`_read_focus` and
:meth:`_guarded` (how a whole look rides out device drops).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Self, TypeVar

from PIL import Image

from omg_agent.core.actions import Action
from omg_agent.core.observation import Observation, UIElement
from omg_agent.drivers.base import DeviceInfo, ExecResult, launch_via_execute
from omg_agent.drivers.executor import BundleExecutor
from omg_agent.drivers.loading import LoadingWait
from omg_agent.drivers.nextlook import UNCHANGED, DumpAhead
from omg_agent.drivers.perception_kit import DevicePerception
from omg_agent.drivers.ports import Reviewer
from omg_agent.perception.uitree import parse_elements

T = TypeVar("T")
Frame = tuple[Image.Image, bytes]


def timed(fn: Callable[[], T]) -> tuple[T, float]:
    """``fn()`` and how long it took (seconds)."""
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


class ObservingDriver:
    """The part of a device driver above its transport (see the module doc). Subclasses
    set ``serial``, ``perception``, ``loading``, ``ahead``, ``_pool`` and ``_executor``."""

    name = ""
    serial: str
    perception: DevicePerception
    loading: LoadingWait
    ahead: DumpAhead
    _pool: ThreadPoolExecutor
    _executor: BundleExecutor
    last_observation: Observation | None = None
    _focus: tuple[str, str] = ("", "")  # (package, activity) read last
    _focus_hash = ""  # the screen hash and the dump's package when the focus was read
    _focus_dump_package = ""

    # -- transport hooks -----------------------------------------------------------------
    def info(self) -> DeviceInfo:
        raise NotImplementedError

    def screenshot(self) -> Frame:
        raise NotImplementedError

    def hierarchy(self) -> str:
        raise NotImplementedError

    def _read_focus(self) -> object:
        """Read the foreground app into ``_focus``."""
        raise NotImplementedError

    def _frame(self, ahead: bool) -> tuple[Frame, float]:
        """The frame of this look and how long it took to get (``ahead``: a dump was
        started ahead of it)."""
        return timed(self.screenshot)

    def _frame_token(self, signal: str, image: Image.Image, raw: bytes) -> str | None:
        """A frame's token in settle signal ``signal``'s terms (None: cannot tell)."""
        return self._screen_token(image)

    def _guarded(self, look: Callable[[], Observation]) -> Observation:
        """One look, through device drops (the ADB driver's streams ride them out each)."""
        return look()

    # perception parts, wired once from info() (see drivers.perception_kit)
    geometry = property(lambda self: self.perception.geometry)
    hasher = property(lambda self: self.perception.hasher)
    ocr_engine = property(lambda self: self.perception.ocr_engine)
    anchorer = property(lambda self: self.perception.anchorer)

    # -- observing -----------------------------------------------------------------------
    def observe(self, *, ocr: bool = False) -> Observation:
        """The screen now — after an action, once it stopped loading (:mod:`.loading`)."""
        def look() -> Observation:
            return self._guarded(lambda: self._look(ocr))

        obs = self.loading.after(look(), look)
        self.last_observation = obs
        return obs

    def _look(self, ocr: bool) -> Observation:
        t0 = time.perf_counter()
        self.info()
        ahead = self.ahead.pending
        dump = None if ahead else self._pool.submit(timed, self.hierarchy)
        (image, raw), t_shot = self._frame(ahead)
        t1 = time.perf_counter()
        got = (self.ahead.take(lambda signal: self._frame_token(signal, image, raw))
               if ahead else None)
        if got == UNCHANGED and self.last_observation is None:
            got = None
        elements, t_dump, t1 = self._elements(got, dump, t1)
        t2 = time.perf_counter()
        dump_package = next((e.package for e in elements if e.package), "")
        screen_hash = self.hasher.compute(image, package=dump_package or self._focus[0],
                                          elements=elements)
        t3 = time.perf_counter()
        self._update_focus(got is not None, screen_hash, dump_package)
        t4 = time.perf_counter()
        boxes = tuple(self.ocr_engine.read(image, key=screen_hash)) if ocr else None
        timings = {"screencap": t_shot, "dump": t_dump, "parse": t2 - t1, "hash": t3 - t2,
                   "focus": t4 - t3, "total": time.perf_counter() - t0}
        if got is not None:
            timings["dump_ahead"] = 1.0
        if ocr:
            timings["ocr"] = timings["total"] - (t4 - t0)
        obs = Observation(screenshot=image, elements=elements, package=self._focus[0],
                          activity=self._focus[1], screen_hash=screen_hash,
                          timestamp=time.time(), raw=raw, ocr=boxes, timings=timings,
                          geometry=self.geometry)
        self.last_observation = obs
        return obs

    def _elements(self, got: str | None, dump: Future[tuple[str, float]] | None,
                  t1: float) -> tuple[tuple[UIElement, ...], float, float]:
        """(elements, the dump's time, when parsing started): the dump taken ahead, the
        last list when the screen is unchanged, or the dump of this look."""
        last = self.last_observation
        if got == UNCHANGED and last is not None:
            return last.elements, time.perf_counter() - t1, time.perf_counter()
        if got is None:
            xml, t_dump = dump.result() if dump is not None else timed(self.hierarchy)
        else:
            xml, t_dump = got, time.perf_counter() - t1
        t1 = time.perf_counter()
        return parse_elements(xml), t_dump, t1

    def _update_focus(self, taken_ahead: bool, screen_hash: str, dump_package: str) -> None:
        """Read the foreground app again unless this screen is the one it was read on."""
        if taken_ahead and self.ahead.focus_ok:  # read while the dump ran
            self._focus_hash, self._focus_dump_package = screen_hash, dump_package
        elif (not self._focus_hash or not self.hasher.same(screen_hash, self._focus_hash)
                or dump_package != self._focus_dump_package):
            self._read_focus()
            self._focus_hash, self._focus_dump_package = screen_hash, dump_package

    def _screen_token(self, image: Image.Image) -> str:
        """A frame's token as settling hashed it (the last observation's masks)."""
        last = self.last_observation
        return self.hasher.compute(image, package=last.package if last else "",
                                   elements=last.elements if last else ())

    # -- acting --------------------------------------------------------------------------
    def execute(self, actions: Sequence[Action],
                observation: Observation | None = None, *,
                review: Reviewer | None = None) -> ExecResult:
        return self._executor.run(list(actions), observation, review)

    def launch(self, app: str) -> None:
        launch_via_execute(self, app, self.serial)  # type: ignore[arg-type]

    def close(self) -> None:
        self._pool.shutdown(wait=True)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


__all__ = ["Frame", "ObservingDriver", "timed"]
