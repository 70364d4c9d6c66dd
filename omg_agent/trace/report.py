"""The HTML report of one run: a single self-contained page a human can open anywhere.

:func:`render_report` reads a run folder (:func:`~omg_agent.trace.loader.load_trace`) and
writes one HTML file: screenshots embedded as base64 data URIs, CSS and JS inline, no
external URL at all. It shows the run's facts (task, status, answer, steps, model calls,
tokens, wall time), the plan/todo list if one was recorded, then the timeline: per step the
screenshot with its actions drawn on it (:mod:`omg_agent.trace.overlay`), the model's
thought and reply, actions and results, and an observe / model / act timings bar; events
(plans, questions, post-mortems, …) sit between the steps where they happened.

Everything from the trace is untrusted text (on-screen strings, model replies) and is
escaped with :func:`html.escape` before it reaches the page.
"""

from __future__ import annotations

import base64
import json
import logging
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any

from omg_agent.trace.loader import EventRecord, StepRecord, Trace, load_trace
from omg_agent.trace.overlay import action_overlay, pair_results

log = logging.getLogger(__name__)

REPORT_FILE = "report.html"
_MIME = {".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png"}
# Bar segment -> the timing names that feed it (seconds), first present wins.
_BAR_PARTS = {"observe": ("observe", "observe_s"),
              "model": ("model", "model_s", "decide", "decide_s"),
              "act": ("act", "act_s")}


def render_report(run_dir: Path, out: Path | None = None) -> Path:
    """Write the report of ``run_dir`` to ``out`` (default ``run_dir/report.html``)."""
    run_dir = Path(run_dir)
    trace = load_trace(run_dir)
    out = Path(out) if out is not None else run_dir / REPORT_FILE
    template = resources.files("omg_agent.trace").joinpath("report_template.html")
    page = template.read_text(encoding="utf-8")
    title = f"OMG-Agent run: {trace.task[:80]}" if trace.task else "OMG-Agent run"
    page = page.replace("__TITLE__", escape(title)).replace("__BODY__", _body(trace))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(page, encoding="utf-8")
    log.info("report of %s written to %s", run_dir, out)
    return out


def _body(trace: Trace) -> str:
    parts = [_header(trace), "<main>"]
    if trace.warnings:
        items = "".join(f"<li>{escape(w)}</li>" for w in trace.warnings)
        parts.append(f'<section class="card"><h2>Trace warnings</h2>'
                     f'<ul class="warnings">{items}</ul></section>')
    if trace.plan is not None:
        parts.append(_plan(trace.plan))
    for record in trace.timeline:
        if isinstance(record, StepRecord):
            parts.append(_step(trace, record))
        else:
            parts.append(_event(record))
    parts.append("</main>")
    return "\n".join(parts)


def _header(trace: Trace) -> str:
    result = trace.result or {}
    status = str(result.get("status") or "unfinished")
    tokens = raw if isinstance(raw := result.get("tokens"), dict) else {}
    prompt = tokens.get("prompt", sum(s.prompt_tokens for s in trace.steps))
    completion = tokens.get("completion", sum(s.completion_tokens for s in trace.steps))
    steps = result.get("steps", len({s.step for s in trace.steps}))
    calls = result.get("model_calls", sum(1 for s in trace.steps
                                          if s.model_reply or s.prompt_tokens))
    wall = result.get("wall_time_s", trace.steps[-1].t if trace.steps else 0.0)
    facts = [("Task", trace.task or "(none recorded)"),
             ("Answer", str(result.get("answer") or "")),
             ("Steps", str(steps)), ("Model calls", str(calls)),
             ("Tokens", f"{_num(prompt)} prompt + {_num(completion)} completion"),
             ("Wall time", _seconds(wall))]
    summary = result.get("summary")
    if summary:
        facts.append(("Summary", summary if isinstance(summary, str)
                      else json.dumps(summary, ensure_ascii=False, indent=1)))
    rows = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in facts)
    links = "".join(f'<a href="#step-{s.step}-{s.line}">{s.step}</a>' for s in trace.steps)
    return (f'<header class="run"><h1>OMG-Agent run <span class="status '
            f'{escape(status.lower())}">{escape(status)}</span></h1>'
            f'<dl class="facts">{rows}</dl>'
            + (f'<nav class="steps">Steps: {links}</nav>' if links else "") + "</header>")


def _plan(event: EventRecord) -> str:
    data = event.data
    todo = data.get("todo_markdown", data.get("todo"))
    if isinstance(todo, str):
        inner = f"<pre>{escape(todo)}</pre>"
    else:
        inner = "<ol>" + "".join(f"<li>{escape(_step_text(s))}</li>"
                                 for s in data.get("steps") or ()) + "</ol>"
    return (f'<section class="card plan"><h2>Plan <span class="meta">(latest, from '
            f'{escape(event.kind)} at +{event.t:.1f} s)</span></h2>{inner}</section>')


def _step_text(step: Any) -> str:
    if isinstance(step, dict):
        return str(step.get("description") or json.dumps(step, ensure_ascii=False))
    return str(step)


def _step(trace: Trace, step: StepRecord) -> str:
    anchor = f"step-{step.step}-{step.line}"
    obs = step.observation or {}
    where = " · ".join(escape(str(obs[k])) for k in ("package", "activity") if obs.get(k))
    title = (f"<h2>Step {step.step} <span class=\"meta\">{escape(step.phase)} · "
             f"+{step.t:.1f} s{' · ' + where if where else ''}</span></h2>")
    details = [_thought(step.model_reply), _actions(step), _timings(step)]
    if step.note:
        details.append(f'<p class="meta">note: {escape(step.note)}</p>')
    if obs:
        details.append(f'<p class="meta">{escape(str(obs.get("element_count", 0)))} elements'
                       f' · screen {escape(str(obs.get("screen_hash", ""))[:16])}</p>')
    return (f'<section class="card step" id="{escape(anchor)}">{title}'
            f'<div class="media">{_screens(trace, step, anchor)}</div>'
            f'<div class="details">{"".join(details)}</div></section>')


def _screens(trace: Trace, step: StepRecord, anchor: str) -> str:
    obs = step.observation
    if not obs:
        return '<div class="nomedia">no observation</div>'
    plain = _data_uri(trace.run_dir, obs.get("image"))
    if plain is None:
        return '<div class="nomedia">screenshot missing</div>'
    size = obs.get("size") or obs.get("image_size") or (0, 0)
    try:
        w, h = int(size[0]), int(size[1])
    except (TypeError, ValueError, IndexError):
        w, h = 0, 0
    overlay = action_overlay((w, h), step.actions, step.results, obs.get("elements") or ())
    som = _data_uri(trace.run_dir, obs.get("som"))
    alt = f"screen at step {step.step}"
    imgs = f'<img class="plain" src="{plain}" alt="{escape(alt)}">'
    toggle = ""
    if som is not None:
        imgs += f'<img class="som" src="{som}" alt="{escape(alt)} with marks">'
        toggle = (f'<input type="checkbox" class="somtoggle" id="{escape(anchor)}-som">'
                  f'<label class="meta" for="{escape(anchor)}-som"> set-of-marks</label>')
    return f'{toggle}<div class="shot">{imgs}{overlay}</div>'


def _data_uri(run_dir: Path, rel: Any) -> str | None:
    if not isinstance(rel, str) or not rel:
        return None
    root = run_dir.resolve()
    path = (run_dir / rel).resolve()
    if not path.is_relative_to(root) or not path.is_file():
        log.warning("%s: image %s is missing or outside the run folder", run_dir, rel)
        return None
    mime = _MIME.get(path.suffix.lower(), "application/octet-stream")
    return f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


def _thought(reply: str) -> str:
    if not reply:
        return ""
    thought = ""
    try:
        parsed = json.loads(reply)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict) and isinstance(parsed.get("thought"), str):
        thought = parsed["thought"]
        reply = json.dumps(parsed, ensure_ascii=False, indent=2)
    head = f'<pre class="thought">{escape(thought)}</pre>' if thought else ""
    if thought:
        return (f"{head}<details><summary>model reply</summary>"
                f"<pre class=\"reply\">{escape(reply)}</pre></details>")
    return f'<pre class="reply thought">{escape(reply)}</pre>'


def _actions(step: StepRecord) -> str:
    if not step.actions and not step.results:
        return ""
    items = [f"<li>{_action_text(action)}{_result_text(result)}</li>"
             for action, result in pair_results(step.actions, step.results)]
    return f'<ol class="actions">{"".join(items)}</ol>'


def _action_text(action: dict[str, Any]) -> str:
    kind = str(action.get("type", "?"))
    rest = {k: v for k, v in action.items() if k != "type"}
    args = json.dumps(rest, ensure_ascii=False, separators=(", ", ": ")) if rest else ""
    return f"<b>{escape(kind)}</b> <code>{escape(args)}</code>" if args else \
        f"<b>{escape(kind)}</b>"


def _result_text(result: dict[str, Any]) -> str:
    if not result:
        return ' <span class="meta">(no result)</span>'
    ok = result.get("ok")
    mark = '<span class="ok">ok</span>' if ok else (
        '<span class="bad">failed</span>' if ok is False else "")
    detail = str(result.get("detail") or "")
    point = result.get("point")
    at = f" @ {escape(str(point))}" if point is not None else ""
    return f" → {mark} <span class=\"meta\">{escape(detail)}{at}</span>"


def _timings(step: StepRecord) -> str:
    timings = {part: next((step.timings[n] for n in names if n in step.timings), None)
               for part, names in _BAR_PARTS.items()}
    obs_timings = (step.observation or {}).get("timings") or {}
    if timings["observe"] is None and isinstance(obs_timings.get("total"), int | float):
        timings["observe"] = float(obs_timings["total"])
    parts = [(k, max(0.0, float(v or 0.0))) for k, v in timings.items()]
    total = sum(v for _, v in parts)
    if total <= 0:
        return ""
    spans = "".join(f'<span class="{k}" style="width:{100 * v / total:.2f}%" '
                    f'title="{k} {v * 1000:.0f} ms"></span>' for k, v in parts if v > 0)
    legend = "".join(f'<i class="{k}"></i>{k} {v * 1000:.0f} ms' for k, v in parts)
    return (f'<div class="timings"><div class="bar">{spans}</div>'
            f'<div class="legend meta">{legend} · total {total * 1000:.0f} ms</div></div>')


def _event(event: EventRecord) -> str:
    body = json.dumps(event.data, ensure_ascii=False, indent=2)
    kind = escape(event.kind)
    return (f'<section class="card event {kind}"><span class="kind">{kind}</span> '
            f'<span class="meta">+{event.t:.1f} s</span><pre>{escape(body)}</pre></section>')


def _num(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) else str(value)


def _seconds(value: Any) -> str:
    try:
        return f"{float(value):.1f} s"
    except (TypeError, ValueError):
        return str(value)
