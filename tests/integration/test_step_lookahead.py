"""A step on both drivers with the dump taken ahead (drivers.nextlook): the observation after
an action is the phone's own tree now — taken ahead when it provably is, dumped again when
the screen moved after settling, kept when the action changed nothing drawn."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from omg_agent.core.actions import parse_action
from omg_agent.drivers.adb import AdbDriver
from omg_agent.drivers.u2 import U2Driver
from omg_agent.perception.uitree import parse_elements

SETTINGS = "com.android.settings"
NOTES = "com.omg.notes"


@pytest.fixture(params=["adb", "u2"])
def driver(request, vphone) -> Iterator[AdbDriver | U2Driver]:
    drv = AdbDriver(vphone.serial) if request.param == "adb" else U2Driver(vphone.serial)
    try:
        yield drv
    finally:
        drv.close()


def tap(text: str):
    return parse_action({"type": "tap", "target": {"kind": "anchor", "text": text}})


def labels(elements) -> list[tuple[str, tuple]]:
    return [(e.label, tuple(e.bounds)) for e in elements]


def the_phones_tree(phone) -> list[tuple[str, tuple]]:
    return labels(parse_elements(phone.dump_xml()))


# Dumps take their real time only with the latency profile: without it a dump started with
# the tap ends before the screen changed, and is (rightly) not taken.
@pytest.mark.vphone(latency=True)
def test_after_a_tap_the_dump_taken_ahead_is_the_phones_tree_now(driver, vphone) -> None:
    phone = vphone.phone
    phone.start_activity(SETTINGS)
    for _ in range(2):
        obs = driver.observe()
        before = labels(obs.elements)
        result = driver.execute([tap("Wi-Fi")], obs)
        assert result.ok and result.timings["settle"] > 0
        after = driver.observe()
        assert labels(after.elements) == the_phones_tree(phone) != before
        assert after.package == SETTINGS
    assert driver.ahead.taken == 2


def test_a_screen_that_moves_after_settling_is_dumped_again(driver, vphone) -> None:
    phone = vphone.phone
    phone.start_activity(SETTINGS)
    result = driver.execute([tap("Wi-Fi")], driver.observe())
    assert result.ok
    phone.start_activity(NOTES)  # after the settle, before the observation
    obs = driver.observe()
    assert labels(obs.elements) == the_phones_tree(phone)
    assert obs.package == NOTES and driver.ahead.taken == 0


def test_a_tap_that_changes_nothing_drawn_keeps_the_list(vphone) -> None:
    phone = vphone.phone
    phone.start_activity(SETTINGS)
    with AdbDriver(vphone.serial) as drv:
        drv.execute([tap("System update")], drv.observe())
        obs = drv.observe()
        assert phone.state()["apps"][SETTINGS]["screen"] == "updates"
        result = drv.execute([tap("Check for update")], obs)
        assert result.ok and phone.state()["apps"][SETTINGS]["update_checks"] == 1
        again = drv.observe()
        assert drv.ahead.skipped == 1
        assert labels(again.elements) == labels(obs.elements) == the_phones_tree(phone)


@pytest.mark.vphone(latency=True)
def test_without_md5sum_the_adb_driver_settles_on_frames(vphone) -> None:
    phone = vphone.phone
    del phone.shell.commands["md5sum"]
    phone.start_activity(SETTINGS)
    with AdbDriver(vphone.serial) as drv:
        result = drv.execute([tap("Wi-Fi")], drv.observe())
        assert result.ok and "settle_timeout" not in result.timings
        assert labels(drv.observe().elements) == the_phones_tree(phone)
        assert drv._no_digest and drv.ahead.taken == 1


@pytest.mark.vphone(latency=True)
def test_a_dump_that_ended_mid_animation_is_not_taken(vphone) -> None:
    """The Wi-Fi row animates for 1.6 s after the tap — longer than the dump that started
    with it — and the tree shows the old state until the animation ends: the observation
    must wait for the end and show the final tree, never the dump taken mid-animation."""
    import time

    phone = vphone.phone
    phone.start_activity(SETTINGS)
    app = phone.apps[SETTINGS]
    toggled: list[float] = []
    toggle, raw, dump = app._toggle, phone.screencap_raw, phone.dump_xml
    old_xml = dump()

    def animated_toggle(what: str) -> None:
        toggle(what)
        toggled.append(time.monotonic())

    def animating() -> bool:
        return bool(toggled) and time.monotonic() - toggled[-1] < 1.6

    def frame() -> bytes:
        data = bytearray(raw())
        if animating():  # a band that moves every frame
            data[100_000:100_064] = int(time.monotonic() * 1000).to_bytes(64, "little")
        return bytes(data)

    app._toggle = animated_toggle
    phone.screencap_raw = frame
    phone.dump_xml = lambda: old_xml if animating() else dump()
    with AdbDriver(vphone.serial, settle_timeout=4.0) as drv:
        obs = drv.observe()
        result = drv.execute([tap("Wi-Fi")], obs)
        assert result.ok and "settle_timeout" not in result.timings
        after = drv.observe()
        assert labels(after.elements) == the_phones_tree(phone) != labels(obs.elements)
        assert drv.ahead.taken == 0
