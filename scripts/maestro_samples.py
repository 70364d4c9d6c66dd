"""Peer check: parse Maestro's own sample flows with ``omg_agent.flows.parse``.

Reads every flow file of Maestro's sample folders (``e2e/workspaces`` and ``recipes``) from a
clone of github.com/mobile-dev-inc/maestro — a work tree, or a bare git directory (read at
HEAD with ``git show``) — and prints a Markdown table: each file parsed, or refused with the
first reason. Nothing of Maestro is copied into this repository; the table in
docs/guide/flows.md was made by:

    python scripts/maestro_samples.py /path/to/maestro [--json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

from omg_agent.errors import FlowError
from omg_agent.flows.parse import parse_flow

SAMPLES = ("e2e/workspaces/", "recipes/")
NOT_FLOWS = ("config.yaml", "config.yml")  # a workspace's settings, not a flow


def sample_files(repo: Path) -> dict[str, str]:
    """path -> text of each sample flow file, from a work tree or a bare git directory."""
    if (repo / "e2e").is_dir():
        paths = sorted(str(p.relative_to(repo)) for p in repo.rglob("*.y*ml"))
        read = lambda path: (repo / path).read_text(encoding="utf-8")  # noqa: E731
    else:
        listing = subprocess.run(["git", "--git-dir", str(repo), "ls-tree", "-r",
                                  "--name-only", "HEAD"], capture_output=True, text=True,
                                 check=True).stdout.split()
        paths = sorted(listing)
        read = lambda path: subprocess.run(  # noqa: E731
            ["git", "--git-dir", str(repo), "show", f"HEAD:{path}"], capture_output=True,
            text=True, check=True).stdout
    return {p: read(p) for p in paths if p.startswith(SAMPLES)
            and p.endswith((".yaml", ".yml")) and Path(p).name not in NOT_FLOWS}


def judge(path: str, text: str) -> tuple[str, str]:
    """("parsed", commands) or ("refused", the parser's one-line reason)."""
    try:
        flow = parse_flow(text, source=path)
    except FlowError as exc:
        return "refused", str(exc).removeprefix(f"{path}: ")
    return "parsed", f"{len(flow.commands)} commands"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path, help="Maestro's clone (work tree or bare .git)")
    parser.add_argument("--json", action="store_true", help="print JSON rows instead")
    args = parser.parse_args(argv)
    rows = [(path, *judge(path, text)) for path, text in sample_files(args.repo).items()]
    if args.json:
        print(json.dumps([{"file": f, "result": r, "detail": d} for f, r, d in rows],
                         ensure_ascii=False, indent=1))
        return 0
    counts = Counter(r for _, r, _ in rows)
    print(f"{len(rows)} sample flows: {counts['parsed']} parsed, {counts['refused']} refused\n")
    print("| file | result | detail |\n|---|---|---|")
    for file, result, detail in rows:  # the list of supported commands is in the guide
        short = detail.split("; supported:")[0].replace("|", "/")
        print(f"| `{file}` | {result} | {short} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
