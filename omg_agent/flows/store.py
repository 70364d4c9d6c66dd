"""Flows on disk: one folder per entry, every version kept, written atomically.

A :class:`FlowStore` keeps named entries under a root folder: ``<root>/<key>/v<N>.yaml``
(the flow, as :func:`~.write.dump_flow` writes it) and ``<root>/<key>/meta.json`` (what
the entry is for and how it has fared: app, device profile, app versions, current version,
hits, failures, retired). Keys are built from what the caller files an entry under (app,
device profile, name — or the replay cache's task key) so the store itself stays generic.
Every file is written with :func:`write_atomic` (temp file, fsync, rename): a crash leaves
the old version or the new one, never half of either.
"""

from __future__ import annotations

import json
import logging
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omg_agent import durable
from omg_agent.errors import FlowError
from omg_agent.flows.model import Flow
from omg_agent.flows.parse import load_flow
from omg_agent.flows.write import dump_flow
from omg_agent.userfiles import read_text

log = logging.getLogger(__name__)
META = "meta.json"


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the whole new one (the
    one rule, :func:`omg_agent.durable.write_atomic`; the folder is made first)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    durable.write_atomic(path, text)


def _disk_said(exc: BaseException) -> None:
    """A file the disk could not read (EIO, …) is disk trouble, raised as the disk's
    ``OSError`` (issue 38: one rule for every store); an unreadable one is a missing entry."""
    cause = durable.disk_cause(exc.__cause__) if exc.__cause__ is not None else None
    if cause is not None:
        raise cause


def slug(*parts: str) -> str:
    """A folder name for ``parts``: lower-case letters, digits and dashes (CJK kept)."""
    text = "--".join(p for p in parts if p)
    text = re.sub(r"[^\w]+", "-", text.lower(), flags=re.UNICODE).strip("-_")
    return text[:120] or "flow"


@dataclass(frozen=True)
class Entry:
    key: str
    flow: Flow
    meta: dict[str, Any]
    path: Path  # the current version's file

    @property
    def version(self) -> int:
        return int(self.meta.get("current", 0))


class FlowStore:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def put(self, key: str, flow: Flow, **meta: Any) -> Entry:
        """Save ``flow`` as the next version of ``key`` (un-retiring it); ``meta`` fields
        are merged into the entry's metadata."""
        folder = self.root / key
        old = self._meta(key) or {"key": key, "created": time.time(), "hits": 0,
                                  "failures": 0}
        version = int(old.get("latest", 0)) + 1
        path = folder / f"v{version}.yaml"
        write_atomic(path, dump_flow(flow))
        new = {**old, **meta, "latest": version, "current": version, "retired": False,
               "updated": time.time()}
        write_atomic(folder / META, json.dumps(new, ensure_ascii=False, indent=2) + "\n")
        log.info("flow store: %s v%d saved", key, version)
        return Entry(key, flow, new, path)

    def get(self, key: str, *, retired: bool = False) -> Entry | None:
        """The current version of ``key`` (``None``: no such entry, or retired)."""
        meta = self._meta(key)
        if meta is None or (meta.get("retired") and not retired):
            return None
        path = self.root / key / f"v{meta['current']}.yaml"
        try:
            flow = load_flow(path)
        except FlowError as exc:
            _disk_said(exc)
            log.warning("flow store: %s unreadable (%s); treated as missing", key, exc)
            return None
        return Entry(key, flow, meta, path)

    def update(self, key: str, **changes: Any) -> dict[str, Any]:
        meta = self._meta(key)
        if meta is None:
            raise FlowError(f"no stored flow {key!r}")
        meta = {**meta, **changes, "updated": time.time()}
        write_atomic(self.root / key / META, json.dumps(meta, ensure_ascii=False,
                                                          indent=2) + "\n")
        return meta

    def retire(self, key: str, reason: str) -> None:
        """Stop offering ``key`` (its files stay, for a look at what went wrong)."""
        meta = self._meta(key) or {}
        self.update(key, retired=True, retired_because=reason,
                    failures=int(meta.get("failures", 0)) + 1)
        log.info("flow store: %s retired: %s", key, reason)

    def entries(self) -> list[dict[str, Any]]:
        if not self.root.is_dir():
            return []
        found = (self._meta(p.name) for p in sorted(self.root.iterdir()) if p.is_dir())
        return [m for m in found if m is not None]

    def _meta(self, key: str) -> dict[str, Any] | None:
        path = self.root / key / META
        if not path.exists():
            return None
        try:  # read within the same limits as any flow file
            data = json.loads(read_text(path, "flow cache entry", error=FlowError))
        except (FlowError, ValueError, RecursionError) as exc:
            _disk_said(exc)
            log.warning("flow store: %s unreadable (%s)", path, exc)
            return None
        return data if isinstance(data, dict) else None
