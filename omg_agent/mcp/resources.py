"""The MCP server's resources (issues 28 and 37): the recent runs, each run's compact text
summary, and its HTML report.

``omg://runs`` lists the newest runs with only what can then be read: a run's summary is
offered once it has a result, its report once the report is written — never a link the
server then refuses. Every text passes :func:`~omg_agent.mcp.words.text` (no
self-approval recipe: a report written for the terminal says "--resume … --answer yes").
"""

from __future__ import annotations

import json
from pathlib import Path

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError

from omg_agent.errors import OmgError
from omg_agent.mcp import words
from omg_agent.mcp.server import MAX_RUNS_LISTED, Hub

MAX_DONE_LINES = 12  # lines of "what was done" a summary shows


def register_resources(server: MCPServer, hub: Hub) -> None:
    """Add the run resources to ``server``."""

    @server.resource("omg://runs", mime_type="application/json")
    def recent_runs() -> str:
        """The most recent runs: name, status, task, and the summary and report to read
        (newest first; a link only where there is something to read)."""
        return words.text(json.dumps(listing(hub.settings.runs_dir), ensure_ascii=False))

    @server.resource("omg://runs/{name}/summary", mime_type="text/plain")
    def run_summary(name: str) -> str:
        """A run in a few lines: task, outcome, answer, what was done, why it stopped."""
        return words.text(summary(_run(hub, name)))

    @server.resource("omg://runs/{name}/report", mime_type="text/html")
    def run_report(name: str) -> str:
        """A run's HTML report."""
        path = _run(hub, name) / "report.html"
        if not path.is_file():
            raise ResourceError(f"run {name} has no report yet: read omg://runs/{name}/summary")
        return words.text(path.read_text(encoding="utf-8"))


def _run(hub: Hub, name: str) -> Path:
    try:
        return hub.run_dir(name, holds="trace.jsonl")
    except OmgError as exc:
        raise ResourceError(str(exc)) from None


def _result(run: Path) -> dict[str, object] | None:
    try:
        found = json.loads((run / "result.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def listing(root: Path) -> list[dict[str, object]]:
    """The rows of ``omg://runs``: the newest :data:`MAX_RUNS_LISTED` runs of ``root``."""
    dirs = sorted((d for d in root.iterdir() if (d / "trace.jsonl").is_file()),
                  reverse=True) if root.is_dir() else []
    rows: list[dict[str, object]] = []
    for run in dirs[:MAX_RUNS_LISTED]:
        result = _result(run)
        row: dict[str, object] = {"run": run.name, "status": (result or {}).get(
            "status", "running or interrupted"), "task": (result or {}).get("task")}
        row["summary"] = f"omg://runs/{run.name}/summary"
        if (run / "report.html").is_file():
            row["report"] = f"omg://runs/{run.name}/report"
        rows.append(row)
    return rows


def summary(run: Path) -> str:
    """A run as a few lines of text (:func:`omg_agent.trace.summary.summarize`'s words)."""
    from omg_agent.trace.loader import load_trace
    from omg_agent.trace.summary import summarize

    result = _result(run) or {}
    try:
        s = summarize(load_trace(run))
    except (OmgError, OSError) as exc:
        raise ResourceError(f"run {run.name}: its trace cannot be read ({exc})") from None
    lines = [f"run {run.name}: {s.outcome}", f"task: {result.get('task') or '?'}"]
    lines += [f"{label}: {value}" for label, value in (
        ("answer", s.answer), ("question", s.question), ("why it stopped", s.stopped_because),
        ("what next", s.next_hint)) if value]
    if s.done:
        lines.append("done:")
        lines += [f"- {d}" for d in s.done[:MAX_DONE_LINES]]
        if len(s.done) > MAX_DONE_LINES:
            lines.append(f"- … {len(s.done) - MAX_DONE_LINES} more")
    lines.append(s.counts_line())
    return "\n".join(lines)
