#!/usr/bin/env python3
"""Drive a vphone through Midscene Android's ``AndroidDevice`` API (no model), call by call.

Midscene (npm ``@midscene/android``, pinned) is installed on demand with npm into its own
folder under /tmp — never into the repo — and ``midscene_device.mjs`` runs there with Node
against a fresh vphone. Prints one line per call: ok, FAILED and why, or "real phone only" and
why. Exit status: 0 when every call is ok or real-phone-only, 1 otherwise.

Usage: .venv/bin/python scripts/peers/midscene_check.py [--home DIR] [--version V]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from peer_harness import report, run_on_vphone

HERE = Path(__file__).resolve().parent
MIDSCENE_VERSION = "1.7.3"
DEFAULT_HOME = Path("/tmp/omg-peers/midscene")


def ensure_midscene(home: Path, version: str) -> None:
    """``npm install @midscene/android@VERSION`` in ``home`` unless that version is there."""
    installed = home / "node_modules" / "@midscene" / "android" / "package.json"
    if installed.exists() and f'"version": "{version}"' in installed.read_text():
        return
    print(f"installing @midscene/android@{version} into {home}", flush=True)
    home.mkdir(parents=True, exist_ok=True)
    if not (home / "package.json").exists():
        subprocess.run(["npm", "init", "-y"], cwd=home, check=True, capture_output=True)
    subprocess.run(["npm", "install", "--no-audit", "--no-fund",
                    f"@midscene/android@{version}"], cwd=home, check=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, default=DEFAULT_HOME)
    parser.add_argument("--version", default=MIDSCENE_VERSION)
    args = parser.parse_args()
    ensure_midscene(args.home, args.version)
    env = {**os.environ, "MIDSCENE_HOME": str(args.home)}
    rows = run_on_vphone(["node", str(HERE / "midscene_device.mjs")], env=env)
    return report(f"Midscene Android {args.version} (AndroidDevice)", rows)


if __name__ == "__main__":
    sys.exit(main())
