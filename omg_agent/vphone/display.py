"""The vphone's display: composes the app window with the system bars, renders, caches.

A frame is rebuilt only when something that can change pixels changed: the phone's state
version (bumped by every input and state change), the status-bar clock minute, the battery
level, the caret blink phase, or an app's own time key (e.g. a spinner). Screenshots in the
three encodings a client may ask for (PIL image, raw screencap, PNG) and the raw frame's md5
are cached per frame.
"""

from __future__ import annotations

import hashlib
import io
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass

from PIL import Image

from omg_agent.vphone.profile import DeviceProfile
from omg_agent.vphone.ui import xmldump
from omg_agent.vphone.ui.kit import Kit
from omg_agent.vphone.ui.render import Renderer
from omg_agent.vphone.ui.view import View

RGBA_8888 = 1
SRGB = 1


@dataclass
class Frame:
    key: tuple
    root: View
    image: Image.Image | None = None
    raw: bytes | None = None
    digest: str | None = None  # md5 of ``raw`` (what ``screencap | md5sum`` prints)
    png: bytes | None = None
    xml: str | None = None


class Display:
    def __init__(self, profile: DeviceProfile, clock: Callable[[], float]) -> None:
        self.profile = profile
        self.clock = clock
        self.battery = 87
        self._frame: Frame | None = None

    def frame(self, key: tuple, build: Callable[[], View], caret: bool) -> Frame:
        """The frame for ``key`` (built by ``build`` if the cached one is stale)."""
        full_key = (*key, self.clock_text(), self.battery, caret and self.caret_on())
        if self._frame is None or self._frame.key != full_key:
            self._frame = Frame(full_key, build())
        return self._frame

    def clock_text(self) -> str:
        return time.strftime("%H:%M", time.localtime(self.clock()))

    def caret_on(self) -> bool:
        return int(self.clock() * 2) % 2 == 0

    # -- encodings -----------------------------------------------------------------------
    def image(self, frame: Frame) -> Image.Image:
        if frame.image is None:
            p = self.profile
            img = Renderer(caret_visible=bool(frame.key[-1])).render(frame.root,
                                                                     (p.width, p.height))
            if not frame.root.style.get("screen_off"):  # a dark screen shows no bars
                self._draw_system_bars(img)
            frame.image = img
        return frame.image

    def raw(self, frame: Frame) -> bytes:
        if frame.raw is None:
            img = self.image(frame)
            header = struct.pack("<4I", img.width, img.height, RGBA_8888, SRGB)
            frame.raw = header + img.tobytes()
        return frame.raw

    def digest(self, frame: Frame) -> str:
        """md5 of the raw frame, once per frame: a driver polling ``vphone-idle`` while an
        app is busy asks it every few milliseconds, and 10 MB of md5 cost ~15 ms each."""
        if frame.digest is None:
            frame.digest = hashlib.md5(self.raw(frame)).hexdigest()
        return frame.digest

    def png(self, frame: Frame) -> bytes:
        if frame.png is None:
            buf = io.BytesIO()
            self.image(frame).save(buf, format="PNG", compress_level=1)
            frame.png = buf.getvalue()
        return frame.png

    def xml(self, frame: Frame) -> str:
        if frame.xml is None:
            p = self.profile
            frame.xml = xmldump.dump(frame.root, (0, 0, p.width, p.height), sdk=p.sdk)
        return frame.xml

    # -- system UI -----------------------------------------------------------------------
    def _draw_system_bars(self, img: Image.Image) -> None:
        p = self.profile
        kit = Kit(p, "com.android.systemui")
        bar = kit.view("android.widget.FrameLayout", (0, 0, p.width, p.status_bar_height),
                       style={"bg": (245, 245, 247)})
        pad = kit.dp(16)
        bar.add(kit.text((pad, 0, p.width // 2, p.status_bar_height), self.clock_text(),
                         size=14, bold=True))
        bar.add(kit.text((p.width // 2, 0, p.width - pad, p.status_bar_height),
                         f"{self.battery}%", size=14, align="right"))
        nav = kit.view("android.widget.FrameLayout",
                       (0, p.height - p.nav_bar_height, p.width, p.height),
                       style={"bg": (245, 245, 247)})
        pill_w = kit.dp(108)
        cy = p.height - p.nav_bar_height // 2
        nav.add(kit.view("android.view.View", ((p.width - pill_w) // 2, cy - 6,
                                               (p.width + pill_w) // 2, cy + 6),
                         style={"bg": (60, 60, 64), "radius": 6}))
        renderer = Renderer()
        renderer.draw(img, bar)
        renderer.draw(img, nav)
