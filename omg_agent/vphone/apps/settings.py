"""Settings: Wi-Fi and Bluetooth switches, display brightness, about phone, and a
"Check for updates" button that does nothing (a dead button for loop detection).

With the ``bouncing_toggle`` hazard the Bluetooth switch turns on and flips back off
:data:`BOUNCE_S` seconds of the phone's clock later, every time (``state()["bounces"]``).
"""

from __future__ import annotations

from functools import partial

from omg_agent.vphone.apps.base import App
from omg_agent.vphone.ui.kit import MUTED, Kit
from omg_agent.vphone.ui.view import View

BOUNCE_S = 1.0


class SettingsApp(App):
    package = "com.android.settings"
    label = "Settings"
    label_zh = "设置"
    glyph = "⚙"
    color = (90, 100, 115)
    activities = {"main": ".Settings", "display": ".SubSettings", "about": ".SubSettings",
                  "updates": ".SubSettings"}

    def reset_data(self) -> None:
        self.wifi = True
        self.bluetooth = False
        self.brightness = 60
        self.update_checks = 0  # presses of the dead button, for tests
        self.bounces = 0
        self.bounce_at: float | None = None

    def _settle(self) -> None:
        """A bouncing switch flips back once its moment has come."""
        if self.bounce_at is not None and self.env.clock() >= self.bounce_at:
            self.bounce_at = None
            self.bounces += 1
            self._set("bluetooth", False)

    def frame_key(self) -> tuple:
        self._settle()
        return (self.bluetooth, self.bounce_at is None)

    def build(self, kit: Kit) -> View:
        root = kit.root()
        name = self.screen.name
        if name == "main":
            root.add(kit.app_bar(self.title()))
            root.add(*self._main_rows(kit))
        elif name == "display":
            root.add(kit.app_bar(self.t("Display", "显示"), on_back=self.back))
            root.add(*self._display(kit))
        elif name == "about":
            root.add(kit.app_bar(self.t("About phone", "关于手机"), on_back=self.back))
            root.add(*self._about(kit))
        elif name == "updates":
            root.add(kit.app_bar(self.t("System update", "系统更新"), on_back=self.back))
            top = kit.content[1] + kit.dp(80)
            root.add(kit.text(kit.row(top, 48), self.t("Your system is up to date",
                                                       "系统已是最新版本"), size=18))
            # Dead on purpose: the handler exists but changes nothing the user can see.
            root.add(kit.button(kit.row(top + kit.dp(72), 52),
                                self.t("Check for update", "检查更新"), self._dead_check,
                                resource_id=f"{self.package}:id/check_update"))
        return root

    def _dead_check(self) -> None:
        self.update_checks += 1

    def _toggle(self, what: str) -> None:
        self._set(what, not getattr(self, what))
        if what == "bluetooth" and self.bluetooth and self.hazard("bouncing_toggle"):
            self.bounce_at = self.env.clock() + BOUNCE_S

    def _set(self, what: str, on: bool) -> None:
        setattr(self, what, on)
        self.env.settings.setdefault("global", {})[f"{what}_on"] = "1" if on else "0"

    def _main_rows(self, kit: Kit) -> list[View]:
        top = kit.content[1] + kit.dp(56)
        h = kit.dp(72)
        rows: list[View] = []
        sw = kit.dp(72)

        def switch_row(y: int, title: str, sub: str, attr: str, rid: str) -> View:
            trailing = kit.switch((kit.width - kit.dp(16) - sw, y + kit.dp(16),
                                   kit.width - kit.dp(16), y + h - kit.dp(16)),
                                  getattr(self, attr), lambda: self._toggle(attr),
                                  resource_id=f"{self.package}:id/{rid}")
            return kit.list_item((0, y, kit.width, y + h), title, sub,
                                 on_click=lambda: self._toggle(attr), trailing=trailing)

        rows.append(switch_row(top, "Wi-Fi", self.t("Connected" if self.wifi else "Off",
                                                    "已连接" if self.wifi else "已关闭"),
                               "wifi", "wifi_switch"))
        rows.append(switch_row(top + h, self.t("Bluetooth", "蓝牙"),
                               self.t("On, discoverable" if self.bluetooth else "Off",
                                      "已开启，可被发现" if self.bluetooth else "已关闭"),
                               "bluetooth", "bluetooth_switch"))
        links = [("display", self.t("Display", "显示"), self.t("Brightness", "亮度")),
                 ("updates", self.t("System update", "系统更新"), ""),
                 ("about", self.t("About phone", "关于手机"), self.env.settings.get(
                     "global", {}).get("device_name", ""))]
        for i, (screen, title, sub) in enumerate(links):
            y = top + (i + 2) * h
            rows.append(kit.list_item((0, y, kit.width, y + h), title, sub,
                                      on_click=partial(self.push, screen)))
        return rows

    def _display(self, kit: Kit) -> list[View]:
        top = kit.content[1] + kit.dp(72)
        label = kit.text(kit.row(top, 32), f"{self.t('Brightness', '亮度')}: {self.brightness}%")
        bar_bounds = kit.row(top + kit.dp(40), 40)
        left, right = bar_bounds[0], bar_bounds[2]

        def seek(x: int, _y: int) -> None:  # a tap sets the level from where it lands
            self.brightness = max(0, min(100, round((x - left) * 100 / max(1, right - left))))

        bar = kit.view("android.widget.SeekBar", bar_bounds, text=str(self.brightness),
                       kind="seekbar", clickable=True, focusable=True, on_touch=seek,
                       resource_id=f"{self.package}:id/brightness",
                       style={"value": self.brightness})
        return [label, bar]

    def _about(self, kit: Kit) -> list[View]:
        top = kit.content[1] + kit.dp(72)
        info = self.env.settings.get("_about", {})
        rows = []
        for i, (k, v) in enumerate(info.items()):
            y = top + i * kit.dp(72)
            rows.append(kit.list_item((0, y, kit.width, y + kit.dp(72)), k, v))
        if not rows:
            rows.append(kit.text(kit.row(top, 40), "—", color=MUTED))
        return rows

    def state(self) -> dict:
        self._settle()
        return {"wifi": self.wifi, "bluetooth": self.bluetooth, "brightness": self.brightness,
                "update_checks": self.update_checks, "screen": self.screen.name,
                "bounces": self.bounces}
