"""The vphone's ``screenrecord`` encoder: the screen as H.264, a frame each time it changes.

As on a phone, a frame is encoded only when the picture may have changed (the display's frame
key: any input, the clock minute, a caret blink, a spinner), stamped with the time it showed
up, so a still screen costs nothing and a recording's length is its real duration. Encoding
is PyAV's libx264 (shipped inside PyAV's wheel); nothing here is a codec of our own. ``mp4``
is written into a buffer and finished when the recording stops (the muxer seeks back to
write its index); ``h264`` is an Annex-B stream written as it is encoded, for ``-``/stdout.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, BinaryIO

from PIL import Image

from omg_agent.errors import ExtraMissing

if TYPE_CHECKING:
    from omg_agent.vphone.phone import VirtualPhone

DEFAULT_BIT_RATE = 20_000_000  # Android's default, 20 Mbps
DEFAULT_TIME_LIMIT = 180
POLL_S = 1 / 30  # how often the screen is looked at for a change
FORMATS = ("mp4", "h264")
MS = Fraction(1, 1000)


class EncoderMissing(RuntimeError):
    """PyAV (``omg-agent[video]``) is not installed: the message says what to install."""


@dataclass(frozen=True)
class RecordOptions:
    size: tuple[int, int] | None = None  # None: the display's own size
    bit_rate: int = DEFAULT_BIT_RATE
    time_limit: float = DEFAULT_TIME_LIMIT  # seconds; 0 = until stopped
    fmt: str = "mp4"


class StreamSink(io.RawIOBase):
    """A write-only, unseekable file for PyAV that hands every chunk to ``write_out``."""

    def __init__(self, write_out: Callable[[bytes], None]) -> None:
        super().__init__()
        self._write_out = write_out

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        chunk = bytes(data)
        self._write_out(chunk)
        return len(chunk)


def _open_av() -> Any:
    try:
        import av
    except ImportError:
        raise EncoderMissing(str(ExtraMissing("the vphone's screenrecord", "video"))) from None
    return av


class _Encoder:
    def __init__(self, out: BinaryIO, opts: RecordOptions, size: tuple[int, int]) -> None:
        av = _open_av()
        self.av = av
        self.size = size
        self.container = av.open(out, mode="w", format=opts.fmt)
        stream = self.container.add_stream("libx264", rate=60)
        stream.width, stream.height = size
        stream.pix_fmt = "yuv420p"
        stream.bit_rate = opts.bit_rate
        stream.codec_context.time_base = MS
        # Fast enough for a shared CI core; the stream stays plain H.264 any player reads.
        stream.options = {"preset": "ultrafast", "tune": "zerolatency"}
        self.stream = stream
        self.last_pts = -1
        self.frames = 0

    def add(self, image: Image.Image, ms: int) -> None:
        if image.size != self.size:
            image = image.resize(self.size, Image.Resampling.BILINEAR)
        frame = self.av.VideoFrame.from_image(image.convert("RGB"))
        frame.pts = max(ms, self.last_pts + 1)
        frame.time_base = MS
        self.last_pts = frame.pts
        for packet in self.stream.encode(frame):
            self.container.mux(packet)
        self.frames += 1

    def close(self) -> None:
        for packet in self.stream.encode():
            self.container.mux(packet)
        self.container.close()


def record(phone: VirtualPhone, opts: RecordOptions, out: BinaryIO,
           stopped: Callable[[float], bool],
           clock: Callable[[], float] = time.monotonic) -> int:
    """Record until ``stopped(wait_s)`` says so or the time limit passes; returns the number
    of frames encoded (at least one: the screen as it was at the start)."""
    p = phone.profile
    encoder = _Encoder(out, opts, opts.size or (p.width, p.height))
    start = clock()
    last_key: tuple | None = None
    try:
        while True:
            key, image = phone.screen_frame()
            elapsed = clock() - start
            if key != last_key:
                encoder.add(image, int(elapsed * 1000))
                last_key = key
            if opts.time_limit and elapsed >= opts.time_limit:
                break
            if stopped(POLL_S):
                break
    finally:
        encoder.close()
    return encoder.frames
