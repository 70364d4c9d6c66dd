"""The home screen: a grid of app icons (labels follow the phone's locale)."""

from __future__ import annotations

from omg_agent.vphone.apps.base import App
from omg_agent.vphone.ui.kit import Kit
from omg_agent.vphone.ui.view import View

COLUMNS = 4


class Launcher(App):
    package = "com.android.launcher3"
    label = "Home"
    label_zh = "桌面"
    activities = {"main": ".Launcher"}

    def __init__(self, env, apps: list[App]) -> None:
        self.apps = apps
        super().__init__(env)

    def build(self, kit: Kit) -> View:
        root = kit.root(bg=(38, 70, 120))
        left, top, right, _ = kit.content
        cell_w = (right - left) // COLUMNS
        cell_h = kit.dp(104)
        y0 = top + kit.dp(48)
        grid = kit.view("android.view.ViewGroup", kit.content,
                        resource_id=f"{self.package}:id/workspace")
        for i, app in enumerate(self.apps):
            col, row = i % COLUMNS, i // COLUMNS
            x = left + col * cell_w
            y = y0 + row * cell_h
            name = app.title()
            grid.add(kit.view("android.widget.TextView", (x, y, x + cell_w, y + cell_h),
                              text=name, desc=name, kind="launcher_icon", clickable=True,
                              focusable=True, long_clickable=True,
                              on_click=lambda pkg=app.package: self.env.launch(pkg),
                              style={"bg": app.color, "glyph": app.glyph,
                                     "size": kit.dp(13)}))
        root.add(grid)
        return root
