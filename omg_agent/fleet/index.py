"""``index.html`` in a fleet's output folder: one row per task, linking each attempt's
report, so a fleet's results open in a browser (``fleet.json`` holds the same records).

Paths in the records are relative to the folder, so the page works where it is and when the
folder is copied elsewhere. Every value is escaped: a task id or an error is text, never
markup.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

INDEX = "index.html"
_STYLE = ("body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse}"
          "td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}"
          ".done{color:#080}.failed{color:#b00}")


def _link(rel: str | None, label: str) -> str:
    if not rel:
        return html.escape(label)
    return f'<a href="{html.escape(quote(rel))}">{html.escape(label)}</a>'


def _row(record: dict[str, Any]) -> str:
    attempts = record.get("attempts") or []
    links = [_link(a.get("report") or a.get("trace_dir"),
                   f"attempt {a.get('attempt')} on {a.get('device') or '-'}: {a.get('status')}")
             for a in attempts] or ["never started"]
    mark = "done" if record.get("success") else "failed"
    cells = (html.escape(str(record.get("task_id", ""))),
             f'<span class="{mark}">{html.escape(str(record.get("status", "")))}</span>',
             "<br>".join(links), html.escape(str(record.get("error") or "")))
    return "<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"


def render_index(records: Sequence[dict[str, Any]], summary: dict[str, int]) -> str:
    """The page: the summary line, then a row per task (its reports linked)."""
    head = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in summary.items())
    rows = "\n".join(_row(r) for r in records)
    return ("<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Fleet results"
            f"</title><style>{_STYLE}</style></head><body>\n<h1>Fleet results</h1>\n"
            f"<p>{html.escape(head)} of {len(records)} tasks · "
            '<a href="fleet.json">fleet.json</a></p>\n<table><tr><th>task</th><th>status</th>'
            f"<th>reports</th><th>error</th></tr>\n{rows}\n</table></body></html>\n")


def write_index(folder: Path, records: Sequence[dict[str, Any]],
                summary: dict[str, int]) -> Path:
    """Write ``folder/index.html`` (whole or not at all) and return its path."""
    from omg_agent.durable import write_atomic

    path = folder / INDEX
    write_atomic(path, render_index(records, summary))
    return path


__all__ = ["INDEX", "render_index", "write_index"]
