"""The report's turn cards: each turn's screens with its actions drawn on the screen they ran
on, the model's thought, the actions in words, and the turn's timings.

A turn that went on to a new screen (a result of type ``screen`` carrying the new
observation, see :mod:`omg_agent.trace.recorder`) shows every screen it acted on, each with
the actions that ran there. An action that should change the screen but left it looking the
same (by :meth:`~omg_agent.perception.screenhash.ScreenHash.same` on the screen after it),
or that the loop guard named as having no effect, is marked "no effect" in amber — never a
green ok. Screens are numbered by appearance (``screen 3``, ``screen 1 again``) instead of
printing their hash.
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

from omg_agent.trace.loader import StepRecord
from omg_agent.trace.overlay import numbered_overlay, pair_results

log = logging.getLogger(__name__)

_MIME = {".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png"}
# Bar segment -> the timing names that feed it (seconds), first present wins.
_BAR_PARTS = {"observe": ("observe", "observe_s"),
              "model": ("model", "model_s", "decide", "decide_s"),
              "act": ("act", "act_s")}
_KINDS = {"acted": "", "step_complete": "the operator says the plan step is done",
          "goal_complete": "the operator says the whole task is done",
          "ask_user": "the operator asks you a question",
          "infeasible": "the operator judges the task cannot be done",
          "declined": "the operator stops: you said no",
          "needs_confirmation": "a sensitive action waits for your yes"}
NO_EFFECT = "no effect: the screen looked the same after it"


class ScreenBook:
    """Numbers screens by appearance; two hashes that are "the same screen" share a number."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, int]] = []  # (hash, first turn)

    def label(self, screen_hash: str, turn: int) -> str:
        if not screen_hash:
            return "screen (no hash recorded)"
        for number, (known, first) in enumerate(self.seen, start=1):
            if same_screen(known, screen_hash):
                return f"screen {number} again (first seen in turn {first})" \
                    if first != turn else f"screen {number} again"
        self.seen.append((screen_hash, turn))
        return f"screen {len(self.seen)} (new)"


def same_screen(a: str, b: str) -> bool:
    from omg_agent.perception.screenhash import ScreenHash

    try:
        return ScreenHash().same(a, b)
    except ValueError:  # not a grid hash (a test label): only equal text is the same
        return a == b


@dataclass
class Segment:
    """One screen of a turn and what ran on it."""

    observation: dict[str, Any] | None
    header: dict[str, Any] | None = None  # the result that brought this screen
    items: list[tuple[int | None, dict[str, Any], dict[str, Any]]] = field(default_factory=list)
    no_effect: set[int] = field(default_factory=set)


def segments(step: StepRecord) -> list[Segment]:
    """The turn's screens in order, each with its (action number, action, result) items."""
    segs = [Segment(step.observation)]
    where: dict[int, int] = {}
    for result in step.results:
        seen = result.get("observation")
        if result.get("type") in ("screen", "stop") and isinstance(seen, dict):
            segs.append(Segment(seen, result))
        where[id(result)] = len(segs) - 1
    current = 0
    for i, (action, result) in enumerate(pair_results(step.actions, step.results)):
        if result and segs[where.get(id(result), current)].header is result:
            continue  # the screen change itself heads its segment
        current = where.get(id(result), current) if result else current
        segs[current].items.append((i if i < len(step.actions) else None, action, result))
    return segs


def mark_no_effect(segs: Sequence[Segment], after: str | None, guard_says: bool) -> None:
    """Mark the last action of each screen that should have changed it but did not."""
    hashes = [str((s.observation or {}).get("screen_hash") or "") for s in segs]
    for k, seg in enumerate(segs):
        ran = [(n, a, r) for n, a, r in seg.items if n is not None and r.get("ok")]
        if not ran:
            continue
        number, action, _ = ran[-1]
        later = hashes[k + 1] if k + 1 < len(segs) else after
        if guard_says and k == len(segs) - 1 or (
                later and hashes[k] and _should_change(action)
                and same_screen(hashes[k], later)):
            seg.no_effect.add(number)


def _should_change(action: dict[str, Any]) -> bool:
    from pydantic import ValidationError

    from omg_agent.core.actions import parse_action
    from omg_agent.core.signatures import should_change_screen

    try:
        return should_change_screen(parse_action(action))
    except (ValidationError, ValueError, TypeError):
        return False


def turn_failed(step: StepRecord, segs: Sequence[Segment]) -> bool:
    return (any(r.get("ok") is False for r in step.results)
            or any(seg.no_effect for seg in segs)
            or bool(step.note and step.note not in _KINDS))


def turn_card(run_dir: Path, step: StepRecord, number: int, segs: Sequence[Segment],
              book: ScreenBook) -> str:
    anchor = f"turn-{number}"
    failed = turn_failed(step, segs)
    no_effect = any(seg.no_effect for seg in segs)
    badge = ('<span class="badge bad">failed</span>' if failed and not no_effect else
             '<span class="badge warn">no effect</span>' if no_effect else
             '<span class="badge ok">ok</span>' if step.actions else
             '<span class="badge">no actions</span>')
    obs = step.observation or {}
    where = " · ".join(str(obs[k]) for k in ("package", "activity") if obs.get(k))
    plan = step.phase.replace("step ", "plan step ") if step.phase.startswith("step ") \
        else step.phase
    meta = " · ".join(x for x in (plan, f"+{step.t:.1f} s", where) if x)
    title = (f'<h2>Turn {number} {badge} <span class="meta">{escape(meta)}</span></h2>')
    media = "".join(_screen(run_dir, seg, f"{anchor}-s{k}", book, number, k)
                    for k, seg in enumerate(segs))
    details = [_thought(step.model_reply), _actions(segs), _timings(step)]
    if step.note in _KINDS and _KINDS[step.note]:
        details.append(f'<p class="verdict">{escape(_KINDS[step.note])}</p>')
    elif step.note and step.note not in _KINDS:
        details.append(f'<p class="bad">Turn failed: {escape(step.note)}</p>')
    cls = "card step turn" + (" failed" if failed else " quiet")
    return (f'<section class="{cls}" id="{escape(anchor)}" data-turn="{number}">{title}'
            f'<div class="media">{media}</div>'
            f'<div class="details">{"".join(details)}</div></section>')


def _screen(run_dir: Path, seg: Segment, anchor: str, book: ScreenBook, turn: int,
            k: int) -> str:
    obs = seg.observation
    if not obs:
        return '<figure class="screen"><div class="nomedia">no observation</div></figure>'
    label = book.label(str(obs.get("screen_hash") or ""), turn)
    numbers = [n + 1 for n, _, r in seg.items if n is not None and r]
    ran = (f"action {numbers[0]} ran here" if len(numbers) == 1 else
           f"actions {', '.join(map(str, numbers))} ran here" if numbers else
           "nothing ran here")
    head = "seen first" if k == 0 else "then the new screen"
    if seg.header is not None and seg.header.get("type") == "stop":
        head, ran = "then the new screen, where it stopped", str(seg.header.get("detail", ""))
    caption = (f'<figcaption><b>{escape(head)}</b> · <span class="screenlabel">'
               f'{escape(label)}</span> · {escape(ran)}</figcaption>')
    plain = _data_uri(run_dir, obs.get("image"))
    if plain is None:
        return f'<figure class="screen">{caption}<div class="nomedia">screenshot missing' \
               f'</div></figure>'
    size = obs.get("size") or obs.get("image_size") or (0, 0)
    try:
        w, h = int(size[0]), int(size[1])
    except (TypeError, ValueError, IndexError):
        w, h = 0, 0
    drawn = [(n, a, r) for n, a, r in seg.items if n is not None]
    overlay = numbered_overlay((w, h), drawn, obs.get("elements") or (), seg.no_effect)
    som = _data_uri(run_dir, obs.get("som"))
    alt = f"turn {turn}, {label}"
    imgs = f'<img class="plain" src="{plain}" alt="{escape(alt)}">'
    toggle = ""
    if som is not None:
        imgs += f'<img class="som" src="{som}" alt="{escape(alt)} with marks">'
        toggle = (f'<input type="checkbox" class="somtoggle" id="{escape(anchor)}-som">'
                  f'<label class="meta" for="{escape(anchor)}-som"> set-of-marks</label>')
    package = escape(str(obs.get("package") or ""))
    return (f'<figure class="screen" data-screen="{k}" data-package="{package}">{caption}{toggle}'
            f'<div class="shot">{imgs}{overlay}</div></figure>')


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
    try:
        parsed = json.loads(reply)
    except ValueError:
        parsed = None
    if not isinstance(parsed, dict):
        return f'<pre class="reply thought">{escape(reply)}</pre>'
    lines = []
    if isinstance(parsed.get("thought"), str):
        lines.append(f'<p class="thought">{escape(parsed["thought"])}</p>')
    plan = parsed.get("execute_now")
    if isinstance(plan, dict) and plan.get("intent"):
        lines.append(f'<p><span class="k">Intent:</span> {escape(str(plan["intent"]))}</p>')
    judged = parsed.get("last_action_result")
    if judged and judged != "none":
        lines.append(f'<p><span class="k">The previous turn, as the model judged it:</span> '
                     f'{escape(str(judged))}</p>')
    if parsed.get("answer"):
        lines.append(f'<p><span class="k">Answer:</span> {escape(str(parsed["answer"]))}</p>')
    pretty = json.dumps(parsed, ensure_ascii=False, indent=2)
    return ("".join(lines) + '<details class="raw"><summary>model reply (raw)</summary>'
            f'<pre class="reply">{escape(pretty)}</pre></details>')


def _actions(segs: Sequence[Segment]) -> str:
    rows = []
    for seg in segs:
        if seg.header is not None:
            rows.append(f'<li class="screenchange">{escape(str(seg.header.get("detail", "")))}'
                        '</li>')
        for number, action, result in seg.items:
            rows.append(_action_row(number, action, result, number in seg.no_effect))
    return f'<ol class="actions">{"".join(rows)}</ol>' if rows else ""


def _action_row(number: int | None, action: dict[str, Any], result: dict[str, Any],
                no_effect: bool) -> str:
    kind = str(action.get("type") or result.get("type") or "?")
    if number is None and kind in ("gate", "stop", "screen", "macro"):
        tone = "bad" if result.get("ok") is False else "note"
        return (f'<li class="{tone} note"><b>{escape(kind)}</b> '
                f'{escape(str(result.get("detail") or ""))}</li>')
    label = f"{number + 1}. " if number is not None else ""
    if not result:
        mark = '<span class="badge">not run</span>'
    elif result.get("ok") is False:
        mark = '<span class="badge bad">failed</span>'
    elif no_effect:
        mark = f'<span class="badge warn">{escape(NO_EFFECT)}</span>'
    elif result.get("ok"):
        mark = '<span class="badge ok">ok</span>'
    else:
        mark = ""
    detail = str(result.get("detail") or "")
    return (f'<li data-action="{escape(kind)}"><b>{escape(label)}{escape(action_words(action))}'
            f'</b> {mark} <span class="meta">{escape(detail)}</span></li>')


def action_words(action: dict[str, Any]) -> str:
    """An action in words: ``tap 'Settings'``, ``type into element [3]: 'hello'``."""
    from pydantic import ValidationError

    from omg_agent.core.actions import parse_action
    from omg_agent.core.signatures import describe_action

    kind = str(action.get("type") or "?")
    if kind == "mem_save":
        source = "from the screen" if action.get("from_screen") else "given by the model"
        return f"save ${action.get('key', '?')} ({source})"
    try:
        words = describe_action(parse_action(action))
    except (ValidationError, ValueError, TypeError):
        rest = "; ".join(f"{k} {v}" for k, v in action.items() if k != "type")
        return f"{kind} {rest}".strip()
    if kind == "type" and action.get("text"):
        words += f": {str(action['text'])!r}"
    return words


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
