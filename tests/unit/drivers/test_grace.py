"""DeviceGrace: reads ride out drops, inputs are never sent twice once delivered, and the
wait is bounded with a stated reason. The link is a scripted stand-in for the adb server
(the real one is exercised in tests/integration/test_device_faults.py); time is a fake
clock advanced by the grace's own sleeps."""

from __future__ import annotations

import pytest

from omg_agent.drivers.grace import DeviceGrace, Undelivered
from omg_agent.errors import DeviceError, DeviceOffline, InputUnconfirmed


class Clock:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


class Link:
    """The device comes back at ``back_at`` (clock time); counts revive attempts."""

    serial = "127.0.0.1:5555"

    def __init__(self, clock: Clock, back_at: float) -> None:
        self.clock = clock
        self.back_at = back_at
        self.revived = 0

    def up(self) -> bool:
        return self.clock.now >= self.back_at

    def state(self) -> str:
        return "device" if self.up() else "offline"

    def revive(self) -> None:
        self.revived += 1


def offline() -> DeviceOffline:
    return DeviceOffline("device offline", serial=Link.serial, command="screencap")


def grace_for(back_at: float, grace_s: float = 30.0) -> tuple[DeviceGrace, Link, Clock]:
    clock = Clock()
    link = Link(clock, back_at)
    grace = DeviceGrace(link, grace_s=grace_s, sleep=clock.sleep, clock=clock)  # type: ignore[arg-type]
    return grace, link, clock


def test_a_read_is_repeated_until_the_device_is_back():
    grace, link, clock = grace_for(back_at=5.0)
    calls = []

    def read() -> str:
        calls.append(clock.now)
        if not link.up():
            raise offline()
        return "frame"

    assert grace.read(read, "screencap") == "frame"
    assert clock.now >= 5.0 and len(calls) > 2
    assert link.revived == len(calls) - 1
    assert max(clock.sleeps) <= grace.max_wait  # backoff, capped
    assert clock.sleeps == sorted(clock.sleeps)
    assert grace.drops == 1


def test_a_device_that_never_returns_stops_with_the_reason_after_the_grace():
    grace, link, clock = grace_for(back_at=1e9, grace_s=10.0)

    def read() -> str:
        raise offline()

    with pytest.raises(DeviceOffline, match=r"did not come back within 10 s .*device offline"):
        grace.read(read, "screencap")
    assert 10.0 <= clock.now <= 10.0 + grace.max_wait


def test_an_input_that_never_reached_the_device_is_sent_when_it_returns():
    grace, link, clock = grace_for(back_at=2.0)
    sent = []

    def tap() -> str:
        if not link.up():
            raise Undelivered(offline())
        sent.append(clock.now)
        return "ok"

    assert grace.send(tap, "tap 1,2") == "ok"
    assert len(sent) == 1


def test_an_input_that_broke_after_it_was_sent_is_not_sent_again():
    grace, link, clock = grace_for(back_at=3.0)
    sent = []

    def tap() -> str:
        sent.append(clock.now)
        raise offline()  # the stream broke: did the tap land? unknown

    with pytest.raises(InputUnconfirmed, match="effect is unknown, so it was not sent again"):
        grace.send(tap, "tap 1,2")
    assert len(sent) == 1
    assert clock.now >= 3.0  # it waited for the device, so the next observe can run at once
    assert grace.unknown_inputs == 1


def test_other_device_errors_are_not_retried():
    grace, _, _ = grace_for(back_at=0.0)
    calls = []

    def read() -> str:
        calls.append(1)
        raise DeviceError("permission denied", serial=Link.serial, command="cat /x")

    with pytest.raises(DeviceError, match="permission denied"):
        grace.read(read, "cat /x")
    assert calls == [1]


@pytest.mark.parametrize("answer", [b"", b"\x38\x04"])
def test_a_screencap_that_answers_nothing_is_a_drop_not_a_bad_frame(answer):
    """An empty answer is fetched again (DeviceOffline), not a FrameError that would switch
    the driver to PNG for good."""
    import adbutils

    from omg_agent.drivers.adb import AdbDriver

    driver = AdbDriver("127.0.0.1:5555", client=adbutils.AdbClient(port=1))
    try:
        with pytest.raises(DeviceOffline):
            driver._raw_frame(answer)
        with pytest.raises(DeviceOffline):
            driver._png_frame(b"")
    finally:
        driver.close()
