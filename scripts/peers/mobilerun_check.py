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
import sys
from pathlib import Path

from peer_harness import ensure_venv, report, run_on_vphone

HERE = Path(__file__).resolve().parent
MOBILERUN_VERSION = "0.7.4"
DEFAULT_VENV = Path("/tmp/omg-peers/mobilerun")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=DEFAULT_VENV)
    parser.add_argument("--version", default=MOBILERUN_VERSION)
    args = parser.parse_args()
    python = ensure_venv(args.venv, "mobilerun_core_local", [f"mobilerun=={args.version}"])
    rows = run_on_vphone([str(python), str(HERE / "mobilerun_calls.py")])
    return report(f"mobilerun {args.version}", rows)


if __name__ == "__main__":
    sys.exit(main())
