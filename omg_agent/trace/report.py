"""The HTML report of one run: a single self-contained page a human can open anywhere.

:func:`render_report` reads a run folder (:func:`~omg_agent.trace.loader.load_trace`) and
writes one HTML file: screenshots embedded as base64 data URIs, CSS and JS inline, no
external URL at all. The page opens with a summary written for a person (outcome, what was
done, why it stopped, what next — :mod:`omg_agent.trace.summary`), the counts in the run's
one vocabulary (turns, budget steps, model calls, plan steps), a filter for failed turns
only, then the timeline: each turn's screens with its actions drawn on the screen they ran
on (:mod:`omg_agent.trace.report_turns`), and between the turns the events in words —
plans, loop-guard rungs, gate prompts, post-mortems, questions and human answers
(:mod:`omg_agent.trace.report_events`).

Everything from the trace is untrusted text (on-screen strings, model replies) and is
escaped with :func:`html.escape` before it reaches the page.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any

from omg_agent.durable import write_atomic
from omg_agent.trace.loader import EventRecord, StepRecord, Trace, load_trace
from omg_agent.trace.report_events import checklist, event_cards, plan_text
from omg_agent.trace.report_turns import (
    ScreenBook,
    mark_no_effect,
    segments,
    turn_card,
    turn_failed,
)
from omg_agent.trace.summary import TERMS, RunSummary, summarize

log = logging.getLogger(__name__)

REPORT_FILE = "report.html"
# events after which the next turn's screen is not the screen the last action left: the
# agent itself acted in between (a loop-guard rung, a system dialog, a rollback)
_ACTED_BETWEEN = {"loop_guard", "system", "rollback", "macro", "human"}


def render_report(run_dir: Path, out: Path | None = None) -> Path:
    """Write the report of ``run_dir`` to ``out`` (default ``run_dir/report.html``), whole
    or not at all (temp file + rename: an ``OSError`` leaves no partial page)."""
    run_dir = Path(run_dir)
    trace = load_trace(run_dir)
    out = Path(out) if out is not None else run_dir / REPORT_FILE
    template = resources.files("omg_agent.trace").joinpath("report_template.html")
    page = template.read_text(encoding="utf-8")
    title = f"OMG-Agent run: {trace.task[:80]}" if trace.task else "OMG-Agent run"
    page = page.replace("__TITLE__", escape(title)).replace("__BODY__", _body(trace))
    out.parent.mkdir(parents=True, exist_ok=True)
    # whole or not at all: a disk that fills half-way leaves no truncated page under its name
    write_atomic(out, page, sync=False)
    log.info("report of %s written to %s", run_dir, out)
    return out


def _body(trace: Trace) -> str:
    summary = summarize(trace)
    turns, failed = _timeline(trace)
    parts = [_header(trace, summary, failed), "<main>"]
    if trace.warnings:
        items = "".join(f"<li>{escape(w)}</li>" for w in trace.warnings)
        parts.append(f'<section class="card"><h2>Trace warnings</h2>'
                     f'<ul class="warnings">{items}</ul></section>')
    parts += turns
    parts.append("</main>")
    return "\n".join(parts)


def _timeline(trace: Trace) -> tuple[list[str], list[int]]:
    """The cards in trace order, and the numbers of the failed turns."""
    records = trace.timeline
    cards: list[str] = []
    failed: list[int] = []
    pending: list[EventRecord] = []
    book = ScreenBook()
    number = 0
    for i, record in enumerate(records):
        if isinstance(record, EventRecord):
            pending.append(record)
            continue
        cards += event_cards(pending)
        pending = []
        number += 1
        after, guard_says = _after(records[i + 1:])
        segs = segments(record)
        mark_no_effect(segs, after, guard_says)
        if turn_failed(record, segs):
            failed.append(number)
        cards.append(turn_card(trace.run_dir, record, number, segs, book))
    cards += event_cards(pending)
    return cards, failed


def _after(rest: Sequence[StepRecord | EventRecord]) -> tuple[str | None, bool]:
    """The hash of the screen the next turn saw, when nothing acted in between, and whether
    the loop guard said the last action had no effect."""
    guard_says, acted = False, False
    for record in rest:
        if isinstance(record, StepRecord):
            obs = record.observation or {}
            return (None if acted else str(obs.get("screen_hash") or "") or None), guard_says
        if record.kind == "loop_guard" and record.data.get("trigger") == "no_effect":
            guard_says = guard_says or not acted
        acted = acted or record.kind in _ACTED_BETWEEN
    return None, guard_says


def _header(trace: Trace, summary: RunSummary, failed: list[int]) -> str:
    result = trace.result or {}
    status = summary.status
    tokens = raw if isinstance(raw := result.get("tokens"), dict) else {}
    prompt = tokens.get("prompt", sum(s.prompt_tokens for s in trace.steps))
    completion = tokens.get("completion", sum(s.completion_tokens for s in trace.steps))
    wall = result.get("wall_time_s", trace.steps[-1].t if trace.steps else 0.0)
    facts = [("Task", trace.task or "(none recorded)"), *summary.counts(),
             ("Tokens", f"{_num(prompt)} prompt + {_num(completion)} completion"),
             ("Wall time", _seconds(wall))]
    rows = "".join(f'<dt>{escape(k)}</dt><dd data-fact="{escape(k.lower())}">{escape(v)}</dd>'
                   for k, v in facts)
    terms = "".join(f"<dt>{escape(t)}</dt><dd>{escape(d)}</dd>" for t, d in TERMS)
    links = "".join(f'<a href="#turn-{n}" class="{"bad" if n in failed else ""}">{n}</a>'
                    for n in range(1, summary.turns + 1))
    filt = ('<label class="filter"><input type="checkbox" id="failed-only"> failed turns only'
            f' ({len(failed)} of {summary.turns})</label>')
    return (f'<header class="run"><h1>OMG-Agent run <span class="status '
            f'{escape(status)}">{escape(status)}</span></h1>'
            f'<div class="top">{_summary(summary, trace)}<div class="side">'
            f'<dl class="facts">{rows}</dl>'
            f'<details class="terms"><summary>What these words mean</summary>'
            f'<dl class="facts">{terms}</dl></details></div></div>'
            f'<nav class="turns">{filt}<span class="meta">Turns:</span> {links}</nav>'
            "</header>")


def _summary(s: RunSummary, trace: Trace) -> str:
    """Outcome, answer, what was done, why it stopped, what next — sentences, no JSON —
    and the latest plan as a checklist."""
    parts = [f'<p class="outcome">{escape(s.outcome)}</p>']
    if s.answer:
        parts.append(_line("Answer", s.answer))
    if s.question:
        parts.append(_line("The question", s.question))
    done = "".join(f"<li>{escape(_one_line(d))}</li>" for d in s.done)
    parts.append('<div class="line"><span class="k">What was done:</span> '
                 + (f"<ul>{done}</ul>" if done else "nothing yet") + "</div>")
    if s.stopped_because:
        parts.append(_line("Why it stopped", s.stopped_because))
    if s.next_hint:
        parts.append(_line("What next", s.next_hint))
    todo = plan_text(trace.plan.data) if trace.plan is not None else ""
    if todo:
        parts.append(f'<div class="line plan"><span class="k">Plan:</span>{checklist(todo)}'
                     "</div>")
    return f'<section class="summary" id="summary">{"".join(parts)}</section>'


def _line(name: str, text: str) -> str:
    return (f'<div class="line"><span class="k">{escape(name)}:</span> '
            f'{escape(_one_line(text))}</div>')


def _one_line(text: str) -> str:
    return " ".join(str(text).replace("\\n", " ").split())


def _num(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) else str(value)


def _seconds(value: Any) -> str:
    try:
        return f"{float(value):.1f} s"
    except (TypeError, ValueError):
        return str(value)
