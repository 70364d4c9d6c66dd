"""The bundle executor's rules, over a recording port: the same for every transport."""

from __future__ import annotations

import pytest
from PIL import Image

from omg_agent.core.actions import parse_action
from omg_agent.core.geometry import Bounds, Point, ScreenGeometry
from omg_agent.core.observation import Observation, UIElement
from omg_agent.drivers.executor import BundleExecutor, PortFailed
from omg_agent.errors import ActionRejected
from omg_agent.perception.anchor import Anchorer

GEO = ScreenGeometry(1000, 2000, status_bar=50, nav_bar=100)
FIELD = UIElement(1, "android.widget.EditText", "input", Bounds(0, 200, 1000, 300),
                  text="old", resource_id="app:id/field", clickable=True, editable=True,
                  focused=True)
SAVE = UIElement(2, "android.widget.Button", "button", Bounds(0, 400, 1000, 500),
                 text="Save", clickable=True)
NOTES_ICON = UIElement(3, "android.widget.TextView", "button", Bounds(0, 600, 200, 800),
                       text="Notes", clickable=True)


def screen(*elements: UIElement, package: str = "app") -> Observation:
    return Observation(Image.new("RGB", GEO.size), elements, package=package,
                       screen_hash=package, geometry=GEO)


class RecordingPort:
    """Records each verb under the action it belongs to; fails the action named in
    ``fail_at`` when the batch runs, as a shell call that stops half way does."""

    def __init__(self, fail_at: int | None = None, reject_typing: bool = False) -> None:
        self.log: list[tuple[int, str]] = []
        self.queued: list[int] = []
        self.batches = 0
        self.fail_at = fail_at
        self.reject_typing = reject_typing
        self.current = -1

    calls = property(lambda self: self.batches)

    def begin(self, index: int) -> None:
        self.current = index
        self.queued.append(index)

    def _rec(self, what: str) -> None:
        self.log.append((self.current, what))

    def tap(self, p: Point) -> None:
        self._rec(f"tap {p.x},{p.y}")

    def double_tap(self, p: Point) -> None:
        self._rec(f"double_tap {p.x},{p.y}")

    def long_press(self, p: Point, duration_ms: int) -> None:
        self._rec(f"long_press {p.x},{p.y}")

    def swipe(self, start: Point, end: Point, duration_ms: int) -> None:
        self._rec(f"swipe {start.x},{start.y}->{end.x},{end.y}")

    def key(self, code: int) -> None:
        self._rec(f"key {code}")

    def type(self, text: str, *, clear: bool, field, after_tap: bool) -> str:
        if self.reject_typing:
            raise ActionRejected("no keyboard for this text")
        secret = field is not None and field.password
        self._rec(f"type {len(text)}" + (" clear" if clear else "") + (" secret" if secret
                                                                        else ""))
        return f"typed {len(text)} chars"

    def start(self, package: str) -> None:
        self._rec(f"start {package}")

    def discard(self) -> None:
        self.queued.pop()

    def batch(self) -> list[int]:
        self.batches += 1
        queued, self.queued = self.queued, []
        if self.fail_at in queued:
            done = queued[:queued.index(self.fail_at)]
            raise PortFailed(done, self.fail_at, "device command failed: boom")
        return queued

    def packages(self) -> list[str]:
        return ["com.omg.notes", "com.android.settings"]


class FakeDevice:
    serial = "fake"

    def __init__(self, *screens: Observation) -> None:
        self.screens = list(screens)
        self.last_observation: Observation | None = None
        self.geometry = GEO
        self.anchorer = Anchorer(GEO)
        self.settled: list[str] = []
        self.observed = 0

    def observe(self, *, ocr: bool = False) -> Observation:
        self.observed += 1
        self.last_observation = self.screens.pop(0) if len(self.screens) > 1 else self.screens[0]
        return self.last_observation

    def current_app(self) -> tuple[str, str]:
        return ("com.omg.notes", ".Main")

    def wait_settled(self, timeout: float | None = None, *, previous: str = "") -> bool:
        self.settled.append(previous)
        return True


def run(device: FakeDevice, port: RecordingPort, *raw: dict, obs: Observation | None = None,
        aliases: dict[str, str] | None = None):
    executor = BundleExecutor(device, port, lambda: aliases or {})
    return executor.run([parse_action(a) for a in raw], obs)


def test_typing_without_an_observation_looks_at_the_screen_first() -> None:
    device, port = FakeDevice(screen(FIELD, SAVE)), RecordingPort()
    result = run(device, port, {"type": "type", "text": "new", "clear": True})
    assert result.ok and device.observed == 1
    assert port.log == [(0, "type 3 clear")]
    assert device.settled == []  # typing into a field changes nothing unpredictably


def test_a_segment_runs_as_one_batch_and_settles_once_after_its_boundary() -> None:
    obs = screen(FIELD, SAVE)
    device, port = FakeDevice(obs), RecordingPort()
    result = run(device, port, {"type": "type", "text": "hi", "target": 1},
                 {"type": "tap", "target": {"kind": "anchor", "text": "save"}},
                 {"type": "back"}, obs=obs)
    assert [o.ok for o in result.outcomes] == [True, True] and result.dropped == 1
    assert port.log == [(0, "tap 500,250"), (0, "type 2"), (1, "tap 500,450")]
    assert port.batches == 1 and result.device_calls == 1
    assert device.settled == ["app"]  # once, from the screen the bundle started on


def test_a_failed_batch_names_the_action_and_keeps_what_finished() -> None:
    obs = screen(FIELD, SAVE)
    device, port = FakeDevice(obs), RecordingPort(fail_at=1)
    result = run(device, port, {"type": "key", "key": "delete"}, {"type": "key", "key": "tab"},
                 {"type": "home"}, obs=obs)
    assert [o.ok for o in result.outcomes] == [True, False] and result.dropped == 1
    assert "boom" in result.outcomes[1].detail


def test_a_rejected_typing_runs_what_came_before_it_and_stops() -> None:
    obs = screen(FIELD, SAVE)
    device, port = FakeDevice(obs), RecordingPort(reject_typing=True)
    result = run(device, port, {"type": "key", "key": "delete"},
                 {"type": "type", "text": "你好"}, {"type": "home"}, obs=obs)
    assert [o.ok for o in result.outcomes] == [True, False] and result.dropped == 1
    assert "no keyboard" in result.outcomes[1].detail and port.batches == 1


@pytest.mark.parametrize(("app", "started"), [
    ("笔记", "com.omg.notes"), ("Notes", "com.omg.notes"), ("com.android.settings",
                                                            "com.android.settings")])
def test_launch_finds_aliases_and_installed_packages(app, started) -> None:
    device, port = FakeDevice(screen()), RecordingPort()
    result = run(device, port, {"type": "launch", "app": app}, aliases={"笔记": "com.omg.notes"})
    assert result.ok and port.log == [(0, f"start {started}")]
    assert device.settled == [""] and device.observed == 0


def test_a_package_that_is_not_installed_is_refused_without_touching_the_phone() -> None:
    device, port = FakeDevice(screen()), RecordingPort()
    result = run(device, port, {"type": "launch", "app": "com.omg.ghost"})
    assert not result.ok and "not installed" in result.outcomes[0].detail
    assert port.log == [] and port.batches == 0


def test_an_unknown_name_is_looked_for_on_the_home_screen_and_learned() -> None:
    home = screen(NOTES_ICON, package="launcher")
    device, port = FakeDevice(home), RecordingPort()
    executor = BundleExecutor(device, port)
    result = executor.run([parse_action({"type": "launch", "app": "notes app"})], None)
    assert not result.ok and "not on the home screen (Notes)" in result.outcomes[0].detail
    result = executor.run([parse_action({"type": "launch", "app": "Notes"})], None)
    assert result.ok  # "Notes" is an installed package's name: started directly
    NOTES_ICON_ZH = UIElement(3, "android.widget.TextView", "button", Bounds(0, 600, 200, 800),
                              text="备忘录", clickable=True)
    device.screens = [screen(NOTES_ICON_ZH, package="launcher")]
    port.log.clear()
    result = executor.run([parse_action({"type": "launch", "app": "备忘录"})], None)
    assert result.ok and "home screen -> com.omg.notes" in result.outcomes[0].detail
    assert port.log == [(0, "key 3"), (0, "tap 100,700")]
    assert executor.learned == {"备忘录": "com.omg.notes"}


class LookAheadDevice(FakeDevice):
    """A driver that looks ahead: told before a bundle that ends in a boundary runs."""

    def __init__(self, *screens: Observation) -> None:
        super().__init__(*screens)
        self.events: list[str] = []

    def before_boundary(self) -> None:
        self.events.append("ahead")

    def wait_settled(self, timeout: float | None = None, *, previous: str = "") -> bool:
        self.events.append("settle")
        return True


def test_a_driver_that_looks_ahead_is_told_before_the_boundary_runs() -> None:
    device, port = LookAheadDevice(screen(FIELD, SAVE)), RecordingPort()
    obs = device.observe()
    run(device, port, {"type": "tap", "target": {"kind": "element", "id": 2}}, obs=obs)
    assert device.events == ["ahead", "settle"]


def test_no_look_ahead_for_typing_or_before_a_wait() -> None:
    device, port = LookAheadDevice(screen(FIELD, SAVE)), RecordingPort()
    obs = device.observe()
    run(device, port, {"type": "type", "text": "x", "clear": False}, obs=obs)
    assert device.events == []
    run(device, port, {"type": "wait", "seconds": 0.01},
        {"type": "tap", "target": {"kind": "element", "id": 2}}, obs=obs)
    assert device.events == ["settle"]  # the dump would have ended before the tap


class DesktopPort(RecordingPort):
    def hotkey(self, keys: list[str]) -> None:
        self._rec("hotkey " + "+".join(keys))


def test_a_hotkey_runs_on_a_port_that_has_hotkeys_and_a_phone_refuses_it() -> None:
    obs = screen(FIELD, SAVE)
    device, port = FakeDevice(obs), DesktopPort()
    result = run(device, port, {"type": "key", "key": "Ctrl + L"}, obs=obs)
    assert result.ok and port.log == [(0, "hotkey ctrl+l")]
    assert result.outcomes[0].detail == "hotkey ctrl+l"
    phone = RecordingPort()
    refused = run(FakeDevice(obs), phone, {"type": "key", "key": "ctrl+l"}, obs=obs)
    assert not refused.ok and phone.log == []
    assert "needs a desktop" in refused.outcomes[0].detail


def test_hotkeys_are_validated_and_read_as_their_last_key_by_the_guards() -> None:
    from omg_agent.core.actions import Key, is_boundary
    assert Key(key="ctrl+enter").keycode == 66  # the gate sees a submit as a submit
    assert Key(key="cmd+space").combo == ("cmd", "space")
    assert is_boundary(Key(key="ctrl+l"))  # where a hotkey leads is not known
    with pytest.raises(ValueError, match="'hyper' is not a modifier"):
        Key(key="hyper+l")


def test_reports_name_points_in_the_models_units_and_what_typing_did() -> None:
    """The executor's report goes back to the model, which names points 0–1000: a pixel
    point there (500,450 on a 1000x2000 screen) reads as a place on the lower half."""
    obs = screen(FIELD, SAVE)
    port = RecordingPort()
    tapped = run(FakeDevice(obs), port, {"type": "tap", "target": {"kind": "element", "id": 2}},
                 obs=obs).outcomes[0].detail
    assert tapped.startswith("tap at 500,225 on [2] button") and "450" not in tapped
    assert port.log == [(0, "tap 500,450")]  # the phone gets pixels
    typed = run(FakeDevice(obs), RecordingPort(),
                {"type": "type", "text": "milk", "clear": True, "submit": True},
                obs=obs).outcomes[0].detail
    assert typed == "typed 4 chars, cleared first, then enter"
