"""``bench suite --ray`` on a real two-node Ray cluster on this machine: four vphone slots
(two per node, each a custom resource of its node), the suite's 5 fastest tasks on the
expert double (8 until the suite outgrew its 15 minutes). Every task runs on the node that
owns its device, the scorecard is gathered on the driver, and a vphone stopped mid-run sends
its task to another device (both attempts' traces kept). Skipped only when Ray is not
installed (``omg-agent[ray]``)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from omg_agent.errors import OmgError
from omg_agent.vphone import daemon

try:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import ray
except ImportError:
    ray = None

pytestmark = [pytest.mark.skipif(ray is None, reason="Ray is not installed: pip install "
                                 "'omg-agent[ray]' runs this test"), pytest.mark.slow]

# The suite's 5 fastest tasks on the expert double (agent wall time, noise none).
FAST = ("feed.comment,notes.delete_missing,messages.no_conversation,"
        "settings.missing_option.zh,feed.like_post.zh")
NODES = {"head": ("vphone-a1", "vphone-a2"), "worker": ("vphone-b1", "vphone-b2")}
RAY = [sys.executable, "-c", "from ray.scripts.scripts import main; main()"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _ray(*args: str, env: dict[str, str]) -> None:
    proc = subprocess.run([*RAY, *args], capture_output=True, text=True, env=env, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]


@pytest.fixture
def cluster(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, dict[str, str]]]:
    """A head node and a second node, each offering two vphone slots; ``ray stop`` after."""
    scratch = Path(tempfile.mkdtemp(prefix="omgray", dir="/tmp"))  # short: Ray's socket paths
    (scratch / "xdg").mkdir()
    # the vphones publish their records here: the workers (children of the nodes) and this
    # test read the same folder
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(scratch / "xdg"))
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    port = _free_port()
    small = ["--num-cpus", "1", "--object-store-memory", "80000000"]
    address = f"127.0.0.1:{port}"
    try:
        _ray("start", "--head", "--port", str(port), *small, "--temp-dir", str(scratch / "r"),
             "--include-dashboard", "false", "--disable-usage-stats",
             "--resources", json.dumps({f"omg-device:{d}": 1 for d in NODES["head"]}), env=env)
        _ray("start", "--address", address, *small,
             "--resources", json.dumps({f"omg-device:{d}": 1 for d in NODES["worker"]}),
             env=env)
        yield address, env
    finally:
        subprocess.run([*RAY, "stop", "--force"], capture_output=True, env=env, timeout=120,
                       stdin=subprocess.DEVNULL)
        shutil.rmtree(scratch, ignore_errors=True)


def _owners(address: str) -> dict[str, str]:
    """device name -> the id of the node whose resources name it (read by this test)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ray.init(address=address, logging_level="ERROR", log_to_driver=False)
        try:
            return {key.split(":", 1)[1]: node["NodeID"] for node in ray.nodes()
                    if node["Alive"] for key in node["Resources"]
                    if key.startswith("omg-device:")}
        finally:
            ray.shutdown()


def _stop_one_on_worker(proc: subprocess.Popen[str]) -> dict[str, Any]:
    """Stop the first vphone that runs a task on the second node's slots, as soon as one
    does (``omg-agent vphone stop`` does the same through the vphone's control server)."""
    while proc.poll() is None:
        for record in daemon.list_records():
            if record.get("fleet_device") in NODES["worker"]:
                try:
                    daemon.control(record, "POST", "/stop")
                except OmgError:
                    continue  # finished between the listing and the stop: take the next
                return record
        time.sleep(0.02)
    raise AssertionError("the suite ended before a vphone ran on the second node")


def test_suite_on_two_ray_nodes_runs_each_task_on_its_devices_node_and_survives_a_drop(
        cluster: tuple[str, dict[str, str]], tmp_path: Path) -> None:
    address, env = cluster
    owners = _owners(address)
    assert sorted(owners) == sorted(NODES["head"] + NODES["worker"])
    out = tmp_path / "suite"
    proc = subprocess.Popen(
        [sys.executable, "-m", "omg_agent.cli", "bench", "suite", "--model", "sim",
         "--noise", "none", "--tasks", FAST, "--ray", address, "--json", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        stdin=subprocess.DEVNULL)
    stopped = _stop_one_on_worker(proc)
    stdout, stderr = proc.communicate(timeout=240)
    assert proc.returncode == 0, stderr[-3000:]
    card = json.loads(stdout)
    runs = card["runs"]
    assert sorted(r["task_id"] for r in runs) == sorted(FAST.split(","))
    assert all(r["success"] for r in runs), [(r["task_id"], r["status"]) for r in runs]
    for r in runs:
        for attempt in r["attempts"]:
            assert attempt["node"] == owners[attempt["device"]], (r["task_id"], attempt)
    retried = [r for r in runs if len(r["attempts"]) == 2]
    assert len(retried) == 1, [(r["task_id"], r["attempts"]) for r in runs]
    first, second = retried[0]["attempts"]
    assert (first["device"], first["lost"]) == (stopped["fleet_device"], True)
    assert second["device"] != first["device"] and second["success"]
    assert retried[0]["device"] == second["device"]
    for attempt in (first, second):  # both attempts' traces, gathered on the driver
        assert (out / attempt["trace_dir"] / "trace.jsonl").is_file()
    # the lost device is given no more work
    assert not any(a["device"] == first["device"] for r in runs for a in r["attempts"]
                   if a is not first)
    assert (out / "scorecard.html").is_file()
