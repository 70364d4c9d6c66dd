"""What a run did, in words for a person, and the one vocabulary of its counts.

Four words, used the same way by ``omg-agent run`` (its closing line and ``--json``), the
run's ``result.json`` and the HTML report:

* **budget step** — one unit of the step budget (``--max-steps``): every reply of the
  operator model or of a replan, and every bundle of actions run on the device
  (``budget_steps``; ``steps_used`` is the older name of the same count);
* **model call** — one request answered by a model, planner or operator (``model_calls``);
* **turn** — the operator looking at the screen once, deciding, and running what it decided
  (``turns``; one ``step`` line of ``trace.jsonl``; ``steps`` in ``result.json`` is its older
  name);
* **plan step** — one item of the plan's checklist (``plan_steps``, ``plan_steps_done``).

:func:`summarize` reads a :class:`~omg_agent.trace.loader.Trace` into a :class:`RunSummary`:
the outcome, what was done, why it stopped and what next (from the stop report the
orchestrator writes with :meth:`omg_agent.brain.budget.StopReport.message`). :func:`run_output`
is what ``omg-agent run`` calls once at its end: it writes ``report.html`` and returns the
counts and the lines to print.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from omg_agent.core.todo import read_todo
from omg_agent.trace.loader import Trace

log = logging.getLogger(__name__)

TERMS = (
    ("Budget step", "one unit of the step budget (--max-steps): a reply of the operator "
                    "model or of a replan, or a bundle of actions run on the phone"),
    ("Model call", "one request answered by a model (planner or operator)"),
    ("Turn", "the agent looks at the screen once, decides, and runs what it decided"),
    ("Plan step", "one item of the plan's checklist"),
)
OUTCOMES = {
    "done": "Done: the phone shows the task finished.",
    "failed": "Failed: the task was not finished.",
    "ask_user": "Waiting for your answer to a question.",
    "needs_confirmation": "Waiting for your yes to a sensitive action.",
    "infeasible": "The agent judged the task cannot be done.",
    "declined": "Stopped: you said no.",
    "interrupted": "Interrupted before the end (it can be resumed).",
    "unverified": "Unverified: the model reports the task done, but nothing in the run "
                  "backs it on the phone — look at the phone.",
    "error": "The run stopped on an error.",
    "incomplete": "The run ended without a result.",
    "unfinished": "The run has no result: it was cut short or is still running.",
}


@dataclass(frozen=True)
class RunSummary:
    """One run, for a person: outcome, what was done, why it stopped, what next, counts."""

    status: str
    outcome: str
    answer: str
    done: tuple[str, ...]
    stopped_because: str
    next_hint: str
    turns: int
    budget_steps: int | None
    model_calls: int | None
    plan_steps: int
    plan_steps_done: int
    question: str = ""  # the question a run waiting for an answer asked

    def counts(self) -> list[tuple[str, str]]:
        """(name, value) of each count, in the vocabulary's words and order."""
        rows = [("Turns", str(self.turns))]
        if self.budget_steps is not None:
            rows.append(("Budget steps", str(self.budget_steps)))
        if self.model_calls is not None:
            rows.append(("Model calls", str(self.model_calls)))
        if self.plan_steps:
            rows.append(("Plan steps", f"{self.plan_steps_done} of {self.plan_steps} done"))
        return rows

    def counts_line(self) -> str:
        """``2 turns · 5 budget steps · 4 model calls · plan steps 1/1 done``."""
        parts = [_plural(self.turns, "turn")]
        if self.budget_steps is not None:
            parts.append(_plural(self.budget_steps, "budget step"))
        if self.model_calls is not None:
            parts.append(_plural(self.model_calls, "model call"))
        if self.plan_steps:
            parts.append(f"plan steps {self.plan_steps_done}/{self.plan_steps} done")
        return " · ".join(parts)

    def json_keys(self) -> dict[str, Any]:
        return {"turns": self.turns, "budget_steps": self.budget_steps,
                "plan_steps": self.plan_steps, "plan_steps_done": self.plan_steps_done}


def summarize(trace: Trace) -> RunSummary:
    result = trace.result or {}
    status = str(result.get("status") or "unfinished").lower()
    raw = result.get("summary")
    extra: dict[str, Any] = raw if isinstance(raw, dict) else {}
    stop_text = raw if isinstance(raw, str) else str(extra.get("stop_report") or "")
    done, why, hint = parse_stop_report(stop_text)
    todo = extra.get("todo") or _latest_todo(trace)
    ticks = [done for done, _ in read_todo(str(todo or ""))]
    if not done and not why and stop_text:
        why = " ".join(stop_text.split())  # a free text summary, on one line
    turns = sum(1 for s in trace.steps if s.phase != "flow") or len(trace.steps)
    budget = _int(extra.get("steps_used"), _int(result.get("budget_steps"), None))
    calls = _int(result.get("model_calls"), None)
    asked = next((str(e.data.get("question") or "") for e in reversed(trace.events)
                  if e.kind == "ask_user"), "") if status == "ask_user" else ""
    return RunSummary(status, OUTCOMES.get(status, f"Ended with status {status}."),
                      str(result.get("answer") or ""), done, why, hint, turns, budget, calls,
                      len(ticks), sum(ticks), asked)


def parse_stop_report(text: str) -> tuple[tuple[str, ...], str, str]:
    """(done items, why it stopped, what next) from the text of ``StopReport.message``:
    ``Done so far:`` then ``  - item`` lines, ``Stopped because: …``, ``Next: …``."""
    done: list[str] = []
    why = hint = ""
    section = ""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("Done so far:"):
            section = "done"
        elif stripped.startswith("Stopped because:"):
            section, why = "why", stripped.removeprefix("Stopped because:").strip()
        elif stripped.startswith("Next:"):
            section, hint = "next", stripped.removeprefix("Next:").strip()
        elif section == "done" and stripped.startswith("- "):
            item = stripped[2:].strip()
            if item != "nothing yet":
                done.append(item)
        elif stripped and section == "why":
            why += " " + stripped
        elif stripped and section == "next":
            hint += " " + stripped
    return tuple(done), why, hint


def _latest_todo(trace: Trace) -> str:
    for event in reversed(trace.events):
        todo = event.data.get("todo", event.data.get("todo_markdown"))
        if isinstance(todo, str):
            return todo
    return ""


def _int(value: Any, default: int | None) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


@dataclass(frozen=True)
class RunOutput:
    """What ``omg-agent run`` adds to its output: the report's path and the counts."""

    report: Path | None
    summary: RunSummary | None

    def json_keys(self, result: Any) -> dict[str, Any]:
        """``budget_steps`` (= ``steps_used``), ``turns``, ``plan_steps``,
        ``plan_steps_done`` and ``report`` for ``result`` (a ``RunResult``)."""
        keys = self.summary.json_keys() if self.summary is not None else {}
        return {**keys, "budget_steps": result.steps_used,
                "report": str(self.report) if self.report else None}

    def lines(self, result: Any, tail: str) -> list[str]:
        """The closing lines: the counts (in the vocabulary's words), tokens and ``tail``;
        then the report's path."""
        summary = self.summary
        if summary is None:
            counts = f"{_plural(result.steps_used, 'budget step')} · " \
                     f"{_plural(result.model_calls, 'model call')}"
        else:
            counts = replace(summary, budget_steps=result.steps_used,
                             model_calls=result.model_calls).counts_line()
        out = [f"{counts} · tokens {result.tokens_in:,}/{result.tokens_out:,} · {tail}"]
        if self.report is not None:
            out.append(f"HTML trace report: {self.report}")
        return out


def run_output(run_dir: Path) -> RunOutput:
    """Write ``run_dir/report.html``; a report that cannot be written is logged, never
    raised (the run's result stands without it)."""
    from omg_agent.errors import OmgError
    from omg_agent.trace.loader import load_trace
    from omg_agent.trace.report import render_report

    try:
        summary = summarize(load_trace(run_dir))
        return RunOutput(render_report(run_dir), summary)
    except (OmgError, OSError) as exc:
        log.warning("no report for %s: %s", run_dir, exc)
        return RunOutput(None, None)
