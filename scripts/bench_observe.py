#!/usr/bin/env python3
"""Same as `omg-agent bench observe`: python scripts/bench_observe.py [--steps 30]."""

from omg_agent.cli.bench import app

if __name__ == "__main__":
    app(["observe", *__import__("sys").argv[1:]])
