#!/usr/bin/env python3
"""Drive a vphone through mobilerun's own ADB-only device driver and report every call.

Installs mobilerun's device layer into its own venv under /tmp — never into the project's —
starts a vphone connected to the adb server, and runs ``mobilerun_calls.py`` with the peer's
Python. mobilerun 0.7.4 (PyPI ``mobilerun``) keeps its ADB driver in its dependency
``mobilerun-core-local`` 0.7.1: that package alone installs in ~7 s, the whole agent (LLM
stacks included) in ~135 s; ``--full`` installs the whole agent, the same driver code.
Prints one line per call: ok, FAILED and why, or "real phone only" and why.
Exit status: 0 when every call is ok or real-phone-only, 1 otherwise.

Usage: .venv/bin/python scripts/peers/mobilerun_check.py [--venv DIR] [--full]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from peer_harness import ensure_venv, report, run_on_vphone

HERE = Path(__file__).resolve().parent
MOBILERUN_VERSION = "0.7.4"
CORE_VERSION = "0.7.1"  # mobilerun 0.7.4's mobilerun-core-local: the ADB driver itself
DEFAULT_VENV = Path("/tmp/omg-peers/mobilerun-core")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=DEFAULT_VENV)
    parser.add_argument("--full", action="store_true",
                        help=f"install the whole agent (mobilerun=={MOBILERUN_VERSION})")
    args = parser.parse_args()
    wanted = (f"mobilerun=={MOBILERUN_VERSION}" if args.full
              else f"mobilerun-core-local=={CORE_VERSION}")
    python = ensure_venv(args.venv, "mobilerun_core_local", [wanted])
    rows = run_on_vphone([str(python), str(HERE / "mobilerun_calls.py")])
    return report(f"mobilerun {MOBILERUN_VERSION} (device layer: mobilerun-core-local "
                  f"{CORE_VERSION})", rows)


if __name__ == "__main__":
    sys.exit(main())
