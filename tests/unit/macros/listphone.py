"""A list app for fast macro tests: posts with an author and a Like button, scrolled by
``input swipe``, behind the two interfaces the macro runner uses — ``observe()`` (an
:class:`Observation` of the visible rows) and a shell stream (``run_status``) that runs the
``input`` commands it is sent. ``popup_at`` covers the list with a system-styled dialog once
that many likes were given, which swallows touches like a modal dialog; with ``trap`` the
dialog is a page whose "Pay ¥6.00" sits where the next post's Like was (``paid`` counts
its taps). ``role="switch"`` makes the Like buttons switches (checkable, checked when
liked)."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from PIL import Image

from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import Observation, UIElement
from omg_agent.drivers.adbio import ShellResult

W, H = 1000, 2000
TOP, BOTTOM = 200, 1900  # the list's bounds
ROW = 300  # author at +40, like button at +200..+280
APP = "com.test.list"
LIST, AUTHOR, LIKE = f"{APP}:id/list", f"{APP}:id/author", f"{APP}:id/like"
_IMAGE = Image.new("RGB", (W, H), "white")


@dataclass
class ListPhone:
    authors: list[str]
    popup_at: int | None = None
    offset: int = 0
    liked: set[int] = field(default_factory=set)
    log: list[int] = field(default_factory=list)
    popup: bool = False
    commands: list[str] = field(default_factory=list)
    observations: int = 0
    fling: float = 1.0  # how far the list travels per pixel of finger (a fling: > 1)
    trap: bool = False  # the popup is a page with Pay where the next Like was
    paid: int = 0
    role: str = "button"

    # -- the device ------------------------------------------------------------------------
    def observe(self, *, ocr: bool = False) -> Observation:
        self.observations += 1
        return Observation(_IMAGE, self.elements(), package=APP, screen_hash=str(self.offset))

    def elements(self) -> tuple[UIElement, ...]:
        if self.popup and self.trap:
            n = self.log[-1] + 1  # the post after the one whose like opened it
            top = TOP + (n - 1) * ROW - self.offset
            return (UIElement(1, "", "text", Bounds(40, 300, 900, 400), text="Boost your like?"),
                    UIElement(2, "", "button", Bounds(40, top + 200, 300, top + 280),
                              text="Pay ¥6.00", clickable=True))
        if self.popup:
            return (UIElement(1, "", "text", Bounds(100, 800, 900, 900), text="Enjoying it?",
                              resource_id="android:id/alertTitle"),
                    UIElement(2, "", "button", Bounds(600, 1000, 900, 1100), text="Not now",
                              resource_id="android:id/button1", clickable=True))
        out = [UIElement(1, "", "list", Bounds(0, TOP, W, BOTTOM), resource_id=LIST,
                         scrollable=True)]
        for n in range(1, len(self.authors) + 1):
            top = TOP + (n - 1) * ROW - self.offset
            author = Bounds(40, top + 40, 900, top + 100)
            like = Bounds(40, top + 200, 300, top + 280)
            if TOP <= author.center.y <= BOTTOM:
                out.append(UIElement(len(out) + 1, "", "text", _clip(author),
                                     text=self.authors[n - 1], resource_id=AUTHOR))
            if like.bottom > TOP and like.top < BOTTOM:
                out.append(UIElement(len(out) + 1, "", self.role, _clip(like),
                                     text="Liked" if n in self.liked else "Like",
                                     desc=f"Like post {n}", resource_id=LIKE, clickable=True,
                                     checkable=self.role == "switch",
                                     checked=self.role == "switch" and n in self.liked))
        return tuple(out)

    def run_status(self, cmd: str, *, timeout: float | None = None,
                   label: str = "") -> ShellResult:
        self.commands.append(cmd)
        for part in re.split(r"\s*&&\s*", cmd):
            words = shlex.split(part)
            if words[:2] == ["input", "tap"]:
                self.tap(int(words[2]), int(words[3]))
            elif words[:2] == ["input", "swipe"]:
                self.scroll(int(words[3]) - int(words[5]))
        return ShellResult(b"", b"", 0)

    # -- the app ---------------------------------------------------------------------------
    def tap(self, x: int, y: int) -> None:
        if self.popup:  # a modal dialog swallows the touch; the trap's Pay takes it
            pay = [e for e in self.elements() if e.text.startswith("Pay")]
            self.paid += bool(pay and pay[0].bounds.contains((x, y)))
            return
        for e in self.elements():
            if e.resource_id == LIKE and e.bounds.contains((x, y)):
                n = int(e.desc.rsplit(" ", 1)[-1])
                self.liked ^= {n}
                self.log.append(n)
                if self.popup_at is not None and len(self.liked) == self.popup_at:
                    self.popup = True
                return

    def scroll(self, dy: int) -> None:
        if self.popup:
            return
        limit = max(0, len(self.authors) * ROW - (BOTTOM - TOP))
        self.offset = max(0, min(limit, self.offset + round(dy * self.fling)))


def _clip(b: Bounds) -> Bounds:
    return Bounds(b.left, max(b.top, TOP), b.right, min(b.bottom, BOTTOM))
