"""The phone's screen as JPEG frames, made only when the screen changes.

One poller thread per mirror reads screenshots while at least one viewer watches (none:
the device is not touched); a frame whose bytes hash like the last one is dropped, so a
static screen costs the viewers nothing. Viewers wait on :class:`Changes`, which also wakes
them for the agent channel's news.
"""

from __future__ import annotations

import hashlib
import io
import logging
import threading
import time
from dataclasses import dataclass
from typing import Any

from PIL import Image

log = logging.getLogger(__name__)

POLL_S = 0.1  # a screenshot started every 0.1 s (at most 10 a second) while someone watches
MAX_SIDE = 1000  # frames are scaled down to this many pixels on their long side
JPEG_QUALITY = 70
THUMB_WIDTH = 160  # a recent action's screenshot: this many pixels wide at most…
THUMB_MAX_BYTES = 12_000  # …and this many bytes (a few kB is usual; bigger: none)
THUMB_QUALITIES = (60, 35)  # tried in turn until one fits


class Changes:
    """A version counter with a condition: bumped by new frames and channel news."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.version = 0

    def bump(self) -> None:
        with self.cond:
            self.version += 1
            self.cond.notify_all()

    def wait(self, since: int, timeout: float) -> int:
        """The version once it is past ``since`` (or after ``timeout``)."""
        with self.cond:
            self.cond.wait_for(lambda: self.version != since, timeout)
            return self.version


@dataclass(frozen=True)
class Frame:
    seq: int
    digest: str
    jpeg: bytes
    size: tuple[int, int]  # the device screen's pixels (before scaling)


def grab(driver: Any) -> tuple[Image.Image, bytes]:
    """(image, bytes to hash) from the driver: its raw screenshot when it has one, else an
    observation's screenshot."""
    shot = getattr(driver, "screenshot", None)
    if callable(shot):
        image, raw = shot()
        return image, raw
    image = driver.observe().screenshot
    return image, image.tobytes()


def encode(image: Image.Image) -> bytes:
    scale = MAX_SIDE / max(image.size)
    if scale < 1:  # a box-filter reduce by a whole factor, then a small bilinear step:
        size = (round(image.width * scale), round(image.height * scale))  # 3x the bicubic
        if int(1 / scale) >= 2:  # resize's speed (bench mirror), the same look
            image = image.reduce(int(1 / scale))
        image = image.resize(size, Image.Resampling.BILINEAR)
    buf = io.BytesIO()
    image.convert("RGB").save(buf, "JPEG", quality=JPEG_QUALITY)
    return buf.getvalue()


def thumbnail(image: Image.Image) -> bytes | None:
    """``image`` as a small JPEG (at most :data:`THUMB_WIDTH` wide, :data:`THUMB_MAX_BYTES`
    long), or None when even the lowest quality is too big."""
    scale = min(1.0, THUMB_WIDTH / image.width, THUMB_WIDTH * 3 / image.height)
    size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
    small = image.resize(size, Image.Resampling.BILINEAR, reducing_gap=2.0).convert("RGB")
    for quality in THUMB_QUALITIES:
        buf = io.BytesIO()
        small.save(buf, "JPEG", quality=quality)
        if buf.tell() <= THUMB_MAX_BYTES:
            return buf.getvalue()
    return None


class FrameSource:
    """The latest frame of ``driver``'s screen, polled while anyone watches."""

    def __init__(self, driver: Any, changes: Changes, *, poll_s: float = POLL_S) -> None:
        self.driver = driver
        self.changes = changes
        self.poll_s = poll_s
        self.latest: Frame | None = None
        self.error: str | None = None
        self._watchers = 0
        self._lock = threading.Lock()
        self._grab = threading.Lock()  # the poller and a gesture's refresh: one at a time
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def watch(self, limit: int | None = None) -> bool:
        """One more viewer (the poller starts with the first); False when ``limit`` viewers
        watch already."""
        with self._lock:
            if limit is not None and self._watchers >= limit:
                return False
            self._watchers += 1
            if self._thread is None or self._stop.is_set():
                self._stop = threading.Event()  # each poller has its own stop
                self._thread = threading.Thread(target=self._poll, args=(self._stop,),
                                                name="mirror-frames", daemon=True)
                self._thread.start()
            return True

    def unwatch(self) -> None:
        with self._lock:
            self._watchers = max(0, self._watchers - 1)
            if self._watchers == 0:
                self._stop.set()

    @property
    def watchers(self) -> int:
        return self._watchers

    def close(self) -> None:
        with self._lock:
            self._stop.set()
            thread = self._thread
        if thread is not None:
            thread.join(timeout=5)

    def poll_once(self) -> bool:
        """Read the screen once; True when it changed (a new frame was published)."""
        with self._grab:
            return self._poll_locked()

    def _poll_locked(self) -> bool:
        try:
            image, raw = grab(self.driver)
        except Exception as exc:  # a device that dropped: say so on the page, keep trying
            if self.error != str(exc):
                log.warning("mirror: screenshot failed: %s", exc)
                self.error = str(exc)
                self.changes.bump()
            return False
        self.error = None
        digest = hashlib.blake2b(raw, digest_size=16).hexdigest()
        if self.latest is not None and self.latest.digest == digest:
            return False
        seq = self.latest.seq + 1 if self.latest is not None else 1
        self.latest = Frame(seq, digest, encode(image), image.size)
        self.changes.bump()
        return True

    def _poll(self, stop: threading.Event) -> None:
        while not stop.is_set():  # one poll started every poll_s (a slow one: at once after)
            started = time.monotonic()
            self.poll_once()
            stop.wait(max(0.0, self.poll_s - (time.monotonic() - started)))
