"""Settings tasks: Wi-Fi and Bluetooth switches (English and Chinese goals), both switches at
once, and display brightness set exactly.

The quoted success criteria name subtitles that only show in the wanted state: "Connected"
(Wi-Fi on), "discoverable" (Bluetooth on) and "Off" — the setup puts the other switch on,
so "Off" can only come from the switch the task is about.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from omg_agent.bench.suite.nav import a_tap, back, front, point, wait, where
from omg_agent.core.geometry import NORM_MAX, ScreenGeometry, pixel_to_norm
from omg_agent.sim.expert.screen import Screen, tap
from omg_agent.sim.expert.tasks import SETTINGS, Brightness, MoveContext, Moves, Switch, Task

log = logging.getLogger(__name__)

NAMES = {"wifi": ("Wi-Fi", "Wi-Fi"), "bluetooth": ("Bluetooth", "蓝牙")}
SHOWN_ON = {"wifi": ("Connected", "已连接"), "bluetooth": ("discoverable", "可被发现")}
SHOWN_OFF = ("Off", "已关闭")
ZH_LOCALE = "zh-CN"


def shown(attr: str, on: bool, zh: bool) -> str:
    """The subtitle text that tells ``attr`` is on / off."""
    return (SHOWN_ON[attr] if on else SHOWN_OFF)[zh]


def switch_moves(phone: Any, screen: Screen, wanted: dict[str, bool]) -> Moves:
    """Moves that flip each Settings switch in ``wanted`` to its value, from any screen."""
    app = phone.apps[SETTINGS]
    flips = [attr for attr, on in wanted.items() if getattr(app, attr) != on]
    route = [a_tap(res=f"{attr}_switch") for attr in flips]  # a switch tap stays on screen
    moves = front(phone, screen, SETTINGS, route)
    if moves:
        return moves
    if where(phone, SETTINGS) != "main":
        return [back(), *route]
    switches = [screen.find(res=f"{attr}_switch") for attr in flips]
    if not all(switches):
        return [wait()]
    return [tap(s) for s in switches if s is not None]


@dataclass
class SwitchTask(Switch):
    """Turn Wi-Fi or Bluetooth on or off; ``zh`` gives the goal in Chinese on a Chinese
    phone."""

    zh: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        name = NAMES[self.attr][self.zh]
        if self.zh:
            self.goal = f"{'打开' if self.on else '关闭'}{name}"
        self.criteria = (f'the Settings row {name} shows "{shown(self.attr, self.on, self.zh)}"')

    def setup(self, phone: Any) -> None:
        super().setup(phone)
        other = "bluetooth" if self.attr == "wifi" else "wifi"
        setattr(phone.apps[SETTINGS], other, True)  # its subtitle never says "Off"
        if self.zh:
            phone.set_locale(ZH_LOCALE)

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        return switch_moves(phone, screen, {self.attr: self.on})


@dataclass
class TwoSwitches(Task):
    """Set Wi-Fi and Bluetooth at once; never both off (that state has no unique text)."""

    wifi: bool = False
    bluetooth: bool = True

    def __post_init__(self) -> None:
        if not (self.wifi or self.bluetooth):
            raise ValueError("both off has no text of its own on the Settings screen")

        def say(name: str, on: bool) -> str:
            return f"turn {'on' if on else 'off'} {name}"

        self.goal = (f"In Settings, {say('Wi-Fi', self.wifi)} and "
                     f"{say('Bluetooth', self.bluetooth)}")
        self.criteria = (f'Wi-Fi shows "{shown("wifi", self.wifi, False)}" and Bluetooth '
                         f'shows "{shown("bluetooth", self.bluetooth, False)}"')

    def setup(self, phone: Any) -> None:
        app = phone.apps[SETTINGS]
        app.wifi, app.bluetooth = not self.wifi, not self.bluetooth

    def check(self, phone: Any) -> bool:
        app = phone.apps[SETTINGS]
        return (app.wifi, app.bluetooth) == (self.wifi, self.bluetooth)

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        return switch_moves(phone, screen, {"wifi": self.wifi, "bluetooth": self.bluetooth})


def _seek_x(bar: tuple[int, int, int, int], level: int, screen: ScreenGeometry) -> int | None:
    """A 0–1000 x on the brightness bar that the phone reads back as exactly ``level``."""
    left, _, right, _ = bar
    span = max(1, right - left)
    aim, _ = pixel_to_norm((left + span * level / 100, 0), screen.size)
    for nx in sorted(range(NORM_MAX + 1), key=lambda v: abs(v - aim))[:40]:
        px = screen.to_pixels((nx, NORM_MAX // 2)).x  # the pixel the driver will tap
        if left <= px <= right and round((px - left) * 100 / span) == level:
            return nx
    return None


@dataclass
class ExactBrightness(Brightness):
    """Brightness to about N% (the check allows ±5); the expert's tap lands on exactly N, so
    the Display screen shows "Brightness: N%"."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.criteria = f'the Display screen shows "Brightness: {self.level}%"'

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        label = phone.apps[SETTINGS].t("Display", "显示")
        moves = front(phone, screen, SETTINGS, [a_tap(text=label)])
        if moves:
            return moves
        name = where(phone, SETTINGS)
        if name == "main":
            row = screen.find(text=label)
            return [tap(row)] if row else [wait()]
        if name != "display":
            return [back()]
        bar = phone.find_view(resource_id=f"{SETTINGS}:id/brightness")
        if bar is None:
            return [wait()]
        geometry = ScreenGeometry(phone.profile.width, phone.profile.height)
        x = _seek_x(bar.bounds, self.level, geometry)
        y = geometry.to_normalized((0, (bar.bounds[1] + bar.bounds[3]) / 2)).y
        return [{"type": "tap", "target": point(x, y)}] if x is not None else [wait()]


@dataclass
class SettingsUnchanged:
    """What an impossible Settings task must leave alone: the switches and brightness."""

    before: dict[str, Any] = field(default_factory=dict)

    def take(self, phone: Any) -> None:
        app = phone.apps[SETTINGS]
        self.before = {"wifi": app.wifi, "bluetooth": app.bluetooth,
                       "brightness": app.brightness}

    def holds(self, phone: Any) -> bool:
        app = phone.apps[SETTINGS]
        return all(getattr(app, k) == v for k, v in self.before.items())
