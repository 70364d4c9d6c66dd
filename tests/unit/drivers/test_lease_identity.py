"""Every name of one phone keys one lease (issue 38): unspecified addresses (0.0.0.0, ::),
loopback names, this host's own name, and two serials whose phone answers one
``ro.serialno``; and the lease folder is the same whatever the environment says."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from omg_agent.drivers.lease import (
    DeviceLease,
    default_lease_dir,
    device_key,
    holder_of,
    lease_keys,
    serialno_of,
)
from omg_agent.errors import DeviceBusy


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "omg-agent" / "leases"


class FakeAdb:
    """An adb server's answers to ``getprop ro.serialno``: serial → serial number (a
    serial it does not know raises, as adbutils does)."""

    def __init__(self, answers: dict[str, str]) -> None:
        self.answers = answers

    def device(self, serial: str) -> FakeAdb.Device:
        return FakeAdb.Device(self.answers, serial)

    class Device:
        def __init__(self, answers: dict[str, str], serial: str) -> None:
            self.answers, self.serial = answers, serial

        def shell(self, cmd: str, timeout: float | None = None) -> str:
            assert cmd == "getprop ro.serialno"
            if self.serial not in self.answers:
                raise RuntimeError(f"device '{self.serial}' not found")
            return self.answers[self.serial] + "\n"


def test_unspecified_and_loopback_spellings_of_one_port_are_one_key() -> None:
    spellings = ("127.0.0.1:5555", "0.0.0.0:5555", "[::]:5555", "localhost:5555",
                 "[::1]:5555", "[::ffff:127.0.0.1]:5555", f"{socket.gethostname()}:5555")
    assert {device_key(s) for s in spellings} == {"127.0.0.1:5555"}
    assert device_key("0.0.0.0:5556") != device_key("0.0.0.0:5555")


def test_a_lease_taken_as_0000_refuses_localhost(root: Path) -> None:
    with DeviceLease("0.0.0.0:5555", root, what="omg-agent run 'Like posts'"), \
            pytest.raises(DeviceBusy, match="omg-agent run 'Like posts'"):
        DeviceLease("localhost:5555", root, what="omg-agent flow run").acquire()
    with DeviceLease("[::]:5555", root, what="omg-agent run"), \
            pytest.raises(DeviceBusy):
        DeviceLease("127.0.0.1:5555", root, what="omg-agent tap").acquire()


def test_two_serials_of_one_serial_number_are_one_phone(root: Path) -> None:
    adb = FakeAdb({"192.168.1.7:5555": "R58M12ABCDE", "R58M12ABCDE": "R58M12ABCDE",
                   "10.0.0.9:5555": "OTHERPHONE"})
    wifi = lease_keys("192.168.1.7:5555", serialno_of("192.168.1.7:5555", adb))
    usb = lease_keys("R58M12ABCDE", serialno_of("R58M12ABCDE", adb))
    assert set(wifi) & set(usb) == {"R58M12ABCDE"}
    with DeviceLease("192.168.1.7:5555", root, what="omg-agent run 'Turn off Wi-Fi'",
                     keys=wifi):
        with pytest.raises(DeviceBusy, match="Turn off Wi-Fi"):
            DeviceLease("R58M12ABCDE", root, what="omg-agent tap", keys=usb).acquire()
        # a phone that does not answer still collides on its USB serial
        with pytest.raises(DeviceBusy):
            DeviceLease("R58M12ABCDE", root, what="omg-agent tap",
                        keys=lease_keys("R58M12ABCDE", None)).acquire()
        assert holder_of("R58M12ABCDE", root, usb) is not None
        other = lease_keys("10.0.0.9:5555", serialno_of("10.0.0.9:5555", adb))
        with DeviceLease("10.0.0.9:5555", root, what="omg-agent run", keys=other) as lease:
            assert lease.held  # another phone is free
    with DeviceLease("R58M12ABCDE", root, what="omg-agent tap", keys=usb) as lease:
        assert lease.held  # released: every key free again
    assert serialno_of("unknown:5555", adb) is None


def test_the_lease_folder_does_not_follow_the_environment(tmp_path: Path) -> None:
    """A holder started with XDG_RUNTIME_DIR (a login shell) and one without it (cron,
    sudo, a service unit) lock in the same folder."""
    serial = f"LEASETEST{uuid.uuid4().hex[:12].upper()}"
    code = textwrap.dedent(f"""
        from omg_agent.drivers.lease import DeviceLease, default_lease_dir
        lease = DeviceLease({serial!r}, default_lease_dir(), what="login shell").acquire()
        print(default_lease_dir(), flush=True)
        input()
    """)
    repo = str(Path(__file__).resolve().parents[3])
    env = {**os.environ, "PYTHONPATH": repo, "XDG_RUNTIME_DIR": str(tmp_path)}
    with subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True, env=env) as proc:
        try:
            assert proc.stdout is not None
            assert Path(proc.stdout.readline().strip()) == default_lease_dir()
            with pytest.raises(DeviceBusy, match=f"login shell \\(pid {proc.pid}\\)"):
                DeviceLease(serial, default_lease_dir(), what="cron job").acquire()
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
    assert default_lease_dir() == Path("/tmp") / f"omg-agent-{os.getuid()}" / "leases"


@pytest.mark.skipif(os.getuid() != 0 or shutil.which("setpriv") is None,
                    reason="running a process as another user needs root and setpriv")
def test_root_under_sudo_locks_in_the_folder_of_the_user_who_ran_sudo(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``sudo omg-agent run`` beside the same user's ``omg-agent run`` (started with or
    without XDG_RUNTIME_DIR): one folder, so the second is refused — and a folder root made
    first stays the user's, whose own runs can still take its leases."""
    user = 40000 + uuid.uuid4().int % 20000  # a user with no lease folder yet
    serial = f"SUDOTEST{uuid.uuid4().hex[:12].upper()}"
    monkeypatch.setenv("SUDO_UID", str(user))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    folder = default_lease_dir()
    assert folder == Path("/tmp") / f"omg-agent-{user}" / "leases"
    code = textwrap.dedent(f"""
        from omg_agent.drivers.lease import DeviceLease, default_lease_dir
        print(default_lease_dir(), flush=True)
        DeviceLease({serial!r}, default_lease_dir(), what="user's run").acquire(
            wait_s=60, on_wait=lambda h: print("waits for", h.what, flush=True))
        print("held", flush=True)
    """)
    env = {k: v for k, v in os.environ.items() if k != "SUDO_UID"}
    env |= {"PYTHONPATH": str(Path(__file__).resolve().parents[3]),
            "XDG_RUNTIME_DIR": f"/run/user/{user}", "HOME": "/"}
    lease = DeviceLease(serial, folder, what="sudo omg-agent run").acquire()  # root made it
    try:
        assert folder.stat().st_uid == folder.parent.stat().st_uid == user
        as_user = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups"]
        with subprocess.Popen([*as_user, sys.executable, "-c", code], env=env, cwd="/",
                              stdout=subprocess.PIPE, text=True) as proc:
            assert proc.stdout is not None
            said = [proc.stdout.readline().strip(), proc.stdout.readline().strip()]
            lease.release()  # the user's run, waiting, takes it from here
            if not said[0]:
                pytest.skip("Python cannot start as another user here")
            assert said == [str(folder), "waits for sudo omg-agent run"]
            assert proc.stdout.read().strip() == "held"
        assert proc.returncode == 0
    finally:
        lease.release()
        shutil.rmtree(folder.parent, ignore_errors=True)
