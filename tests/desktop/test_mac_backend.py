"""The macOS backend above pyobjc, on any OS: :class:`MacBackend` and the desktop driver over
a fake :class:`~omg_agent.drivers.desktop.mac_adapter.MacAdapter` that records every event
it is asked to post, reading the AX tree from a fixture in the shape ``QuartzAdapter``
returns (a sign-in window on a 1440x900-point, 2x Retina display).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from omg_agent.core.actions import parse_action
from omg_agent.core.geometry import Bounds, Point
from omg_agent.drivers.desktop.backend import DisplayScale
from omg_agent.drivers.desktop.driver import DesktopDriver
from omg_agent.drivers.desktop.mac import FLAGS, MacBackend, flatten_ax
from omg_agent.drivers.desktop.mac_adapter import AppRef
from omg_agent.errors import DeviceError

FIXTURES = Path(__file__).parent / "fixtures"
FIXTURE = json.loads((FIXTURES / "ax_signin.json").read_text(encoding="utf-8"))
# a Finder window with the quirks of AX dumps recorded on a Mac (see its "source")
FINDER = json.loads((FIXTURES / "ax_finder.json").read_text(encoding="utf-8"))
CMD, V, SPACE = 0x37, 0x09, 0x31


class NoOcr:
    def read(self, *_a: Any, **_k: Any) -> Any:
        raise AssertionError("OCR must not run when the AX tree gives the elements")


class FakeMac:
    """A Mac that records what it is told to do. ``pressable`` / ``settable``: the AX refs
    whose press / value setting succeeds."""

    def __init__(self, *, screen_ok: bool = True, ax_ok: bool = True,
                 pasteboard_ok: bool = True) -> None:
        self.screen_ok, self.ax_ok, self.pasteboard_ok = screen_ok, ax_ok, pasteboard_ok
        self.events: list[tuple[Any, ...]] = []
        self.clipboard: str | None = "what the user copied"
        self.clipboard_history: list[str] = []
        self.pressable = {"signin", "forgot", "remember", "copy"}
        self.settable = {"email"}

    def screen_recording_allowed(self) -> bool:
        return self.screen_ok

    def accessibility_allowed(self) -> bool:
        return self.ax_ok

    def screen_size_points(self) -> tuple[float, float]:
        w, h = FIXTURE["screen_points"]
        return float(w), float(h)

    def backing_scale(self) -> float:
        return float(FIXTURE["backing_scale"])

    def capture(self) -> Image.Image:
        return Image.new("RGB", (2880, 1800), (236, 236, 236))

    def post_mouse(self, kind: str, x: float, y: float, button: str = "left",
                   clicks: int = 1) -> None:
        self.events.append(("mouse", kind, x, y, button, clicks))

    def post_scroll(self, dy: int, dx: int) -> None:
        self.events.append(("scroll", dy, dx))

    def post_key(self, keycode: int, down: bool, flags: int) -> None:
        self.events.append(("key", keycode, down, flags))

    def post_unicode(self, ch: str) -> None:
        self.events.append(("unicode", ch))

    def clipboard_get(self) -> str | None:
        return self.clipboard

    def clipboard_set(self, text: str) -> bool:
        if not self.pasteboard_ok:
            return False
        self.clipboard = text
        self.clipboard_history.append(text)
        return True

    def frontmost_app(self) -> AppRef:
        return AppRef(**FIXTURE["app"])

    def window_title(self, pid: int) -> str:
        return str(FIXTURE["tree"]["AXTitle"]) if pid == FIXTURE["app"]["pid"] else ""

    def ax_tree(self, pid: int) -> dict[str, Any]:
        return FIXTURE["tree"]

    def ax_perform(self, ref: Any, action: str) -> bool:
        self.events.append(("ax_perform", ref, action))
        return action == "AXPress" and ref in self.pressable

    def ax_set_value(self, ref: Any, value: str) -> bool:
        self.events.append(("ax_set_value", ref, value))
        return ref in self.settable

    def launch(self, name: str) -> bool:
        self.events.append(("launch", name))
        return name in self.app_names()

    def app_names(self) -> list[str]:
        return ["Calculator", "TextEdit"]

    def of(self, kind: str) -> list[tuple[Any, ...]]:
        return [e for e in self.events if e[0] == kind]


@pytest.fixture
def mac() -> FakeMac:
    return FakeMac()


@pytest.fixture
def driver(mac: FakeMac) -> DesktopDriver:
    return DesktopDriver(MacBackend(mac), serial="desktop=mac", ocr=NoOcr(),
                         settle_timeout=0.0)


def run(driver: DesktopDriver, *actions: dict[str, Any]):
    result = driver.execute([parse_action(a) for a in actions], driver.observe())
    assert result.ok, [o.detail for o in result.outcomes]
    return result


# -- AX tree -> elements ---------------------------------------------------------------------
def test_the_ax_tree_flattens_into_elements_with_retina_pixel_bounds() -> None:
    elements, refs = flatten_ax(FIXTURE["tree"], DisplayScale(2.0), "Example", (2880, 1800))
    by_label = {e.label or e.hint: e for e in elements}
    # the phone's roles (perception.uitree), so the gate and checks judge them alike
    assert [e.role for e in elements] == [  # the window's title first, on its title bar
        "text", "text", "input", "input", "checkbox", "button", "button", "link", "dropdown",
        "input", "menuitem", "menuitem"]
    sign_in = by_label["Sign in"]
    assert sign_in.bounds == Bounds(1040, 600, 1280, 664)  # (520, 300, 120x32) points x2
    assert sign_in.clickable and refs[sign_in.id] == "signin"
    assert by_label["Email"].editable and by_label["Email"].text == ""
    password = by_label["Password"]
    assert password.password and password.text == "" and "hunter2" not in repr(elements)
    assert by_label["Remember me"].checkable and by_label["Remember me"].checked
    assert not by_label["Delete account"].enabled
    assert by_label["notes 笔记"].role == "input"
    assert by_label["Welcome back"].role == "text" and not by_label["Welcome back"].clickable
    assert by_label["Forgot password?"].desc == "Forgot password?"
    # an unlabelled image, a zero-size button and text scrolled off the screen are not kept
    assert not {"Invisible", "Far above"} & set(by_label)
    assert all(e.package == "Example" for e in elements)


def test_a_finder_window_keeps_what_a_user_can_see_and_name() -> None:
    screen = (2940, 1912)  # 1470x956 points at 2x
    elements, refs = flatten_ax(FINDER["tree"], DisplayScale(2.0), "Finder", screen)
    assert [e.role for e in elements] == [
        "text", "button", "button", "button", "button", "button", "text", "button", "button",
        "input",
        "list", "text", "text", "button", "list", "text", "text", "list"]
    by_ref = {refs[e.id]: e for e in elements}
    # the traffic lights have no title, description or help: their role description names them
    assert [by_ref[r].desc for r in ("close", "minimise", "zoom")] == [
        "close button", "minimise button", "full screen button"]
    assert by_ref["close"].bounds == Bounds(316, 110, 348, 142)  # (158, 55, 16x16) points x2
    # toolbar controls named only by their help text; a plain button never by "button"
    assert by_ref["grouping"].desc == "Change how items are grouped"
    assert by_ref["back"].desc == "back" and not by_ref["forward"].enabled
    assert by_ref["search"].hint == "Search" and by_ref["search"].desc == ""
    # developer names are anchors; AppKit's _NS:<n> numbering is not
    assert by_ref["banner"].resource_id == "bannerText"
    assert by_ref["files"].resource_id == "FileList"
    assert [by_ref[r].resource_id for r in ("share", "search", "sidebar", "empty")] == [""] * 4
    # a closed menu (zero-size frames), a row scrolled out of the list and an icon on the
    # display above are not elements; the desktop spanning both displays is cut to this one
    labels = {e.label for e in elements}
    assert not {"Open in New Tab", "scrolled away.txt", "Macintosh HD"} & labels
    assert by_ref["desktop"].bounds == Bounds(0, 0, *screen)
    assert all(Bounds(0, 0, *screen).contains(e.bounds.center) for e in elements)
    assert by_ref["file1"].text == "发票 2026-11.pdf" and not by_ref["file1"].clickable


def test_observe_takes_the_ax_elements_and_never_runs_ocr(driver: DesktopDriver) -> None:
    obs = driver.observe()
    assert obs.size == (2880, 1800) and obs.ocr is None
    assert (obs.package, obs.activity) == ("Example", "Sign in — Example")
    assert driver.info().width == 2880 and driver.scale.factor == 2.0
    assert "Sign in" in [e.text for e in obs.elements]


# -- acting: AX first, then Retina-scaled input ----------------------------------------------
def test_a_tap_on_a_button_is_an_ax_press_not_a_click(driver, mac) -> None:
    run(driver, {"type": "tap", "target": {"kind": "anchor", "text": "Sign in"}})
    assert mac.of("ax_perform") == [("ax_perform", "signin", "AXPress")]
    assert mac.of("mouse") == []


def test_retina_clicks_land_on_the_point_under_the_screenshot_pixel(driver, mac) -> None:
    # the popup button refuses AXPress: the click goes to its centre, in points
    result = run(driver, {"type": "tap", "target": {"kind": "anchor", "text": "English"}})
    assert result.outcomes[0].point == (1720, 632)  # pixels of the 2880x1800 screenshot
    assert mac.of("ax_perform") == [("ax_perform", "lang", "AXPress")]
    downs = [e for e in mac.of("mouse") if e[1] == "down"]
    assert downs == [("mouse", "down", 860.0, 316.0, "left", 1)]  # (800+60, 300+16) points
    # a raw 0–1000 point on the welcome text: 500,150 is pixel (1440, 270), point (720, 135)
    mac.events.clear()
    run(driver, {"type": "tap", "target": {"kind": "point", "x": 500, "y": 150}})
    assert [e for e in mac.of("mouse") if e[1] == "down"] == [
        ("mouse", "down", 720.0, 135.0, "left", 1)]


def test_double_click_counts_its_clicks_and_long_press_is_a_right_click(driver, mac) -> None:
    run(driver, {"type": "double_tap", "target": {"kind": "anchor", "text": "Welcome back"}})
    assert [(e[1], e[5]) for e in mac.of("mouse") if e[1] != "move"] == [
        ("down", 1), ("up", 1), ("down", 2), ("up", 2)]
    mac.events.clear()
    run(driver, {"type": "long_press", "target": {"kind": "anchor", "text": "Welcome back"}})
    assert {e[4] for e in mac.of("mouse") if e[1] != "move"} == {"right"}


def test_long_press_can_hold_the_left_button_instead(mac) -> None:
    holding = DesktopDriver(MacBackend(mac), ocr=NoOcr(), long_press="hold",
                            settle_timeout=0.0)
    run(holding, {"type": "long_press", "duration_ms": 300,
                  "target": {"kind": "anchor", "text": "Welcome back"}})
    assert [(e[1], e[4]) for e in mac.of("mouse")] == [("down", "left"), ("up", "left")]
    with pytest.raises(ValueError, match="right_click or hold"):
        DesktopDriver(MacBackend(mac), long_press="tap")  # type: ignore[arg-type]


def test_typing_sets_the_fields_ax_value_when_it_can(driver, mac) -> None:
    result = run(driver, {"type": "type", "text": "ana@example.com",
                          "target": {"kind": "anchor", "text": "Email"}})
    assert mac.of("ax_set_value") == [("ax_set_value", "email", "ana@example.com")]
    assert mac.clipboard_history == [] and "set the field's value" in result.outcomes[0].detail


def test_typing_pastes_through_the_clipboard_and_puts_it_back(driver, mac) -> None:
    run(driver, {"type": "type", "text": "第二行", "target": {"kind": "anchor",
                                                          "text": "notes 笔记"}})
    assert mac.of("ax_set_value") == [("ax_set_value", "notes", "notes 笔记第二行")]
    assert mac.clipboard_history == ["第二行", "what the user copied"]
    keys = mac.of("key")
    assert ("key", V, True, FLAGS["cmd"]) in keys and keys[0] == ("key", CMD, True,
                                                                  FLAGS["cmd"])
    assert mac.clipboard == "what the user copied"


def test_a_pasteboard_that_refuses_falls_back_to_unicode_key_events() -> None:
    mac = FakeMac(pasteboard_ok=False)
    MacBackend(mac).type_text("你好")
    assert mac.of("unicode") == [("unicode", "你"), ("unicode", "好")]


def test_a_key_action_with_a_hotkey_presses_it(driver, mac) -> None:
    run(driver, {"type": "key", "key": "command+space"})
    assert mac.of("key") == [("key", CMD, True, FLAGS["cmd"]), ("key", SPACE, True,
                                                               FLAGS["cmd"]),
                             ("key", SPACE, False, FLAGS["cmd"]), ("key", CMD, False, 0)]


def test_hotkeys_press_modifiers_around_the_key() -> None:
    mac = FakeMac()
    DesktopDriver(MacBackend(mac), ocr=NoOcr()).hotkey("cmd+space")
    assert mac.of("key") == [("key", CMD, True, FLAGS["cmd"]), ("key", SPACE, True,
                                                               FLAGS["cmd"]),
                             ("key", SPACE, False, FLAGS["cmd"]), ("key", CMD, False, 0)]


def test_a_swipe_by_direction_scrolls_and_from_to_drags(driver, mac) -> None:
    run(driver, {"type": "swipe", "direction": "up", "distance": 300,
                 "start": {"kind": "anchor", "text": "notes 笔记"}})
    (scroll,) = mac.of("scroll")
    assert scroll[1] < 0 and scroll[2] == 0  # the wheel turns to show what is below
    mac.events.clear()
    run(driver, {"type": "swipe", "from": {"kind": "point", "x": 100, "y": 100},
                 "to": {"kind": "point", "x": 300, "y": 100}, "duration_ms": 100})
    kinds = [e[1] for e in mac.of("mouse")]
    assert kinds[0] == "down" and set(kinds[1:-1]) == {"move"} and kinds[-1] == "up"
    assert mac.of("mouse")[0][2:4] == (144.0, 90.0)  # pixel (288, 180) at 2x
    assert mac.of("mouse")[-1][2:4] == (432.0, 90.0)


def test_launch_opens_known_apps_and_refuses_unknown_ones(driver, mac) -> None:
    assert driver.execute([parse_action({"type": "launch", "app": "TextEdit"})]).ok
    assert ("launch", "TextEdit") in mac.events
    bad = driver.execute([parse_action({"type": "launch", "app": "Nope"})])
    assert not bad.ok and "cannot launch 'Nope'" in bad.outcomes[0].detail


@pytest.mark.parametrize(("screen", "ax", "named"), [
    (False, True, ["Screen Recording"]), (True, False, ["Accessibility"]),
    (False, False, ["Screen Recording", "Accessibility"])])
def test_missing_permissions_say_what_to_switch_on(screen, ax, named) -> None:
    with pytest.raises(DeviceError) as caught:
        MacBackend(FakeMac(screen_ok=screen, ax_ok=ax))
    message = str(caught.value)
    assert "System Settings → Privacy & Security" in message
    assert all(n in message for n in named)


def test_the_scale_is_one_conversion_both_ways() -> None:
    retina = DisplayScale(2.0)
    assert retina.to_points(Point(1441, 901)) == (720.5, 450.5)
    assert retina.to_pixels((720.5, 450.5)) == Point(1441, 901)
    assert retina.bounds_to_pixels(10, 20, 30, 40) == Bounds(20, 40, 80, 120)
    with pytest.raises(ValueError, match="positive"):
        DisplayScale(0)
