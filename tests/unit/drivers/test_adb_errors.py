"""adb failures become the DeviceError family in one place (drivers.adberrors): a device the
adb server says is gone is DeviceOffline whatever the stream, a stream that hung up or broke
is the stream's kind (DeviceOffline to adbd, U2ServerGone to the u2 server's port), a
timeout is a plain DeviceError, any other refusal a plain DeviceError."""

from __future__ import annotations

import pytest
from adbutils.errors import AdbError, AdbTimeout
from uiautomator2.exceptions import ConnectError

from omg_agent.drivers.adberrors import adb_error, adb_errors
from omg_agent.errors import DeviceError, DeviceOffline, U2ServerGone

GONE = ["device offline", "device 'emulator-5554' not found", "no devices/emulators found",
        "device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set"]


@pytest.mark.parametrize("reason", GONE)
@pytest.mark.parametrize("stream", [DeviceOffline, U2ServerGone])
def test_a_device_the_adb_server_calls_gone_is_offline_on_any_stream(reason, stream) -> None:
    error = adb_error(AdbError(reason), serial="S1", command="screencap", stream=stream)
    assert type(error) is DeviceOffline
    assert (error.serial, error.command) == ("S1", "screencap")


@pytest.mark.parametrize("exc", [AdbError("closed"), AdbError("Unknown data: b''"),
                                 ConnectionResetError(104, "Connection reset by peer")])
def test_a_stream_that_hung_up_is_the_streams_kind(exc) -> None:
    assert type(adb_error(exc, serial="S1", command="ls")) is DeviceOffline
    assert type(adb_error(exc, serial="S1", command="deviceInfo",
                          stream=U2ServerGone)) is U2ServerGone


@pytest.mark.parametrize("exc", [TimeoutError("timed out"), AdbTimeout("adb read timeout"),
                                 AdbError("unknown service foo")])
def test_a_timeout_or_another_refusal_is_a_plain_device_error(exc) -> None:
    for stream in (DeviceOffline, U2ServerGone):
        assert type(adb_error(exc, serial="S1", command="x", stream=stream)) is DeviceError


def test_the_block_form_maps_a_clients_own_error_by_the_reason_it_carries() -> None:
    client_errors = (ConnectError, AdbError, OSError)
    with pytest.raises(DeviceOffline, match=r"S1: .*device offline \(command: app_start\)") \
            as info, adb_errors("S1", "app_start", catch=client_errors):
        raise ConnectError("adb: device offline")
    assert isinstance(info.value.__cause__, ConnectError)


def test_the_block_form_leaves_other_errors_alone() -> None:
    with pytest.raises(KeyError), adb_errors("S1", "x"):
        raise KeyError("not an adb failure")
