"""Run a vphone as a background process, and find running ones.

``omg-agent vphone start`` launches ``python -m omg_agent.vphone.daemon`` in its own session
and waits for it to write its record (ports, pid) into the run directory; ``state``,
``fault`` and ``stop`` read that record and talk to the control server it names; ``list``
shows every record whose process still runs.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from omg_agent.durable import write_atomic
from omg_agent.errors import OmgError


def run_dir() -> Path:
    base = Path(os.environ.get("XDG_RUNTIME_DIR") or Path.home() / ".cache")
    path = base / "omg-agent" / "vphones"
    path.mkdir(parents=True, exist_ok=True)
    return path


def record_path(port: int) -> Path:
    return run_dir() / f"{port}.json"


def read_record(port: int | None = None) -> dict:
    """The record of the vphone on ``port`` (or the only running one)."""
    if port is not None:
        path = record_path(port)
        if not path.exists():
            raise OmgError(f"no vphone is running on port {port} (start one with "
                           "`omg-agent vphone start`)")
        return json.loads(path.read_text())
    alive = list_records()
    if not alive:
        raise OmgError("no vphone is running (start one with `omg-agent vphone start`)")
    if len(alive) > 1:
        ports = ", ".join(str(r["port"]) for r in alive)
        raise OmgError(f"several vphones are running (ports {ports}): pass --port")
    return alive[0]


def list_records() -> list[dict]:
    """The records of the running vphones, by port; stale records (a dead pid) are removed."""
    alive = []
    for path in run_dir().glob("*.json"):
        try:
            record = json.loads(path.read_text())
        except (OSError, ValueError):
            continue  # being written (see serve_forever) or unreadable: not a running vphone
        pid = int(record.get("pid", 0))
        if pid > 0 and _alive(pid):
            alive.append(record)
        else:
            path.unlink(missing_ok=True)
    return sorted(alive, key=lambda r: int(r["port"]))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def control(record: dict, method: str, path: str, body: dict | None = None) -> dict:
    """Call the control server of the vphone ``record`` names; its JSON answer."""
    import urllib.error  # here: the CLI imports this module for every command
    import urllib.request

    url = f"http://127.0.0.1:{record['control_port']}{path}"
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        raise OmgError(json.loads(exc.read() or b"{}").get("error", str(exc))) from exc
    except urllib.error.URLError as exc:
        raise OmgError(f"vphone on port {record['port']} does not answer: {exc.reason}") from exc


def log_file_path(port: int) -> Path:
    """Where a background vphone on ``port`` writes its output (removed when it stops)."""
    return run_dir() / f"{port}.log"


def spawn(port: int, seed: int, profile: str, latency: bool, timeout: float = 30) -> dict:
    """Start a vphone daemon and wait for its record."""
    path = record_path(port)
    if path.exists():
        record = json.loads(path.read_text())
        if _alive(record["pid"]):
            raise OmgError(f"a vphone already runs on port {port} (pid {record['pid']})")
        path.unlink()
    log_path = log_file_path(port)
    args = [sys.executable, "-m", "omg_agent.vphone.daemon", "--port", str(port),
            "--seed", str(seed), "--profile", profile] + (["--latency"] if latency else [])
    with open(log_path, "wb") as log_file:  # one log per port: a new start begins it anew
        proc = subprocess.Popen(args, stdout=log_file, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            return json.loads(path.read_text())
        if proc.poll() is not None:
            tail = log_path.read_text(errors="replace")[-800:]
            raise OmgError(f"vphone exited with code {proc.returncode}:\n{tail}")
        time.sleep(0.05)
    proc.terminate()
    raise OmgError(f"vphone did not start within {timeout:g} s (log: {log_path})")


def serve_forever(port: int, seed: int, profile: str, latency: bool) -> None:
    from omg_agent.vphone.control import ControlServer
    from omg_agent.vphone.phone import VirtualPhone

    phone = VirtualPhone(profile, seed=seed, latency=latency)
    adbd = phone.serve(port=port)
    stop = threading.Event()
    control = ControlServer(phone, stop.set)
    control.start()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    adbd_port = adbd.port  # (not readable once the server is closed)
    record = {"port": adbd_port, "control_port": control.port, "pid": os.getpid(),
              "serial": f"127.0.0.1:{adbd.port}", "seed": seed, "profile": profile,
              "latency": latency}
    path = record_path(adbd.port)
    write_atomic(path, json.dumps(record), sync=False)  # a reader never sees half a record
    try:
        stop.wait()
    finally:
        path.unlink(missing_ok=True)
        control.stop()
        phone.close()
    log_file_path(adbd_port).unlink(missing_ok=True)  # a clean stop; a crash keeps its log


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="omg_agent.vphone.daemon")
    parser.add_argument("--port", type=int, default=5555)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--profile", default="default")
    parser.add_argument("--latency", action="store_true")
    ns = parser.parse_args(argv)
    serve_forever(ns.port, ns.seed, ns.profile, ns.latency)


if __name__ == "__main__":
    main()
