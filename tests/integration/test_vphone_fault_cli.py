"""``omg-agent vphone fault KIND`` for every kind, now or at a given / random moment (issue
12, item 6): screen off at a seeded random moment, an adb server killed (a private one:
``--adb-port``), and bad moments named in the error."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from adbtools import poll

from omg_agent.bench.reliability import free_port, private_adb_server
from omg_agent.vphone import adbhost
from omg_agent.vphone.faults import FAULTS


def omg(*args: str, env: dict, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "omg_agent.cli", *args], capture_output=True,
                          text=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL)


def test_every_fault_kind_from_the_cli_at_a_random_or_given_moment(tmp_path):
    env = {**os.environ, "XDG_RUNTIME_DIR": str(tmp_path), "COLUMNS": "200"}
    port = free_port()
    started = omg("vphone", "start", "--port", str(port), env=env)
    assert started.returncode == 0, started.stdout + started.stderr

    def state() -> dict:
        return json.loads(omg("vphone", "state", "--port", str(port), env=env).stdout)

    try:
        helped = omg("vphone", "fault", "--help", env=env).stdout
        assert all(kind in helped for kind in ("screen_off", "adb_kill", "--within", "--at"))
        assert {"drop", "offline", "crash", "anr", "screen_off", "adb_kill"} <= set(FAULTS)

        later = omg("vphone", "fault", "screen_off", "--within", "1", "--seed", "4",
                    "--port", str(port), env=env)
        assert later.returncode == 0 and "screen_off scheduled in" in later.stdout
        assert poll(lambda: state()["screen"]["on"] is False, 15)
        assert state()["screen"]["locked"] is True

        with private_adb_server() as adb_port:
            assert adbhost.get_state(f"127.0.0.1:{port}", adb_port) != "device"  # not ours
            killed = omg("vphone", "fault", "adb_kill", "--at", "0", "--adb-port",
                         str(adb_port), "--port", str(port), "--yes", env=env)
            assert killed.returncode == 0, killed.stderr
            assert f"killed the adb server on port {adb_port}" in killed.stdout
            listing = subprocess.run(["adb", "-P", str(adb_port), "devices"],
                                     capture_output=True, text=True, timeout=30)
            assert "daemon not running" in listing.stdout + listing.stderr

        bad = omg("vphone", "fault", "anr", "--at", "-1", "--port", str(port), env=env)
        assert bad.returncode == 1 and "must be >= 0 seconds" in bad.stderr
    finally:
        omg("vphone", "stop", "--port", str(port), env=env)
