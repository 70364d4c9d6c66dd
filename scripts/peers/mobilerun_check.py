#!/usr/bin/env python3
"""Drive a vphone through mobilerun's own ADB-only device driver and report every call.

Installs mobilerun (PyPI ``mobilerun``, pinned) into its own venv under /tmp — never into the
project's — starts a vphone connected to the adb server, and runs ``mobilerun_calls.py`` with
the peer's Python. Prints one line per call: ok, FAILED and why, or "real phone only" and why.
Exit status: 0 when every call is ok or real-phone-only, 1 otherwise.

Usage: .venv/bin/python scripts/peers/mobilerun_check.py [--venv DIR] [--version V]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import venv
from pathlib import Path

from omg_agent.vphone import adbhost
from omg_agent.vphone.phone import VirtualPhone

HERE = Path(__file__).resolve().parent
MOBILERUN_VERSION = "0.7.4"
DEFAULT_VENV = Path("/tmp/omg-peers/mobilerun")
CALLS_TIMEOUT_S = 600


def ensure_venv(where: Path, version: str) -> Path:
    """The peer venv's python, creating the venv and installing mobilerun if needed."""
    python = where / "bin" / "python"
    probe = [str(python), "-c", "import mobilerun_core_local"] if python.exists() else None
    if probe is None or subprocess.run(probe, capture_output=True).returncode != 0:
        print(f"installing mobilerun=={version} into {where} (a few minutes)", flush=True)
        venv.create(where, with_pip=True, clear=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q",
                        f"mobilerun=={version}"], check=True)
    return python


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=DEFAULT_VENV)
    parser.add_argument("--version", default=MOBILERUN_VERSION)
    args = parser.parse_args()
    python = ensure_venv(args.venv, args.version)
    phone = VirtualPhone()
    server = phone.serve()
    serial = adbhost.connect("127.0.0.1", server.port)
    rows = []
    try:
        proc = subprocess.run([str(python), str(HERE / "mobilerun_calls.py"), serial],
                              capture_output=True, text=True, timeout=CALLS_TIMEOUT_S,
                              stdin=subprocess.DEVNULL)
        rows = [json.loads(line) for line in proc.stdout.splitlines()
                if line.startswith("{")]
        if proc.returncode != 0:
            tail = proc.stderr.strip().splitlines()[-1:] or ["no output"]
            rows.append({"call": "the call script", "ok": False,
                         "detail": f"exited {proc.returncode}: {tail[0]}"})
    finally:
        adbhost.disconnect(serial)
        phone.close()
    for row in rows:
        mark = {True: "ok", False: "FAILED"}.get(row["ok"], row["ok"])
        print(f"{mark:16} {row['call']}" + (f" — {row['detail']}" if row["detail"] else ""))
    bad = [r for r in rows if r["ok"] is False]
    print(f"mobilerun {args.version}: {len(rows) - len(bad)}/{len(rows)} calls ok or "
          f"real-phone-only")
    return 1 if bad or not rows else 0


if __name__ == "__main__":
    sys.exit(main())
