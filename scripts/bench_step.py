#!/usr/bin/env python3
"""Per-step cost, peer pipeline vs the adb and u2 drivers, on a latency-profile vphone.

Same as `omg-agent bench step`: python scripts/bench_step.py [--steps 15] [--json]
"""

from omg_agent.cli.bench import app

if __name__ == "__main__":
    app(["step", *__import__("sys").argv[1:]])
