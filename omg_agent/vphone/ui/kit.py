"""Widget builders for vphone apps: Material-ish views with Android class names.

A :class:`Kit` is made per frame for one app; it knows the screen geometry (in dp via the
profile's density) and stamps every view with the app's package. Builders return plain
:class:`~omg_agent.vphone.ui.view.View` values; apps compose them into a tree.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from omg_agent.vphone.profile import DeviceProfile
from omg_agent.vphone.ui.view import Bounds, Handler, View

PRIMARY = (33, 99, 235)
SURFACE = (250, 250, 252)
ON_SURFACE = (28, 28, 32)
MUTED = (110, 112, 120)
DIVIDER = (225, 226, 230)


@dataclass
class Kit:
    profile: DeviceProfile
    package: str

    # -- geometry ------------------------------------------------------------------------
    def dp(self, value: float) -> int:
        return self.profile.px(value)

    @property
    def width(self) -> int:
        return self.profile.width

    @property
    def content(self) -> Bounds:
        """The area between the status bar and the navigation bar."""
        p = self.profile
        return (0, p.status_bar_height, p.width, p.height - p.nav_bar_height)

    def row(self, top: int, height_dp: float, margin_dp: float = 16) -> Bounds:
        m = self.dp(margin_dp)
        return (m, top, self.width - m, top + self.dp(height_dp))

    # -- views ---------------------------------------------------------------------------
    def view(self, cls: str, bounds: Bounds, **kw) -> View:
        return View(cls=cls, bounds=bounds, package=self.package, **kw)

    def root(self, bg: tuple[int, int, int] = SURFACE) -> View:
        p = self.profile
        return self.view("android.widget.FrameLayout", (0, 0, p.width, p.height),
                         style={"bg": bg})

    def app_bar(self, title: str, *, on_back: Handler | None = None,
                color: tuple[int, int, int] = PRIMARY) -> View:
        top = self.profile.status_bar_height
        bar = self.view("android.view.ViewGroup", (0, top, self.width, top + self.dp(56)),
                        resource_id=f"{self.package}:id/toolbar", style={"bg": color})
        left = self.dp(16)
        if on_back is not None:
            bar.add(self.view("android.widget.ImageButton",
                              (0, top, self.dp(56), top + self.dp(56)), desc="Navigate up",
                              kind="glyph", style={"glyph": "←", "fg": (255, 255, 255)},
                              clickable=True, focusable=True, on_click=on_back))
            left = self.dp(64)
        bar.add(self.text((left, top, self.width - self.dp(16), top + self.dp(56)), title,
                          size=20, color=(255, 255, 255), bold=True,
                          resource_id=f"{self.package}:id/title"))
        return bar

    def text(self, bounds: Bounds, text: str, *, size: float = 16,
             color: tuple[int, int, int] = ON_SURFACE, bold: bool = False, align: str = "left",
             resource_id: str = "", on_click: Handler | None = None) -> View:
        return self.view("android.widget.TextView", bounds, text=text, kind="text",
                         resource_id=resource_id, clickable=on_click is not None,
                         on_click=on_click,
                         style={"size": self.dp(size), "fg": color, "bold": bold, "align": align})

    def button(self, bounds: Bounds, text: str, on_click: Handler | None, *,
               resource_id: str = "", color: tuple[int, int, int] = PRIMARY,
               desc: str = "", enabled: bool = True) -> View:
        return self.view("android.widget.Button", bounds, text=text, desc=desc, kind="button",
                         resource_id=resource_id, clickable=True, focusable=True,
                         enabled=enabled, on_click=on_click,
                         style={"bg": color, "fg": (255, 255, 255), "size": self.dp(16),
                                "radius": self.dp(20)})

    def fab(self, bottom: int, on_click: Handler | None, *, desc: str, resource_id: str,
            color: tuple[int, int, int] = PRIMARY) -> View:
        """A floating "+" button, 64 dp, in the bottom-right corner above ``bottom``."""
        size, gap = self.dp(64), self.dp(24)
        return self.button((self.width - size - gap, bottom - size - gap, self.width - gap,
                            bottom - gap), "+", on_click, desc=desc, resource_id=resource_id,
                           color=color)

    def edit(self, bounds: Bounds, field_key: str, value: str, *, hint: str = "",
             focused: bool = False, password: bool = False, resource_id: str = "",
             multiline: bool = False) -> View:
        shown = "•" * len(value) if password else value
        return self.view("android.widget.EditText", bounds, text=shown or hint, kind="edit",
                         hint=hint, resource_id=resource_id, clickable=True, focusable=True,
                         long_clickable=True, focused=focused, password=password,
                         field_key=field_key,
                         style={"size": self.dp(17), "hint": not value, "multiline": multiline})

    def switch(self, bounds: Bounds, checked: bool, on_click: Handler, *,
               resource_id: str = "") -> View:
        return self.view("android.widget.Switch", bounds, text="ON" if checked else "OFF",
                         kind="switch", resource_id=resource_id, checkable=True,
                         checked=checked, clickable=True, focusable=True, on_click=on_click)

    def image(self, bounds: Bounds, *, desc: str = "", color: tuple[int, int, int] = MUTED,
              glyph: str = "", on_click: Handler | None = None, resource_id: str = "") -> View:
        cls = "android.widget.ImageButton" if on_click else "android.widget.ImageView"
        return self.view(cls, bounds, desc=desc, kind="glyph" if glyph else "image",
                         resource_id=resource_id, clickable=on_click is not None,
                         focusable=on_click is not None, on_click=on_click,
                         style={"bg": color, "glyph": glyph, "fg": (255, 255, 255),
                                "radius": self.dp(8)})

    def list_item(self, bounds: Bounds, title: str, subtitle: str = "", *,
                  on_click: Handler | None = None, resource_id: str = "",
                  trailing: View | None = None) -> View:
        left, top, right, bottom = bounds
        pad = self.dp(16)
        item = self.view("android.widget.LinearLayout", bounds, clickable=on_click is not None,
                         focusable=on_click is not None, on_click=on_click,
                         resource_id=resource_id,
                         style={"bg": SURFACE, "divider": DIVIDER})
        title_h = self.dp(28)
        y = top + (bottom - top - title_h - (self.dp(22) if subtitle else 0)) // 2
        text_right = right - pad - (self.dp(72) if trailing else 0)
        item.add(self.text((left + pad, y, text_right, y + title_h), title, size=17,
                           resource_id=f"{self.package}:id/title"))
        if subtitle:
            item.add(self.text((left + pad, y + title_h, text_right, y + title_h + self.dp(22)),
                               subtitle, size=14, color=MUTED,
                               resource_id=f"{self.package}:id/summary"))
        if trailing is not None:
            item.add(trailing)
        return item

    def scroll_list(self, bounds: Bounds, heights: Sequence[int], offset: int,
                    build: Callable[[int, Bounds], View], on_scroll: Callable[[int], None],
                    *, resource_id: str = "") -> View:
        """A vertical RecyclerView: item ``i`` has height ``heights[i]``; ``offset`` px scrolled.

        Only items that intersect the viewport are built, as a real RecyclerView only lays
        out what is on screen.
        """
        left, top, right, bottom = bounds
        lst = self.view("androidx.recyclerview.widget.RecyclerView", bounds, scrollable=True,
                        focusable=True, clips=True, on_scroll=on_scroll,
                        resource_id=resource_id or f"{self.package}:id/list")
        y = top - offset
        for i, h in enumerate(heights):
            if y + h > top and y < bottom:
                lst.add(build(i, (left, y, right, y + h)))
            y += h
        return lst

    def dialog(self, title: str, message: str, buttons: Sequence[tuple[str, Handler]], *,
               on_outside: Handler | None = None, package: str | None = None) -> View:
        """A modal dialog over a scrim; ``on_outside`` makes a touch outside dismiss it."""
        p = self.profile
        pkg = package or self.package
        scrim = View(cls="android.widget.FrameLayout", bounds=(0, 0, p.width, p.height),
                     package=pkg, kind="scrim", modal=True, clickable=on_outside is not None,
                     on_click=on_outside, style={"bg": (0, 0, 0, 110)})
        w, h = p.width - self.dp(64), self.dp(220)
        left, top = (p.width - w) // 2, (p.height - h) // 2
        box = View(cls="android.widget.LinearLayout", bounds=(left, top, left + w, top + h),
                   package=pkg, resource_id="android:id/parentPanel",
                   style={"bg": (255, 255, 255), "radius": self.dp(24)})
        pad = self.dp(24)
        box.add(View(cls="android.widget.TextView", package=pkg, kind="text", text=title,
                     resource_id="android:id/alertTitle",
                     bounds=(left + pad, top + pad, left + w - pad, top + pad + self.dp(32)),
                     style={"size": self.dp(20), "fg": ON_SURFACE, "bold": True}))
        box.add(View(cls="android.widget.TextView", package=pkg, kind="text", text=message,
                     resource_id="android:id/message",
                     bounds=(left + pad, top + pad + self.dp(40), left + w - pad,
                             top + h - self.dp(72)),
                     style={"size": self.dp(16), "fg": MUTED}))
        for button in self.dialog_buttons(left + w - pad, top + h - self.dp(64),
                                          list(reversed(buttons)), package=pkg):
            box.add(button)
        scrim.add(box)
        return scrim

    def dialog_buttons(self, right: int, top: int, buttons: Sequence[tuple[str, Handler]], *,
                       width_dp: int = 112, package: str | None = None) -> list[View]:
        """A dialog's buttons in a row ending at ``right``, 48 dp high from ``top``: the first
        is ``android:id/button1`` (the rightmost: OK, Delete), the next ``button2`` left of it."""
        bw = self.dp(width_dp)
        out = []
        for i, (label, handler) in enumerate(buttons):
            b_right = right - i * (bw + self.dp(8))
            out.append(View(cls="android.widget.Button", package=package or self.package,
                            kind="flat_button", text=label, clickable=True, focusable=True,
                            on_click=handler, resource_id=f"android:id/button{i + 1}",
                            bounds=(b_right - bw, top, b_right, top + self.dp(48)),
                            style={"fg": PRIMARY, "size": self.dp(16), "bold": True}))
        return out
