"""The ADB and u2 drivers build an observation one way (drivers.observing): on one vphone
screen they report the same elements and app, and both read the foreground app
again only when the screen changed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from omg_agent.drivers.adb import AdbDriver
from omg_agent.drivers.observing import ObservingDriver
from omg_agent.drivers.u2 import U2Driver

DRIVERS = {"adb": AdbDriver, "u2": U2Driver}


@pytest.fixture(params=sorted(DRIVERS))
def driver(request, vphone) -> Iterator[ObservingDriver]:
    drv = DRIVERS[request.param](vphone.serial)
    try:
        yield drv
    finally:
        drv.close()


@pytest.fixture
def focus_reads(vphone) -> list[list[str]]:
    """Every ``dumpsys window`` the phone ran (how a driver reads the foreground app)."""
    reads: list[list[str]] = []
    table = vphone.phone.shell.commands
    dumpsys = table["dumpsys"]

    def counted(ctx, args):
        if args[:1] == ["window"]:
            reads.append(args)
        return dumpsys(ctx, args)

    table["dumpsys"] = counted
    return reads


def test_the_foreground_app_is_read_again_only_when_the_screen_changed(
        vphone, driver: ObservingDriver, focus_reads) -> None:
    driver.observe()
    driver.observe()
    assert len(focus_reads) == 1
    vphone.phone.start_activity("com.android.settings")
    obs = driver.observe()
    assert obs.package == "com.android.settings"
    assert len(focus_reads) == 2


def test_both_drivers_see_one_screen_the_same_way(vphone) -> None:
    vphone.phone.start_activity("com.omg.notes")
    with AdbDriver(vphone.serial) as adb, U2Driver(vphone.serial) as u2:
        a, b = adb.observe(), u2.observe()
    assert [(e.label, e.bounds, e.package) for e in a.elements] == \
        [(e.label, e.bounds, e.package) for e in b.elements]
    assert (a.package, a.activity) == (b.package, b.activity)
    assert a.package == "com.omg.notes"
    assert set(a.timings) == set(b.timings)
