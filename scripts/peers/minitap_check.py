#!/usr/bin/env python3
"""Drive a vphone through minitap's own Android controller and report every call.

minitap (PyPI ``minitap-mobile-use``, pinned) needs Python 3.12 for its agent (PEP 695
generics in its SDK and LLM service); its controller, ``AndroidDeviceController``, and the
uiautomator2 client under it run on 3.11. So its venv under /tmp (never the project's) gets the
wheel with ``--no-deps --ignore-requires-python`` plus what the controller imports: adbutils
(minitap's pin), uiautomator2, Pillow, pydantic, colorama. ``minitap_calls.py`` then runs with
the peer's Python against a fresh vphone. Prints one line per call: ok, FAILED and why, or
"real phone only" and why. Exit status: 0 when every call is ok or real-phone-only, 1 otherwise.

Usage: .venv/bin/python scripts/peers/minitap_check.py [--venv DIR] [--version V]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from peer_harness import ensure_venv, report, run_on_vphone

HERE = Path(__file__).resolve().parent
MINITAP_VERSION = "4.0.0"
CONTROLLER_NEEDS = ["adbutils==2.9.3", "uiautomator2", "pillow", "pydantic", "colorama"]
DEFAULT_VENV = Path("/tmp/omg-peers/minitap")
CONTROLLER = "minitap.mobile_use.controllers.android_controller"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=DEFAULT_VENV)
    parser.add_argument("--version", default=MINITAP_VERSION)
    args = parser.parse_args()
    python = ensure_venv(args.venv, CONTROLLER, CONTROLLER_NEEDS)
    if subprocess.run([str(python), "-c", f"import {CONTROLLER}"],
                      capture_output=True).returncode != 0:
        subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps",
                        "--ignore-requires-python", f"minitap-mobile-use=={args.version}"],
                       check=True)
    rows = run_on_vphone([str(python), str(HERE / "minitap_calls.py")])
    return report(f"minitap-mobile-use {args.version} (AndroidDeviceController)", rows)


if __name__ == "__main__":
    sys.exit(main())
