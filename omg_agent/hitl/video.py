"""The phone's screen as H.264 from its own ``screenrecord``, cut into access units.

While at least one viewer watches the video, a reader thread runs
``screenrecord --output-format=h264 -`` on the device (restarted before its 180 s limit and
whenever its stream ends) and cuts the Annex-B stream into access units with PyAV's H.264
parser. The units since the last key frame are kept (a group of pictures, bounded: past
``MAX_GOP_BYTES`` the recording restarts, which begins with a key frame), so a viewer who
joins late decodes from that key frame. Viewers wait on the mirror's
:class:`~omg_agent.hitl.frames.Changes`.

The parser hands a unit on when the next one begins; a screen that stops changing would keep
its last picture back, so when the stream has been quiet for ``IDLE_S`` the parser is
flushed (screenrecord writes each encoded picture at once, so a quiet stream is between
pictures). Where the device has no ``screenrecord`` (or no shell stream, or no PyAV here)
:attr:`VideoFeed.failed` says why and the mirror sends JPEG frames instead;
:class:`SocketFeed` is that choice for one page's socket.
"""

from __future__ import annotations

import contextlib
import logging
import select
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from omg_agent.drivers.wrapper import shell_of
from omg_agent.errors import ExtraMissing
from omg_agent.extras import load
from omg_agent.hitl.frames import Changes, FrameSource

log = logging.getLogger(__name__)

MAX_SIDE = 1280  # the video's long side, in pixels (even sizes, as encoders want)
BIT_RATE = 4_000_000
TIME_LIMIT_S = 180  # screenrecord's own limit (Android's maximum)
RESTART_S = 170.0  # a new recording starts before the old one reaches its limit
IDLE_S = 0.03  # a stream quiet this long is between pictures: the parser is flushed
MAX_GOP_BYTES = 8 << 20  # the kept units since the last key frame, at most
MAX_UNIT_BYTES = 4 << 20  # one access unit larger than this is a broken stream
CHUNK = 1 << 16
START_CODES = (b"\x00\x00\x00\x01", b"\x00\x00\x01")


def video_size(width: int, height: int, max_side: int = MAX_SIDE) -> tuple[int, int]:
    """The screen scaled down to ``max_side`` on its long side, both sides even."""
    scale = min(1.0, max_side / max(width, height))
    return (max(2, round(width * scale / 2) * 2), max(2, round(height * scale / 2) * 2))


def command(size: tuple[int, int]) -> str:
    return (f"screenrecord --output-format=h264 --size {size[0]}x{size[1]} "
            f"--bit-rate {BIT_RATE} --time-limit {TIME_LIMIT_S} - 2>/dev/null")


def codec_string(unit: bytes) -> str | None:
    """The WebCodecs ``avc1.PPCCLL`` name from the sequence parameter set in ``unit`` (a
    key frame's access unit), or None without one."""
    at = 0
    while (at := unit.find(b"\x00\x00\x01", at)) >= 0 and at + 6 < len(unit):
        at += 3
        if unit[at] & 0x1F == 7:  # the SPS: profile, constraint flags, level follow it
            return "avc1." + unit[at + 1:at + 4].hex().upper()
    return None


@dataclass(frozen=True)
class Unit:
    """One access unit: ``gop`` counts key frames, ``index`` is its place after its own."""

    gop: int
    index: int
    key: bool
    data: bytes


class VideoFeed:
    """The latest group of pictures of ``driver``'s screen, recorded while anyone watches.

    ``open_stream(cmd)`` opens a device command's stdout as a socket; by default the
    driver's shell stream (:func:`~omg_agent.drivers.wrapper.shell_of`) when it has one."""

    def __init__(self, driver: Any, changes: Changes, *,
                 open_stream: Callable[[str], socket.socket] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.driver = driver
        self.changes = changes
        self.clock = clock
        self._open_stream = open_stream
        self.failed: str | None = None  # why there is no video (None: there is, or may be)
        self.codec: str | None = None
        self.size: tuple[int, int] | None = None
        self.units: list[Unit] = []  # since the last key frame (replaced, never mutated)
        self._watchers = 0
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._sock: socket.socket | None = None

    # -- viewers ----------------------------------------------------------------------------
    def watch(self) -> bool:
        """One more viewer (the recording starts with the first); False when there is no
        video to watch (:attr:`failed` says why)."""
        with self._lock:
            if self.failed is not None:
                return False
            self._watchers += 1
            if self._thread is None or self._stop.is_set():
                self._stop = threading.Event()
                self._thread = threading.Thread(target=self._run, args=(self._stop,),
                                                name="mirror-video", daemon=True)
                self._thread.start()
            return True

    @property
    def watchers(self) -> int:
        return self._watchers

    def unwatch(self) -> None:
        with self._lock:
            self._watchers = max(0, self._watchers - 1)
            if self._watchers == 0:
                self._stop_reader()

    def close(self) -> None:
        with self._lock:
            self._stop_reader()
            thread = self._thread
        if thread is not None:
            thread.join(timeout=5)

    def _stop_reader(self) -> None:
        self._stop.set()
        sock = self._sock
        if sock is not None:  # wakes the reader out of select/recv
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def since(self, gop: int, index: int) -> list[Unit]:
        """The units a viewer who has sent up to (``gop``, ``index``) needs next: the rest
        of its group, or the whole newest group from its key frame."""
        units = self.units
        if not units:
            return []
        if units[0].gop != gop:
            return list(units)
        return [u for u in units if u.index > index]

    # -- the recording ----------------------------------------------------------------------
    def _opener(self) -> Callable[[str], socket.socket]:
        if self._open_stream is not None:
            return self._open_stream
        io = shell_of(self.driver)
        stream = getattr(io, "stream", None)
        if io is None or not callable(stream):
            raise VideoUnavailable("this driver has no shell stream to read screenrecord from")
        result = io.run_status("screenrecord --help >/dev/null 2>&1", label="screenrecord")
        if not result.ok:
            raise VideoUnavailable(f"the device has no usable screenrecord "
                                   f"(exit status {result.status})")
        return stream

    def _run(self, stop: threading.Event) -> None:
        try:
            av = load("av", "video", "the mirror's video")
            opener = self._opener()
            info = self.driver.info()
            size = video_size(info.width, info.height)
            while not stop.is_set():
                try:
                    units = self._record(av, opener(command(size)), stop)
                except _Restart:
                    continue
                if units == 0 and not stop.is_set():
                    raise VideoUnavailable("screenrecord wrote no H.264 stream")
        except ExtraMissing as exc:
            self._fail(str(exc))
        except Exception as exc:  # a refusing device, a dropped stream: JPEG takes over
            self._fail(str(exc) or type(exc).__name__)

    def _fail(self, why: str) -> None:
        log.warning("mirror: no video, JPEG frames instead: %s", why)
        with self._lock:
            self.failed = why
        self.changes.bump()

    def _record(self, av: Any, sock: socket.socket, stop: threading.Event) -> int:
        """Read one recording until it ends, it is time to restart, or nobody watches;
        the number of access units it gave."""
        self._sock = sock
        parser = av.CodecContext.create("h264", "r")
        started, count = self.clock(), 0
        head: bytes | None = b""
        try:
            while not stop.is_set() and self.clock() - started < RESTART_S:
                ready, _, _ = select.select([sock], [], [], IDLE_S)
                data = sock.recv(CHUNK) if ready else None
                if ready and not data:
                    break  # the recording ended (its limit, or the device)
                if data and head is not None:  # its first bytes: a start code, or no video
                    head += data
                    if len(head) >= 4:
                        if not head.startswith(START_CODES):
                            raise VideoUnavailable("screenrecord's output is not an H.264 "
                                                   "stream")
                        head = None
                for packet in parser.parse(data):  # None: quiet, flush what is held
                    count += self._publish(bytes(packet), bool(packet.is_keyframe))
            for packet in parser.parse(None):
                count += self._publish(bytes(packet), bool(packet.is_keyframe))
        finally:
            self._sock = None
            sock.close()
        return count

    def _publish(self, data: bytes, key: bool) -> int:
        if len(data) > MAX_UNIT_BYTES:
            raise VideoUnavailable(f"an access unit of {len(data)} bytes: a broken stream")
        units = self.units
        if key:
            codec = codec_string(data)
            if codec is not None:
                self.codec = codec
            gop = units[0].gop + 1 if units else 1
            units = [Unit(gop, 0, True, data)]
        elif not units:
            return 0  # a recording's first pictures before its key frame: undecodable
        else:
            units = [*units, Unit(units[0].gop, units[-1].index + 1, False, data)]
            if sum(len(u.data) for u in units) > MAX_GOP_BYTES:
                raise _Restart()
        self.units = units
        self.changes.bump()
        return 1


class VideoUnavailable(Exception):
    """No H.264 from this device; the message says why (shown on the page)."""


class _Restart(Exception):
    """The group of pictures grew past its bound: a new recording starts with a key frame."""


class SocketFeed:
    """Which frames one socket gets: H.264 while the device's video runs, else JPEG (from
    the start, or from the moment the video fails)."""

    def __init__(self, frames: FrameSource, video: VideoFeed | None, wanted: bool) -> None:
        self.frames, self.video, self.wanted = frames, video, wanted
        self.h264 = wanted and video is not None and video.watch()
        if not self.h264:
            frames.watch()

    def check(self) -> None:
        """The video failed: this socket goes on with JPEG frames."""
        if self.h264 and self.video is not None and self.video.failed is not None:
            self.video.unwatch()
            self.frames.watch()
            self.h264 = False

    def describe(self) -> dict[str, Any]:
        if self.h264 and self.video is not None:
            return {"path": "h264", "codec": self.video.codec}
        if self.video is None:
            why = "this mirror sends JPEG frames only"
        elif not self.wanted:
            why = "this browser cannot decode H.264 (no WebCodecs VideoDecoder)"
        else:
            why = self.video.failed or "no video"
        return {"path": "jpeg", "why": why}

    def leave(self) -> None:
        if self.h264 and self.video is not None:
            self.video.unwatch()
        else:
            self.frames.unwatch()

