"""Device faults through the real adb server: the ADB driver rides out an offline device, a
killed adb server (restarted, the TCP device re-connected) and dropped transports; gives up
with the reason after its grace; and never sends an input twice (issue 12, item 1).

Each test has its own adb server on a free port (``adb -P``), so killing it touches no one
else's.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator

import adbutils
import pytest
from adbtools import adb, poll

from omg_agent.bench.reliability import private_adb_server
from omg_agent.drivers.adb import AdbDriver
from omg_agent.errors import DeviceOffline, InputUnconfirmed
from omg_agent.vphone import adbhost
from omg_agent.vphone.faults import apply_fault, inject_later
from omg_agent.vphone.phone import VirtualPhone

NOTES = "com.omg.notes"


@pytest.fixture
def rig() -> Iterator[tuple[VirtualPhone, AdbDriver, int]]:
    try:
        adbhost.adb_path()
    except Exception as exc:  # AdbNotFound
        pytest.skip(str(exc))
    with private_adb_server() as port:
        phone = VirtualPhone("compact", seed=2)
        server = phone.serve()
        serial = adbhost.connect("127.0.0.1", server.port, server_port=port)
        driver = AdbDriver(serial, client=adbutils.AdbClient(port=port), grace_s=20)
        try:
            yield phone, driver, port
        finally:
            driver.close()
            adbhost.disconnect(serial, port)
            phone.close()


def notes_title_focused(phone: VirtualPhone) -> None:
    phone.start_activity(NOTES)
    phone.tap_view(resource_id=f"{NOTES}:id/fab_new")
    phone.tap_view(resource_id=f"{NOTES}:id/title_input")


def title(phone: VirtualPhone) -> str:
    view = phone.find_view(resource_id=f"{NOTES}:id/title_input")
    assert view is not None
    return view.text


def test_an_observe_during_an_offline_spell_returns_when_the_device_does(rig):
    phone, driver, _ = rig
    driver.observe()
    phone.start_activity(NOTES)
    apply_fault(phone, "offline", 2.0)
    obs = driver.observe()
    assert obs.package == NOTES
    assert driver.io.grace.drops >= 1


def test_a_killed_adb_server_is_restarted_and_the_device_reconnected(rig):
    phone, driver, port = rig
    driver.observe()
    phone.start_activity(NOTES)
    apply_fault(phone, "adb_kill", adb_port=port)
    obs = driver.observe()
    assert obs.package == NOTES
    link = driver.io.grace.link
    assert link.server_starts >= 1 and link.connects >= 1


def test_a_device_gone_past_the_grace_stops_with_the_reason(rig):
    phone, driver, _ = rig
    driver.observe()
    driver.io.grace.grace_s = 1.5
    apply_fault(phone, "offline", 60.0)
    with pytest.raises(DeviceOffline, match=r"did not come back within 1.5 s"):
        driver.observe()


def _adb_state(port: int, serial: str) -> str:
    """What the adb server on ``port`` says of ``serial`` ("" when it does not know it)."""
    return adb("-P", str(port), "-s", serial, "get-state", timeout=10).stdout.strip()


def test_an_input_that_never_left_the_host_is_sent_once_the_device_is_back(rig):
    phone, driver, port = rig
    notes_title_focused(phone)
    apply_fault(phone, "offline", 1.5)
    # the premise: the adb server knows the device is away before the input is tried (on a
    # loaded machine it may still hand the command to the dying transport: then its fate is
    # unknown and the driver rightly refuses to send it twice — another test's subject)
    assert poll(lambda: _adb_state(port, driver.serial) != "device", 1.2)
    result = driver.io.run_status("input text abc", label="type abc")
    assert result.ok
    assert title(phone) == "abc"


def test_an_input_cut_off_after_it_ran_is_not_sent_again(rig):
    phone, driver, _ = rig
    notes_title_focused(phone)

    def drop_once_typed() -> None:  # the text landed; the command is still running
        if poll(lambda: title(phone) == "abc"):
            apply_fault(phone, "drop")

    threading.Thread(target=drop_once_typed, daemon=True).start()
    with pytest.raises(InputUnconfirmed, match="not sent again"):
        driver.io.run_status("input text abc; sleep 5", label="type abc")
    assert title(phone) == "abc"  # once: the driver did not type it a second time
    assert driver.io.grace.unknown_inputs == 1


def test_a_fault_at_a_random_moment_fires_within_its_window(rig):
    phone, driver, _ = rig
    injection = inject_later(phone, "screen_off", within=0.5, rng=random.Random(3))
    assert 0 <= injection.at_s < 0.5
    assert poll(lambda: bool(injection.done))
    assert injection.done == "screen off and locked"
    assert driver.observe().package == "com.android.systemui"
