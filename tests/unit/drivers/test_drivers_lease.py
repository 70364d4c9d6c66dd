"""Device leases: one holder per phone (by identity, not spelling), the holder named to
whoever is refused, queueing with a deadline, and the kernel freeing a dead holder's lease."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from omg_agent.drivers.lease import DeviceLease, device_key, holder_of, lease_file
from omg_agent.errors import DeviceBusy, OmgError


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "omg-agent" / "leases"


def test_one_phone_is_one_key_however_its_serial_is_spelled() -> None:
    same = {device_key(s) for s in ("127.0.0.1:5555", "localhost:5555", "[::1]:5555",
                                    "emulator-5554")}
    assert same == {"127.0.0.1:5555"}
    assert device_key("127.0.0.1:5557") != device_key("127.0.0.1:5555")
    assert device_key("R58M12ABCDE") == "R58M12ABCDE"  # a USB serial is its identity
    assert device_key("phone.lan:5555", resolve=lambda host: "192.168.1.7") == \
        "192.168.1.7:5555"


def test_a_second_driver_is_refused_naming_the_holder(root: Path) -> None:
    first = DeviceLease("127.0.0.1:5555", root, what="omg-agent run 'Like the posts'")
    with first:
        first.note("runs/20261126-120000-like-the-posts")
        with pytest.raises(DeviceBusy) as refused:
            DeviceLease("localhost:5555", root, what="omg-agent tap").acquire()
        message = str(refused.value)
        assert message == ("device localhost:5555 is busy: omg-agent run 'Like the posts' "
                           f"(pid {os.getpid()}, run folder "
                           "runs/20261126-120000-like-the-posts) is driving it")
        assert refused.value.pid == os.getpid()
        holder = holder_of("emulator-5554", root)
        assert holder is not None and holder.what == "omg-agent run 'Like the posts'"
    assert holder_of("127.0.0.1:5555", root) is None
    with DeviceLease("127.0.0.1:5555", root, what="omg-agent key"):  # free again
        pass
    assert lease_file(root, "127.0.0.1:5555").read_bytes() == b""  # no stale holder left


def test_a_waiting_driver_gets_the_phone_when_the_holder_lets_go(root: Path) -> None:
    holder = DeviceLease("R58M", root, what="omg-agent mirror").acquire()
    clock = [0.0]
    told: list[str] = []

    def sleep(seconds: float) -> None:  # the holder lets go while the waiter sleeps
        clock[0] += seconds
        if clock[0] >= 1.0:
            holder.release()

    waiter = DeviceLease("R58M", root, what="omg-agent run", sleep=sleep,
                         clock=lambda: clock[0])
    waiter.acquire(wait_s=float("inf"), on_wait=lambda h: told.append(h.what))
    assert waiter.held and told == ["omg-agent mirror"]  # told once, not per poll
    waiter.release()


def test_a_wait_with_a_deadline_ends_refused_saying_how_long(root: Path) -> None:
    clock = [0.0]
    with DeviceLease("R58M", root, what="omg-agent flow run like.yaml"):
        waiter = DeviceLease("R58M", root, what="omg-agent run",
                             sleep=lambda s: clock.__setitem__(0, clock[0] + s),
                             clock=lambda: clock[0])
        with pytest.raises(DeviceBusy, match=r"flow run like.yaml .* \(waited 5 s\)"):
            waiter.acquire(wait_s=5)
    assert 5 <= clock[0] < 6


def test_a_killed_holder_frees_the_lease(root: Path) -> None:
    code = textwrap.dedent(f"""
        from pathlib import Path
        from omg_agent.drivers.lease import DeviceLease
        lease = DeviceLease("127.0.0.1:5555", Path({str(root)!r}), what="holder").acquire()
        print("held", flush=True)
        input()
    """)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    with subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True, env=env) as proc:
        try:
            assert proc.stdout is not None and proc.stdout.readline() == "held\n"
            with pytest.raises(DeviceBusy, match=f"holder \\(pid {proc.pid}\\)"):
                DeviceLease("127.0.0.1:5555", root, what="second").acquire()
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
    with DeviceLease("127.0.0.1:5555", root, what="second") as lease:
        assert lease.held


def test_a_lease_folder_open_to_others_is_refused(root: Path) -> None:
    root.mkdir(parents=True)
    root.chmod(0o777)
    with pytest.raises(OmgError, match="not a private folder"):
        DeviceLease("R58M", root, what="omg-agent run").acquire()
