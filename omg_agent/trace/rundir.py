"""Run folders: a new, empty folder per run (or per bench), claimed by ``mkdir`` itself so
concurrent runs started in the same second each get their own.
"""

from __future__ import annotations

import time
from pathlib import Path


def new_run_dir(base: Path, label: str = "run", *, now: float | None = None) -> Path:
    """A new, empty folder ``base/YYYYmmdd-HHMMSS-label[-k]`` for one run, made here (at
    local time ``now``, default the clock's), so two runs started in the same second never
    share one."""
    slug = "".join(c if c.isalnum() else "-" for c in label.lower())[:40].strip("-") or "run"
    return fresh_dir(base / (time.strftime("%Y%m%d-%H%M%S", time.localtime(now)) + "-" + slug))


def fresh_dir(stem: Path) -> Path:
    """Create ``stem``, or ``stem-2``, ``stem-3``, … — the first that did not exist. Each
    name is claimed by ``mkdir`` itself (it fails on an existing folder), never checked
    first and made later: concurrent callers each get their own folder."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    candidate, k = stem, 1
    while True:
        try:
            candidate.mkdir()
            return candidate
        except FileExistsError:
            k += 1
            candidate = stem.with_name(f"{stem.name}-{k}")
