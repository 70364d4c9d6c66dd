#!/usr/bin/env python3
"""Drive a vphone through Open-AutoGLM's own ADB layer (``phone_agent.adb``), call by call.

Open-AutoGLM is not on PyPI: its source is a checkout of its repository (zai-org/Open-AutoGLM,
formerly THUDM/Open-AutoGLM) outside this repo — never copied in — passed as ``--src`` (default
/tmp/omg-peers/autoglm/src). Its requirements.txt is installed into its own venv under /tmp
(never the project's), and ``autoglm_calls.py`` runs with that Python and the checkout on
PYTHONPATH against a fresh vphone. Prints one line per call: ok, FAILED and why, or "real phone
only" and why. Exit status: 0 when every call is ok or real-phone-only, 1 otherwise (also when
the checkout is missing).

Usage: .venv/bin/python scripts/peers/autoglm_check.py [--src DIR] [--venv DIR]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from peer_harness import ensure_venv, report, run_on_vphone

HERE = Path(__file__).resolve().parent
DEFAULT_SRC = Path("/tmp/omg-peers/autoglm/src")
DEFAULT_VENV = Path("/tmp/omg-peers/autoglm/venv")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", type=Path, default=DEFAULT_SRC)
    parser.add_argument("--venv", type=Path, default=DEFAULT_VENV)
    args = parser.parse_args()
    src = args.src.resolve()
    if not (src / "phone_agent" / "adb" / "__init__.py").exists():
        print(f"no Open-AutoGLM checkout at {src}: clone its repository there or pass --src",
              file=sys.stderr)
        return 1
    python = ensure_venv(args.venv, "openai, PIL", ["-r", str(src / "requirements.txt")])
    env = {**os.environ, "PYTHONPATH": str(src)}
    rows = run_on_vphone([str(python), str(HERE / "autoglm_calls.py")], env=env)
    return report("Open-AutoGLM phone_agent.adb", rows)


if __name__ == "__main__":
    sys.exit(main())
