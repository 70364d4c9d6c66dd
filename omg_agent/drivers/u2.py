"""The uiautomator2 driver: the Driver protocol through the uiautomator2 device server.

Same contract as :class:`~omg_agent.drivers.adb.AdbDriver` (DESIGN.md §3, issue 3 item 4),
different transport: the u2 server inside the phone (started by ``uiautomator2.connect``,
reached over adb ``tcp:9008``, JSON-RPC) dumps the hierarchy without ``uiautomator dump``'s
VM start, sends JPEG screenshots instead of 10 MB raw frames, and types unicode by pasting
from the clipboard, with no IME switch. Chosen with ``--driver u2``, or by
:func:`omg_agent.drivers.select.choose_driver` when it measures faster.

The uiautomator2 client starts (and restarts) the server, launches apps and reads the
foreground app; the per-step calls (dump, screenshot, click, swipe, keys, clipboard) go
through :class:`~omg_agent.drivers.u2wire.U2Wire`, ~2 ms a call instead of the client's
~56 ms (see there why). ``observe()`` runs the dump on a worker thread while the screenshot
comes in, parses elements with :func:`~omg_agent.perception.uitree.parse_elements`, hashes
the screen and asks for the foreground app only when the screen hash (or the dump's
package) changed. ``execute()`` is the shared
:class:`~omg_agent.drivers.executor.BundleExecutor` over :class:`~omg_agent.drivers.u2port.U2Port`;
after an action, the next ``observe()`` waits while the screen loads (:mod:`.loading`).
"""

from __future__ import annotations

import base64
import io
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import adbutils
import uiautomator2
from PIL import Image

from omg_agent.core.observation import Observation
from omg_agent.drivers import settle
from omg_agent.drivers.adberrors import FAILURES, adb_errors
from omg_agent.drivers.adbio import only_serial
from omg_agent.drivers.adbparse import parse_focus
from omg_agent.drivers.base import DeviceInfo
from omg_agent.drivers.executor import BundleExecutor
from omg_agent.drivers.grace import AdbLink, DeviceGrace
from omg_agent.drivers.loading import LOADING_TIMEOUT_S, LoadingWait
from omg_agent.drivers.nextlook import DumpAhead
from omg_agent.drivers.observing import Frame, ObservingDriver, timed
from omg_agent.drivers.perception_kit import DevicePerception
from omg_agent.drivers.ports import InputJudge
from omg_agent.drivers.probe import parse_wm_density
from omg_agent.drivers.profiles import DeviceProfileSpec, driver_profile
from omg_agent.drivers.u2port import U2Port
from omg_agent.drivers.u2wire import U2Wire
from omg_agent.errors import DeviceError, U2ServerGone

log = logging.getLogger(__name__)

U2_FAILURES = (uiautomator2.exceptions.BaseException, *FAILURES)  # client, adb, socket
JPEG_QUALITY = 80  # what uiautomator2's own screenshot() asks for
MAX_DEPTH = 50  # uiautomator2's default dump depth
EMPTY_DUMP = '<hierarchy rotation="0" />'
FOCUS_CMD = "dumpsys window | grep -E 'mCurrentFocus|mFocusedApp'"
INFO_SEP = "@@OMG@@"
INFO_CMD = (f"wm density; echo {INFO_SEP}; getprop ro.product.brand; echo {INFO_SEP}; "
            "getprop ro.product.model")
T = TypeVar("T")


class U2Driver(ObservingDriver):
    """A phone through its uiautomator2 server. ``serial=None`` picks the only device.

    ``profile`` gives bar bands and app aliases; without one, the shipped profile that
    matches the device (if any) is used, else 24 dp / 48 dp bars and the common aliases
    (:func:`~omg_agent.drivers.profiles.driver_profile`).
    """

    name = "u2"

    def __init__(self, serial: str | None = None, *, client: adbutils.AdbClient | None = None,
                 profile: DeviceProfileSpec | None = None, anchorer: Any = None,
                 ocr: Any = None, settle_timeout: float = 2.0,
                 settle_window: float = 0.25,
                 loading_timeout: float = LOADING_TIMEOUT_S, grace_s: float = 30.0,
                 judge: InputJudge | None = None) -> None:
        self.client = client if client is not None else adbutils.AdbClient()
        self.serial = serial or only_serial(self.client)
        # observing rides out device drops (inputs are not repeated: see drivers.grace)
        self.grace = DeviceGrace(AdbLink(self.client, self.serial), grace_s=grace_s)
        self.device = self.client.device(self.serial)
        self.settle_timeout = settle_timeout
        self.settle_window = settle_window
        self.perception = DevicePerception(self.info, ocr=ocr, anchorer=anchorer)
        self.calls = 0  # device round trips, for ExecResult.device_calls
        self._restart_lock = threading.Lock()
        self._server_generation = 0
        self.d = self.adb(lambda: uiautomator2.connect(self.device), "connect")
        self.wire = U2Wire(self.client, self.serial)
        self._info: DeviceInfo | None = None
        self.profile = profile
        self._pool = ThreadPoolExecutor(max_workers=3, thread_name_prefix=f"u2-{self.serial}")
        self.ahead = DumpAhead(self._pool, self._hierarchy_now, serial=self.serial)
        self._settle_frame: tuple[Image.Image, bytes, float] | None = None
        self._aliases: dict[str, str] = {}  # from the device profile, filled by info()
        self.loading = LoadingWait(loading_timeout, serial=self.serial)
        self._executor = BundleExecutor(self, U2Port(self), self.aliases, self.loading,
                                        judge=judge)

    def call(self, method: str, *params: Any) -> Any:
        """One JSON-RPC call to the u2 server; a server that is gone is restarted once."""
        self.calls += 1
        generation = self._server_generation
        try:
            return self.wire.call(method, *params)
        except U2ServerGone as e:
            log.info("%s: %s; restarting the u2 server", self.serial, e)
        with self._restart_lock:  # concurrent calls (observe) restart it once, not twice
            if generation == self._server_generation:
                # stop first: uiautomator2 would drop its dead launch stream unclosed
                self.adb(lambda: self.d.stop_uiautomator(wait=False), "stop uiautomator")
                self.adb(self.d.start_uiautomator, "start uiautomator")
                self._server_generation += 1
        return self.wire.call(method, *params)

    def adb(self, fn: Callable[[], T], command: str) -> T:
        """Run one request through the uiautomator2 client or adbutils, errors mapped."""
        self.calls += 1
        with adb_errors(self.serial, command, catch=U2_FAILURES):
            return fn()

    # -- identity ------------------------------------------------------------------------
    def info(self) -> DeviceInfo:
        if self._info is None:
            raw = self.call("deviceInfo")
            width, height = int(raw["displayWidth"]), int(raw["displayHeight"])
            out = self.adb(lambda: self.device.shell(INFO_CMD), "getprop")
            density_text, brand, model = ([*out.split(INFO_SEP), "", ""])[:3]
            try:
                density = parse_wm_density(density_text)
            except ValueError:
                density = 160
            brand, model = brand.strip().lower(), model.strip()
            self.profile = driver_profile(width, height, density, brand=brand, model=model,
                                          given=self.profile, match=True)
            self._aliases = self.profile.aliases()
            self._info = DeviceInfo.of_profile(self.serial, self.profile, driver=self.name,
                                               sdk=int(raw.get("sdkInt") or 0), brand=brand,
                                               model=model)
        return self._info

    def aliases(self) -> dict[str, str]:
        """App name -> package from the device profile (matched on first use)."""
        self.info()
        return self._aliases

    # -- observing -----------------------------------------------------------------------
    def screenshot(self) -> tuple[Image.Image, bytes]:
        """(RGB image, the JPEG bytes the u2 server sent)."""
        data = self.call("takeScreenshot", 1, JPEG_QUALITY)
        if not data:  # the server could not capture; u2's own fallback is adb screencap
            image = self.adb(lambda: self.device.screenshot(), "screencap").convert("RGB")
            return image, b""
        jpeg = base64.b64decode(data)
        with Image.open(io.BytesIO(jpeg)) as decoded:
            return decoded.convert("RGB"), jpeg

    def hierarchy(self) -> str:
        """The window hierarchy XML; an empty dump (the screen was changing) is retried."""
        return self.ahead.dump().xml

    def _hierarchy_now(self) -> str:
        xml = ""
        for _ in range(3):
            xml = self.call("dumpWindowHierarchy", False, MAX_DEPTH) or ""
            if xml and EMPTY_DUMP not in xml:
                return xml
        raise DeviceError("the u2 server dumps an empty hierarchy", serial=self.serial,
                          command="dumpWindowHierarchy")

    def _guarded(self, look: Callable[[], Observation]) -> Observation:
        """A look, read again through device drops for up to ``grace_s`` seconds."""
        return self.grace.read(look, "observe")

    def _frame(self, ahead: bool) -> tuple[Frame, float]:
        """The frame settling just proved still, when the dump was taken ahead of it."""
        frame, self._settle_frame = self._settle_frame, None
        if ahead and frame is not None and time.monotonic() - frame[2] <= self.settle_window:
            return frame[:2], 0.0
        return timed(self.screenshot)

    def current_app(self) -> tuple[str, str]:
        """(package, activity) of the focused window, read as the ADB driver reads it."""
        out = self.adb(lambda: self.device.shell(FOCUS_CMD), "dumpsys window")
        self._focus = parse_focus(out)
        return self._focus

    _read_focus = current_app

    def wait_settled(self, timeout: float | None = None, *, previous: str = "",
                     change_grace: float = 0.3) -> bool:
        """Wait until screenshots stop changing (:mod:`.settle`, the ADB driver's rule);
        False on timeout. The next observation's dump starts when the screen is seen to
        change (:mod:`.nextlook`; a dump is short here), and so is the foreground app; the
        last frame is kept for an observation that follows at once."""
        self.ahead.reset()
        self._settle_frame = None

        def shoot() -> Image.Image:
            image, raw = self.screenshot()
            self._settle_frame = (image, raw, time.monotonic())
            return image

        def changed() -> None:  # the dump and the foreground app, read from this screen
            if not self.ahead.pending:
                self.ahead.start()
            self.ahead.read_focus(self.current_app)

        result = settle.settle(
            [settle.frame_signal(shoot, self.hasher, self.last_observation, previous)],
            timeout=self.settle_timeout if timeout is None else timeout,
            window=self.settle_window, change_grace=change_grace, on_change=changed,
            serial=self.serial)
        self.ahead.settled(result)
        return result.ok

    def close(self) -> None:
        """Stop the worker thread and the u2 server this driver started (if it did)."""
        super().close()
        try:
            self.d.stop_uiautomator(wait=False)
        except U2_FAILURES as e:
            log.debug("%s: stopping the u2 server: %s", self.serial, e)
