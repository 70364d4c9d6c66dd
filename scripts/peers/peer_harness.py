"""What every peer check shares: its own venv, a fresh vphone, the call script, the report.

A peer's call script runs in the peer's own environment (its venv's Python, or Node) with the
vphone's serial as its last argument and prints one JSON line per call: ``{"call", "ok",
"detail"}`` where ``ok`` is true, false, or the string "real phone only". This module starts
the vphone (connected to the adb server, as a phone on Wi-Fi debugging would be), runs the
script, and prints the table; it never imports the peer.
"""

from __future__ import annotations

import json
import subprocess
import venv
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from omg_agent.vphone import adbhost
from omg_agent.vphone.phone import VirtualPhone

CALLS_TIMEOUT_S = 600


def ensure_venv(where: Path, probe: str, requirements: Sequence[str]) -> Path:
    """The venv's python; creates the venv and pip-installs ``requirements`` unless
    ``import probe`` already works in it."""
    python = where / "bin" / "python"
    if python.exists() and subprocess.run([str(python), "-c", f"import {probe}"],
                                          capture_output=True).returncode == 0:
        return python
    print(f"installing {' '.join(requirements)} into {where}", flush=True)
    venv.create(where, with_pip=True, clear=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", *requirements], check=True)
    return python


def run_on_vphone(command: Sequence[str], *, env: dict[str, str] | None = None,
                  timeout: float = CALLS_TIMEOUT_S) -> list[dict[str, Any]]:
    """Start a fresh vphone, run ``command + [serial]``, return its rows (plus one FAILED
    row for the script itself when it exits non-zero)."""
    phone = VirtualPhone()
    server = phone.serve()
    serial = adbhost.connect("127.0.0.1", server.port)
    try:
        proc = subprocess.run([*command, serial], capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL, env=env)
    finally:
        adbhost.disconnect(serial)
        phone.close()
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1:] or ["no output"]
        rows.append({"call": "the call script", "ok": False,
                     "detail": f"exited {proc.returncode}: {tail[0]}"})
    return rows


def report(peer: str, rows: list[dict[str, Any]]) -> int:
    """Print the table and the count; 0 when every call is ok or real-phone-only."""
    for row in rows:
        mark = {True: "ok", False: "FAILED"}.get(row["ok"], row["ok"])
        print(f"{mark:16} {row['call']}" + (f" — {row['detail']}" if row["detail"] else ""))
    bad = [r for r in rows if r["ok"] is False]
    phone_only = sum(1 for r in rows if r["ok"] not in (True, False))
    print(f"{peer}: {len(rows) - len(bad) - phone_only}/{len(rows)} ok, {phone_only} real "
          f"phone only, {len(bad)} failed")
    return 1 if bad or not rows else 0
