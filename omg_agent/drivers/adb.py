"""The ADB driver: observe and act on an Android phone through the adb server, fast.

Implements :class:`~omg_agent.drivers.base.Driver` (DESIGN.md §3–4, issue 3 item 2) with one
``adbutils.AdbClient`` and :class:`~omg_agent.drivers.adbio.AdbIO` streams:

* ``observe()`` fetches a raw ``screencap`` (no PNG encode; PNG only if the raw header is
  not understood) and ``uiautomator dump /dev/tty`` (streamed; dump-to-file + ``cat`` as the
  fallback) on two threads at once, parses the element list, hashes the screen, and asks
  ``dumpsys window`` for the foreground app only when the screen hash (or the dump's
  package) changed since the last time it asked;
* ``execute(actions)`` is the shared :class:`~omg_agent.drivers.executor.BundleExecutor`
  (targets resolved with ``perception.anchor``, the bundle cut at its first boundary, launch
  fallbacks, settling) over :class:`~omg_agent.drivers.adbport.AdbShellPort`, which runs the
  bundle as packed shell calls (:mod:`.commands`, :mod:`.textinput`: normally one call);
  after an action, the next ``observe()`` waits while the screen shows it is loading
  (:mod:`.loading`, at most ``loading_timeout`` seconds).

A step's cost is mostly ``uiautomator dump``, so nothing waits for it in turn: the dump
for the next observation starts with the action (:meth:`before_boundary`,
:mod:`.nextlook`), the screen settles meanwhile on frame digests computed on the phone
(``screencap | md5sum``: 33 bytes a look instead of a 10 MB frame; masked raw frames when
something unmasked keeps moving; :mod:`.settle`), the foreground app is read once it
settled, and ``observe()`` takes the dump only when it provably shows the settled screen —
else it dumps again. When the settled frame is the pre-action frame byte for byte, the
observation keeps the last element list without waiting for a dump.
``uiautomator dump --compressed`` is not used: it leaves out the views that are not
important for accessibility — wrappers and containers the element list's merging rules
read (:mod:`omg_agent.perception.uitree`) — and most of a dump's cost is the VM start and
the idle wait, which it does not shorten.

Every device call rides out drops for ``grace_s`` seconds (:mod:`.grace`): offline,
unauthorized, a restarted adb server, a TCP device to re-connect.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import re
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor

import adbutils
from PIL import Image

from omg_agent.drivers import adbparse, settle
from omg_agent.drivers.adbio import AdbIO, only_serial
from omg_agent.drivers.adbport import AdbShellPort
from omg_agent.drivers.base import DeviceInfo
from omg_agent.drivers.executor import BundleExecutor
from omg_agent.drivers.loading import LOADING_TIMEOUT_S, LoadingWait
from omg_agent.drivers.nextlook import DumpAhead
from omg_agent.drivers.observing import ObservingDriver
from omg_agent.drivers.perception_kit import DevicePerception
from omg_agent.drivers.ports import InputJudge
from omg_agent.drivers.profiles import DeviceProfileSpec, driver_profile
from omg_agent.drivers.textinput import ADB_IME
from omg_agent.errors import (
    ActionRejected,
    DeviceError,
    DeviceOffline,
    FrameError,
    TruncatedFrame,
)

log = logging.getLogger(__name__)

INFO_CMD = ("wm size; wm density; getprop ro.build.version.sdk; getprop ro.product.brand; "
            "getprop ro.product.model")
FOCUS_CMD = "dumpsys window | grep -E 'mCurrentFocus|mFocusedApp'"
IME_SEP = "@@OMG@@"
IME_CMD = (f"ime list -a -s; echo {IME_SEP}; ime list -s; echo {IME_SEP}; "
           "settings get secure default_input_method")
DUMP_CMD = "uiautomator dump /dev/tty"
DUMP_FILE = "/data/local/tmp/omg_window_dump.xml"
FRAME_HEADER_BYTES = adbparse.LEGACY_HEADER.size  # the shortest frame header
DIGEST_CMD = "screencap 2>/dev/null | md5sum"  # a frame's digest: 33 bytes, not 10 MB
STILL_CMD = "vphone-idle 2>/dev/null"  # "idle|busy <digest>": a phone that says it is still
_STILL = re.compile(r"\s*(idle|busy) ([0-9a-f]{32})\b")
_MD5 = re.compile(r"\s*([0-9a-f]{32})\b")
_EMPTY_MD5 = hashlib.md5(b"").hexdigest()


class AdbDriver(ObservingDriver):
    """A phone over adb. ``serial=None`` picks the only attached device."""

    name = "adb"

    def __init__(self, serial: str | None = None, *, client: adbutils.AdbClient | None = None,
                 profile: DeviceProfileSpec | None = None,
                 status_bar_px: int | None = None, nav_bar_px: int | None = None,
                 settle_timeout: float = 2.0, aliases: Mapping[str, str] | None = None,
                 settle_window: float = 0.25, ime_settle_s: float = 0.25, anchorer=None,
                 ocr=None, loading_timeout: float = LOADING_TIMEOUT_S,
                 timeout: float = 30.0, grace_s: float = 30.0,
                 change_grace: float = 0.3, judge: InputJudge | None = None) -> None:
        self.client = client if client is not None else adbutils.AdbClient()
        self.serial = serial or only_serial(self.client)
        self.io = AdbIO(self.client, self.serial, timeout=timeout, grace_s=grace_s)
        self.settle_timeout = settle_timeout
        self.settle_window = settle_window
        self.change_grace = change_grace  # how long a slow app may take to start changing
        self.ime_settle_s = ime_settle_s
        self.profile = profile  # resized to the screen (or estimated) by info()
        self.aliases: dict[str, str] = {**(profile.aliases() if profile else {}),
                                         **(aliases or {})}
        self._bars = (status_bar_px, nav_bar_px)
        self.perception = DevicePerception(self.info, ocr=ocr, anchorer=anchorer)
        self._info: DeviceInfo | None = None
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix=f"adb-{self.serial}")
        # dumps have their own stream counter: one running ahead is not the action's call
        self._dump_io = AdbIO(self.client, self.serial, timeout=timeout, grace=self.io.grace)
        self.ahead = DumpAhead(self._pool, self._hierarchy_now, serial=self.serial)
        self._no_digest = False  # `screencap | md5sum` did not work here: settle on frames
        self._no_still: bool | None = None  # the phone cannot say it is still (None: not asked)
        self._ime: tuple[set[str], set[str], str] | None = None
        self._png_only = False
        self._md5: tuple[bytes, str] | None = None  # the last raw frame and its digest
        self._dump_to_file = False
        self.port = AdbShellPort(self.io, ime_state=self.ime_state, ime_settle_s=ime_settle_s)
        self.loading = LoadingWait(loading_timeout, serial=self.serial)
        self._executor = BundleExecutor(self, self.port, lambda: self.aliases, self.loading,
                                        judge=judge)

    # -- identity ------------------------------------------------------------------------
    def info(self) -> DeviceInfo:
        if self._info is None:
            # the same call asks whether the phone can say it is still (not the first
            # settle: a probe there would delay its first look)
            lines = self.io.run(f"{INFO_CMD}; {STILL_CMD}").decode(
                "utf-8", "replace").splitlines()
            self._no_still = not lines or _STILL.match(lines[-1]) is None
            if not self._no_still:  # it applies every input before it says it is still, so
                self.port.ime_settle_s = 0.0  # the IME it switches to is bound at once too
            screen = adbparse.parse_screen_info(
                "\n".join(lines if self._no_still else lines[:-1]))
            status, nav = self._bars
            self.profile = driver_profile(screen.width, screen.height, screen.density,
                                          brand=screen.brand, model=screen.model,
                                          given=self.profile, status_bar=status, nav_bar=nav)
            self._info = DeviceInfo.of_profile(self.serial, self.profile, driver=self.name,
                                               sdk=screen.sdk, brand=screen.brand,
                                               model=screen.model)
        return self._info

    # -- observing -----------------------------------------------------------------------
    def screenshot(self) -> tuple[Image.Image, bytes]:
        """(RGB image, the bytes it came from) — raw frame, or PNG as the fallback."""
        if not self._png_only:
            try:  # exec: would mix warnings in; a frame cut short is fetched again
                return self.io.read("screencap 2>/dev/null", self._raw_frame)
            except FrameError as exc:
                log.warning("%s: raw screencap unusable (%s); using PNG", self.serial, exc)
                self._png_only = True
        return self.io.read("screencap -p 2>/dev/null", self._png_frame)

    def _png_frame(self, data: bytes) -> tuple[Image.Image, bytes]:
        if not data:  # the stream closed before a byte came: a drop, not a bad device
            raise DeviceOffline("screencap answered nothing", serial=self.serial,
                                command="screencap -p")
        return adbparse.decode_png(data), data

    def _raw_frame(self, data: bytes) -> tuple[Image.Image, bytes]:
        if len(data) < FRAME_HEADER_BYTES:  # not even a header: the stream closed early
            raise DeviceOffline(f"screencap answered {len(data)} bytes", serial=self.serial,
                                command="screencap")
        try:
            return adbparse.decode_raw_frame(data), data
        except TruncatedFrame as exc:  # the transport broke mid-frame
            raise DeviceOffline(str(exc), serial=self.serial, command="screencap") from None

    def hierarchy(self) -> str:
        """The uiautomator XML of the current screen (after any dump already running)."""
        return self.ahead.dump().xml

    def _hierarchy_now(self) -> str:
        if not self._dump_to_file:
            xml = self._dump_io.read(DUMP_CMD, self._dump_xml)
            if xml is not None:
                return xml
            log.info("%s: uiautomator dump /dev/tty gave no XML; dumping to a file", self.serial)
            self._dump_to_file = True
        out = self._dump_io.run(f"uiautomator dump {DUMP_FILE} >/dev/null && cat {DUMP_FILE}")
        xml = adbparse.extract_hierarchy(out)
        if xml is None:
            raise DeviceError("uiautomator dump gave no hierarchy", serial=self.serial,
                              command=DUMP_CMD)
        return xml

    def _dump_xml(self, out: bytes) -> str | None:
        xml = adbparse.extract_hierarchy(out)
        if xml is None and b"<hierarchy" in out:  # began, never ended: the stream broke
            raise DeviceOffline("hierarchy dump cut short", serial=self.serial,
                                command=DUMP_CMD)
        return xml

    def _refresh_focus(self) -> None:
        """Foreground app and, in the same call, the user's current IME."""
        out = self.io.run(f"{FOCUS_CMD}; settings get secure default_input_method")
        text = out.decode("utf-8", "replace")
        self._focus = adbparse.parse_focus(text)
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        current = lines[-1] if lines and "=" not in lines[-1] else ""
        if self._ime is not None and current not in ("", "null", ADB_IME):
            self._ime = (self._ime[0], self._ime[1], current)

    _read_focus = _refresh_focus

    def current_app(self) -> tuple[str, str]:
        self._refresh_focus()
        return self._focus

    # -- IME -----------------------------------------------------------------------------
    def ime_state(self) -> tuple[bool, str]:
        """(ADB-Keyboard usable, the IME to restore after typing). Probed once."""
        if self._ime is None:
            out = self.io.run(IME_CMD).decode("utf-8", "replace")
            self._ime = adbparse.parse_ime_probe(out, IME_SEP)
        installed, enabled, current = self._ime
        if ADB_IME in installed and ADB_IME not in enabled:
            raise ActionRejected(
                "the ADB Keyboard IME is installed but disabled; enable it with "
                f"`adb -s {self.serial} shell ime enable {ADB_IME}`", serial=self.serial)
        return ADB_IME in enabled, current

    # -- acting --------------------------------------------------------------------------
    def before_boundary(self) -> None:
        """The executor is about to run an action that changes the screen: start the next
        observation's dump now (:mod:`.nextlook`) — unless ``settle_timeout`` is 0 (a
        one-shot input: nothing waits for the screen, nothing looks at it next)."""
        if self.settle_timeout > 0:
            self.ahead.start()

    def wait_settled(self, timeout: float | None = None, *, previous: str = "",
                     change_grace: float | None = None) -> bool:
        """Wait until the screen stops changing (:mod:`.settle`): frame digests on the
        phone, raw screencaps hashed with masks when something unmasked keeps moving (or
        ``md5sum`` is missing); False on timeout. The next observation's dump runs
        meanwhile, and the foreground app is read once the screen settled. A timeout of 0
        asks the device nothing (False: not known to be settled)."""
        timeout = self.settle_timeout if timeout is None else timeout
        if timeout <= 0:
            return False
        last = self.last_observation
        before = (self._token("digest", None, last.raw)
                  if last is not None and previous and last.screen_hash == previous else "")
        if not self.ahead.pending:
            self.ahead.start()
        result = self._settle_still(timeout)
        if result is None:
            result = self._settle_watched(timeout, before or "", previous, change_grace)
        self.ahead.settled(result, before or "")
        if result.ok:
            self.ahead.read_focus(self._refresh_focus)
        return result.ok

    def _settle_still(self, timeout: float) -> settle.Settled | None:
        """Settled on the phone's own word that it is still (None: it cannot say)."""
        if not self._can_say_still():
            return None
        try:
            return settle.settle_reported(self._still, timeout=timeout, serial=self.serial)
        except settle.Unavailable:
            return None

    def _can_say_still(self) -> bool:
        """Whether the phone answers ``vphone-idle`` (asked once: with :meth:`info`)."""
        if self._no_still is None:
            with contextlib.suppress(settle.Unavailable):
                self._still()
        return not self._no_still

    def _still(self) -> tuple[bool, str]:
        """(the phone says its UI is still, the digest of its frame now), in one look."""
        out = self.io.run(STILL_CMD).decode("utf-8", "replace")
        m = _STILL.match(out)
        self._no_still = m is None
        if m is None:
            raise settle.Unavailable(f"`{STILL_CMD}` answered {out[:60]!r}")
        return m.group(1) == "idle", m.group(2)

    def _settle_watched(self, timeout: float, before: str, previous: str,
                        change_grace: float | None) -> settle.Settled:
        """Settled by watching the frames (:func:`.settle.settle`)."""
        last = self.last_observation
        signals = [] if self._no_digest else [
            settle.exact_signal("digest", self._digest, before)]
        signals.append(settle.frame_signal(lambda: self.screenshot()[0], self.hasher, last,
                                           previous))
        return settle.settle(
            signals, timeout=timeout, window=self.settle_window,
            change_grace=self.change_grace if change_grace is None else change_grace,
            serial=self.serial)

    def _digest(self) -> str:
        """md5 of one raw frame, computed on the phone."""
        out = self.io.run(DIGEST_CMD).decode("utf-8", "replace")
        m = _MD5.match(out)
        if m is None or m.group(1) == _EMPTY_MD5:
            self._no_digest = True
            raise settle.Unavailable(f"`{DIGEST_CMD}` answered {out[:60]!r}")
        return m.group(1)

    def _token(self, signal: str, image: Image.Image | None,
               raw: bytes | None) -> str | None:
        """A frame's token in a settle signal's terms (None: this frame cannot say)."""
        if signal == "digest":
            if not raw or self._png_only:
                return None
            if self._md5 is None or self._md5[0] is not raw:  # a frame is asked for twice:
                self._md5 = (raw, hashlib.md5(raw).hexdigest())  # as it is looked at, and
            return self._md5[1]  # as "the screen before" the next action's settle
        return None if image is None else self._screen_token(image)

    _frame_token = _token
