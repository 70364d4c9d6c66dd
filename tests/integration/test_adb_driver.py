"""The ADB driver on vphone through the real adb server: eyes exact, hands batched, text exact."""

from __future__ import annotations

import base64
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from omg_agent.core.actions import parse_action
from omg_agent.drivers.adb import AdbDriver
from omg_agent.drivers.base import Driver
from omg_agent.errors import DeviceOffline
from omg_agent.perception.uitree import parse_elements
from omg_agent.vphone.phone import ADB_IME, LATIN_IME

APPS = ["com.android.launcher3", "com.android.settings", "com.omg.notes", "com.omg.shop",
        "com.omg.messages", "com.omg.feed", "com.omg.login"]
NOTES = "com.omg.notes"


def act(**data):
    return parse_action(data)


@pytest.fixture
def driver(vphone):
    p = vphone.phone.profile
    # The vphone's IME binds at once, so no settling sleep is needed after `ime set`.
    d = AdbDriver(vphone.serial, status_bar_px=p.status_bar_height,
                  nav_bar_px=p.nav_bar_height, ime_settle_s=0.0)
    yield d
    d.close()


@pytest.fixture
def shell_log(vphone):
    """Every command the vphone's shell runs, as argv lists (observed on the phone side)."""
    seen: list[list[str]] = []
    table = vphone.phone.shell.commands

    def recording(name, handler):
        def run(ctx, args):
            seen.append([name, *args])
            return handler(ctx, args)
        return run

    for name, handler in list(table.items()):
        table[name] = recording(name, handler)
    return seen


def fs_paths(fs, top="/"):
    out = set()
    for name, stat in fs.listdir(top):
        path = top.rstrip("/") + "/" + name
        out.add(path)
        if stat.is_dir:
            out |= fs_paths(fs, path)
    return out


def element(obs, **match):
    return next(e for e in obs.elements
                if all(getattr(e, k) == v for k, v in match.items()))


# -- observing ----------------------------------------------------------------------------
@pytest.mark.parametrize("profile", [
    pytest.param("default", marks=pytest.mark.vphone(profile="default")),
    pytest.param("compact", marks=pytest.mark.vphone(profile="compact")),
])
def test_observe_matches_the_phones_own_tree_on_every_app(vphone, driver, profile):
    phone = vphone.phone
    assert isinstance(driver, Driver)
    for package in APPS:
        phone.start_activity(package)
        obs = driver.observe()
        assert obs.elements == parse_elements(phone.dump_xml()), package
        assert obs.size == (phone.profile.width, phone.profile.height)
        assert (obs.package, obs.activity) == phone.focus()
        assert set(obs.timings) >= {"screencap", "dump", "parse", "hash", "focus", "total"}
    phone.go_home()
    obs = driver.observe()
    assert obs.screenshot.tobytes() == phone.screenshot().convert("RGB").tobytes()


def test_info_reads_size_density_and_props_in_one_call(vphone):
    p = vphone.phone.profile
    with AdbDriver(vphone.serial) as d:
        calls = d.io.calls
        info = d.info()
        assert d.io.calls == calls + 1
    assert (info.width, info.height, info.density, info.sdk, info.brand, info.model) == \
        (p.width, p.height, p.density, p.sdk, p.brand, p.model)
    assert info.status_bar_px == round(24 * p.density / 160)  # 24 dp / 48 dp unless given
    assert info.nav_bar_px == round(48 * p.density / 160)


def test_foreground_app_is_asked_only_when_the_screen_changed(vphone, driver, shell_log):
    driver.observe()
    driver.observe()
    assert sum(1 for argv in shell_log if argv[0] == "dumpsys") == 1
    vphone.phone.start_activity("com.android.settings")
    obs = driver.observe()
    assert obs.package == "com.android.settings"
    assert sum(1 for argv in shell_log if argv[0] == "dumpsys") == 2


# -- acting -------------------------------------------------------------------------------
def test_tap_by_element_id_flips_the_wifi_switch(vphone, driver):
    phone = vphone.phone
    phone.start_activity("com.android.settings")
    obs = driver.observe()
    switch = element(obs, resource_id="com.android.settings:id/wifi_switch")
    before = phone.state()["apps"]["com.android.settings"]["wifi"]
    result = driver.execute([act(type="tap", target=switch.id)], obs)
    assert result.ok and result.device_calls == 1
    assert result.outcomes[0].source == "element"
    assert phone.state()["apps"]["com.android.settings"]["wifi"] is (not before)


def open_note_body(vphone, driver):
    vphone.phone.start_activity(NOTES)
    obs = driver.observe()
    driver.execute([act(type="tap", target={"desc": "New note"})], obs)
    obs = driver.observe()
    body = element(obs, resource_id=f"{NOTES}:id/body_input")
    driver.execute([act(type="tap", target=body.id)], obs)
    obs = driver.observe()
    assert obs.focused is not None and obs.focused.resource_id.endswith("body_input")
    return obs


def draft(vphone):
    return vphone.phone.state()["apps"][NOTES]["draft"]


def test_a_bundle_stops_after_its_first_boundary(vphone, driver):
    vphone.phone.start_activity(NOTES)
    obs = driver.observe()
    title_tap = act(type="tap", target={"desc": "New note"})
    result = driver.execute([title_tap, act(type="type", text="lost"),
                             act(type="tap", target=[500, 500])], obs)
    assert [o.ok for o in result.outcomes] == [True] and result.dropped == 2
    assert draft(vphone) == {"title": "", "body": "", "focus": "title"}


def test_taps_on_switches_do_not_end_the_bundle(vphone, driver, shell_log):
    vphone.phone.start_activity("com.android.settings")
    obs = driver.observe()
    wifi = vphone.phone.apps["com.android.settings"].wifi
    shell_log.clear()
    result = driver.execute([act(type="tap", target={"resource_id": "wifi_switch"}),
                             act(type="tap", target={"resource_id": "bluetooth_switch"}),
                             act(type="tap", target={"text": "Display"}),
                             act(type="tap", target={"resource_id": "wifi_switch"})], obs)
    assert [o.ok for o in result.outcomes] == [True] * 3 and result.dropped == 1
    assert vphone.phone.apps["com.android.settings"].wifi is (not wifi)
    assert result.device_calls == 1  # the two switches and the row: one shell call


def test_batched_inputs_are_one_device_call(vphone, driver, shell_log):
    obs = open_note_body(vphone, driver)
    shell_log.clear()
    result = driver.execute([act(type="type", text="ab c"), act(type="key", key="delete"),
                             act(type="type", text="d;ef"), act(type="key", key="delete"),
                             act(type="key", key="tab")], obs)
    assert result.ok and result.dropped == 0 and result.device_calls == 1
    # tab moved focus on to the editor's next control (as on Android): nothing typed in
    assert draft(vphone)["body"] == "ab d;e"
    # delete and tab ride in one `input keyevent 67 61`: a run of keys costs one process
    looks = {"screencap", "md5sum", "vphone-idle", "uiautomator", "dumpsys", "grep",
             "settings"}  # settling,
    # the next observation's dump and focus (drivers.nextlook), not the bundle's inputs
    assert [argv[0] for argv in shell_log if argv[0] not in looks] == \
        ["input", "echo", "input", "echo", "input", "echo", "input"]
    assert ["input", "keyevent", "67", "61"] in shell_log


def test_a_failed_command_stops_the_bundle_and_names_the_action(vphone, driver):
    obs = open_note_body(vphone, driver)
    driver.aliases["Ghost"] = "com.omg.ghost"  # not installed: monkey finds nothing to start
    result = driver.execute([act(type="type", text="x"), act(type="launch", app="Ghost"),
                             act(type="home")], obs)
    assert [o.ok for o in result.outcomes] == [True, False] and result.dropped == 1
    assert "device command failed" in result.outcomes[1].detail
    assert result.device_calls == 1
    assert draft(vphone)["body"] == "x" and vphone.phone.focus()[0] == NOTES


def test_a_package_that_is_not_installed_is_refused_without_touching_the_phone(vphone, driver):
    result = driver.execute([act(type="launch", app="com.omg.ghost")])
    assert not result.ok and "not installed" in result.outcomes[0].detail
    assert vphone.phone.focus()[0] == "com.android.launcher3"


def test_launch_by_name_english_and_chinese(vphone, driver):
    driver.launch("Notes")
    assert vphone.phone.focus()[0] == NOTES
    driver.launch("com.android.settings")
    assert vphone.phone.focus()[0] == "com.android.settings"
    vphone.phone.set_locale("zh-CN")
    result = driver.execute([act(type="launch", app="备忘录")])
    assert result.ok and vphone.phone.focus()[0] == NOTES, result
    assert "home screen" in result.outcomes[0].detail
    vphone.phone.go_home()
    again = driver.execute([act(type="launch", app="备忘录")])  # remembered: monkey now
    assert again.ok and again.device_calls == 1 and vphone.phone.focus()[0] == NOTES


def test_launch_with_an_alias_table(vphone):
    with AdbDriver(vphone.serial, aliases={"笔记": NOTES}) as d:
        result = d.execute([act(type="launch", app="笔记")])
    assert result.ok and result.device_calls == 1 and vphone.phone.focus()[0] == NOTES


def test_unicode_without_adb_keyboard_is_rejected_naming_the_fix(vphone, driver):
    obs = open_note_body(vphone, driver)
    vphone.phone.ime_ids.remove(ADB_IME)  # uninstalled
    vphone.phone.settings["secure"]["enabled_input_methods"] = LATIN_IME
    result = driver.execute([act(type="type", text="ab"), act(type="type", text="你好")], obs)
    assert [o.ok for o in result.outcomes] == [True, False]
    assert "install ADBKeyboard" in result.outcomes[1].detail
    assert draft(vphone)["body"] == "ab"
    # ASCII still types, and clearing falls back to delete keys — as many as the field
    # holds on the screen the agent looked at (a new turn's observation)
    assert driver.execute([act(type="type", text="plain", clear=True)], driver.observe()).ok
    assert draft(vphone)["body"] == "plain"


def test_a_disabled_adb_keyboard_is_rejected_naming_the_command_that_enables_it(vphone, driver):
    obs = open_note_body(vphone, driver)
    vphone.phone.settings["secure"]["enabled_input_methods"] = LATIN_IME
    result = driver.execute([act(type="type", text="你好")], obs)
    assert not result.ok and f"ime enable {ADB_IME}" in result.outcomes[0].detail


def test_password_text_is_never_logged(vphone, driver, caplog):
    vphone.phone.start_activity("com.omg.login")
    obs = driver.observe()
    field = next(e for e in obs.elements if e.password)
    with caplog.at_level("DEBUG"):
        result = driver.execute([act(type="type", text="s3cret-pw", target=field.id)], obs)
    assert result.ok and "s3cret-pw" not in result.outcomes[0].detail
    ours = "\n".join(r.getMessage() for r in caplog.records  # the phone's own logs aside
                     if r.name.startswith("omg_agent.drivers"))
    assert "s3cret-pw" not in ours and "<redacted 9 chars>" in ours


def test_wait_settled_sees_a_still_screen(driver):
    start = time.monotonic()
    assert driver.wait_settled(2.0)
    assert time.monotonic() - start < 1.0


# -- typing: the property test ------------------------------------------------------------
NASTY = list(" '\"`$\\;&|<>()%s\t\n*?!#~{}[]=^") + ["%s", "$(reboot)", "`id`", "'\\''"]
CJK = st.characters(min_codepoint=0x4E00, max_codepoint=0x4FFF)
EMOJI = st.characters(min_codepoint=0x1F300, max_codepoint=0x1FAFF)
TEXT = st.one_of(
    st.lists(st.sampled_from(NASTY + list("aZ09"))).map("".join),
    st.text(st.characters(exclude_categories=("Cs", "Cc"), include_characters="\n\t")),
    st.lists(st.one_of(st.sampled_from(NASTY), CJK, EMOJI)).map("".join),
)


def typed_by_commands(argvs: list[list[str]]) -> str:
    """The text the recorded commands typed, as the phone reads them."""
    out = []
    for argv in argvs:
        match argv:
            case ["input", "text", arg]:
                out.append(arg.replace("%s", " "))
            case ["input", "keyevent", *codes] if set(codes) == {"66"}:
                out.append("\n" * len(codes))
            case ["am", "broadcast", "-a", "ADB_INPUT_B64", "--es", "msg", payload]:
                out.append(base64.b64decode(payload).decode("utf-8"))
            case _:
                raise AssertionError(f"unexpected command {argv}")
    return "".join(out)


def test_any_text_arrives_byte_exact_and_runs_nothing_else(vphone, driver, shell_log):
    obs = open_note_body(vphone, driver)
    assert driver.ime_state() == (True, LATIN_IME)  # probed once per driver, then cached
    files = fs_paths(vphone.phone.fs)
    stats = {"n": 0, "start": time.perf_counter()}

    @settings(max_examples=2000, deadline=None, derandomize=False,
              suppress_health_check=[HealthCheck.function_scoped_fixture,
                                     HealthCheck.too_slow])
    @given(TEXT)
    def type_and_read_back(text):
        shell_log.clear()
        result = driver.execute([act(type="type", text=text, clear=True)], obs)
        assert result.ok, result.outcomes
        assert result.device_calls == 1 and result.dropped == 0
        assert draft(vphone)["body"] == text
        state = vphone.phone.state()
        assert (state["foreground"], state["ime"]) == (NOTES, LATIN_IME)
        assert draft(vphone)["focus"] == "body"
        assert shell_log[0] == ["ime", "set", ADB_IME]
        assert shell_log[1] == ["am", "broadcast", "-a", "ADB_CLEAR_TEXT"]
        assert shell_log[-1] == ["ime", "set", LATIN_IME]
        assert typed_by_commands(shell_log[2:-1]) == text
        stats["n"] += 1

    type_and_read_back()
    elapsed = time.perf_counter() - stats["start"]
    print(f"\n{stats['n']} typing examples in {elapsed:.1f} s")
    assert fs_paths(vphone.phone.fs) == files
    assert stats["n"] >= 2000


# -- fallbacks and faults -----------------------------------------------------------------
def test_a_frame_with_an_unknown_header_falls_back_to_png(vphone, driver):
    table = vphone.phone.shell.commands
    real = table["screencap"]

    def garbled(ctx, args):  # a device whose raw frames this driver cannot read
        if "-p" in args:
            return real(ctx, args)
        ctx.out(b"\x00" * 100)
        return 0

    table["screencap"] = garbled
    obs = driver.observe()
    assert obs.size == (vphone.phone.profile.width, vphone.phone.profile.height)
    assert obs.raw[:8] == b"\x89PNG\r\n\x1a\n"
    assert obs.screenshot.tobytes() == vphone.phone.screenshot().convert("RGB").tobytes()


def test_a_dump_that_cannot_stream_falls_back_to_a_file(vphone, driver, shell_log):
    table = vphone.phone.shell.commands
    real = table["uiautomator"]

    def no_tty(ctx, args):
        if "/dev/tty" in args:
            ctx.errln("ERROR: could not get idle state.")
            return 1
        return real(ctx, args)

    table["uiautomator"] = no_tty
    obs = driver.observe()
    assert obs.elements == parse_elements(vphone.phone.dump_xml())
    assert ["cat", "/data/local/tmp/omg_window_dump.xml"] in shell_log


def test_exit_status_without_shell_v2(vphone):
    with AdbDriver(vphone.serial) as d:
        d.io.shell_v2 = False
        result = d.io.run_status("echo out; ls /nope; exit 3")
        assert (result.stdout, result.status) == (b"out\nls: /nope: No such file or directory\n",
                                                 3)
        assert d.io.run_status("echo -n x").stdout == b"x"


def test_an_offline_phone_raises_device_offline_after_the_grace(vphone, driver):
    driver.observe()
    driver.io.grace.grace_s = 2.0  # the drop is waited out for this long (issue 12)
    vphone.phone.go_offline(30)
    with pytest.raises(DeviceOffline, match="did not come back within 2 s") as info:
        driver.observe()
    assert info.value.serial == vphone.serial


def test_bundles_without_shell_v2_still_report_status(vphone, driver):
    obs = open_note_body(vphone, driver)
    driver.io.shell_v2 = False  # an Android 6 phone: the status comes back on stdout
    driver.aliases["Ghost"] = "com.omg.ghost"
    result = driver.execute([act(type="type", text="你好 'x'", clear=True),
                             act(type="launch", app="Ghost")], obs)
    assert [o.ok for o in result.outcomes] == [True, False]
    assert draft(vphone)["body"] == "你好 'x'" and vphone.phone.ime_current == LATIN_IME


def test_execute_waits_for_a_spinner_to_settle_instead_of_sleeping(vphone, driver):
    shop = vphone.phone.apps["com.omg.shop"]
    shop.promo_mode, shop.search_delay = "never", 0.6
    vphone.phone.start_activity("com.omg.shop")
    driver.ime_state()  # the one-time IME probe, so each search below is one call

    def search():
        obs = driver.observe()
        field = element(obs, resource_id="com.omg.shop:id/search_input")
        return driver.execute([
            act(type="type", text="phone", target=field.id, clear=True),
            act(type="tap", target={"resource_id": "com.omg.shop:id/search"})], obs)

    result = search()
    assert result.ok and result.device_calls == 1
    assert 0.5 < result.timings["settle"] < 2.0  # the spinner turned, then results stood still
    assert "settle_timeout" not in result.timings
    assert vphone.phone.state()["apps"]["com.omg.shop"]["results_loaded"]

    driver.execute([act(type="back")])
    shop.search_delay, driver.settle_timeout = 30.0, 0.5
    result = search()
    assert result.ok and "settle_timeout" in result.timings
    assert result.timings["settle"] < 1.0
    assert not vphone.phone.state()["apps"]["com.omg.shop"]["results_loaded"]


def test_swipes_scroll_the_feed_and_double_tap_is_two_taps(vphone, driver, shell_log):
    vphone.phone.start_activity("com.omg.feed")
    obs = driver.observe()
    result = driver.execute([act(type="swipe", direction="up", distance=300)], obs)
    # reported in the model's 0–1000 units: pixels (540,1200) -> (540,480) on 1080x2400
    assert result.ok and result.outcomes[0].detail.startswith("swipe 500,500 -> 500,200")
    assert result.outcomes[0].point == (540, 1200)
    offset = vphone.phone.state()["apps"]["com.omg.feed"]["scroll_offset"]
    assert offset > 0
    driver.execute([act(type="swipe", **{"from": [500, 300], "to": [500, 700]})])
    assert vphone.phone.state()["apps"]["com.omg.feed"]["scroll_offset"] < offset
    shell_log.clear()
    obs = driver.observe()
    like = next(e for e in obs.elements if e.clickable and "Like" in e.label)
    result = driver.execute([act(type="double_tap", target=like.id)], obs)
    assert result.ok and result.device_calls == 1
    taps = [argv for argv in shell_log if argv[:2] == ["input", "tap"]]
    assert len(taps) == 2 and taps[0] == taps[1]
