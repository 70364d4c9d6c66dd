"""The ADB driver settles on the phone's own word when the phone can give it (``vphone-idle``,
drivers.settle.settle_reported) and watches the frames when it cannot — asked once.

Counted on the phone's side: which settle commands each tap cost."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from omg_agent.core.actions import parse_action
from omg_agent.drivers.adb import AdbDriver
from omg_agent.perception.uitree import parse_elements

SETTINGS = "com.android.settings"


def counted(phone: Any, names: tuple[str, ...] = ("vphone-idle", "md5sum")) -> Counter[str]:
    """How often the phone ran each of ``names`` (its command table, wrapped)."""
    calls: Counter[str] = Counter()
    for name in names:
        handler = phone.shell.commands[name]

        def wrapped(ctx, args, _handler=handler, _name=name):
            calls[_name] += 1
            return _handler(ctx, args)
        phone.shell.commands[name] = wrapped
    return calls


def tap(text: str):
    return parse_action({"type": "tap", "target": {"kind": "anchor", "text": text}})


def test_a_phone_that_says_it_is_still_costs_one_look_per_settle(vphone) -> None:
    phone = vphone.phone
    phone.start_activity(SETTINGS)
    calls = counted(phone)
    with AdbDriver(vphone.serial) as drv:
        for _ in range(2):
            obs = drv.observe()
            result = drv.execute([tap("Wi-Fi")], obs)
            assert result.ok and "settle_timeout" not in result.timings
            after = drv.observe()
            assert [e.label for e in after.elements] == \
                [e.label for e in parse_elements(phone.dump_xml())]
    # one probe when the driver starts, then one look per tap: no quiet window watched
    assert calls == Counter({"vphone-idle": 3})


@pytest.mark.vphone(motion=True)
def test_a_phone_that_cannot_say_is_watched_and_asked_only_once(vphone) -> None:
    phone = vphone.phone
    phone.start_activity(SETTINGS)
    calls = counted(phone)
    with AdbDriver(vphone.serial) as drv:
        for _ in range(2):
            result = drv.execute([tap("Wi-Fi")], drv.observe())
            assert result.ok and "settle_timeout" not in result.timings
    assert calls["vphone-idle"] == 1 and calls["md5sum"] >= 4  # watched for a window


def type_into_username(phone: Any, serial: str) -> Counter[str]:
    """Chinese typed into the login form's username (the IME's way in); the sleeps it cost."""
    phone.start_activity("com.omg.login")
    calls = counted(phone, ("sleep",))
    with AdbDriver(serial) as drv:
        action = parse_action({"type": "type", "text": "张伟",
                               "target": {"kind": "anchor",
                                          "resource_id": "com.omg.login:id/username"}})
        assert drv.execute([action], drv.observe()).ok
    assert any(e.text == "张伟" for e in parse_elements(phone.dump_xml()))
    return calls


def test_a_phone_that_says_it_is_still_binds_the_ime_without_a_blind_wait(vphone) -> None:
    assert type_into_username(vphone.phone, vphone.serial)["sleep"] == 0


@pytest.mark.vphone(motion=True)
def test_a_phone_that_cannot_say_gets_the_ime_settle_wait(vphone) -> None:
    assert type_into_username(vphone.phone, vphone.serial)["sleep"] >= 1
