"""Steps that cannot be undone in a flow made from a run, and what proves they worked.

A run that paid, sent or deleted becomes a flow (:mod:`.fromtrace`) only when the screen
after that step shows the outcome: an element that says it worked ("Payment successful",
"Order placed", "Message sent", "已删除") and was not on the screen the step acted on.
The control that was tapped (the Pay button) proves nothing — it is there before the step
too — so it never becomes a check; neither does anything the earlier screen showed.
Without such a proof the run is not made into a flow: a replay could not tell that it
paid, and one that cannot tell may pay again.

Which steps count is decided by the gate's own cue rule
(:func:`omg_agent.guards.cues.label_class`) on the control's label as the trace recorded
it — the same words the gate asked about — plus a step the user confirmed through the gate.
Replays meet these steps again in :class:`~.replay.FlowRunner`, which asks the gate itself.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from omg_agent.core.actions import AnchorTarget, DoubleTap, Key, LongPress, Tap, TypeText
from omg_agent.flows.model import ONCE, Selector
from omg_agent.flows.record import short_id
from omg_agent.flows.select import literal
from omg_agent.guards.cues import is_recipient_field, is_search_field, label_class
from omg_agent.perception.labels import cjk_part, latin_words

MAX_PROOFS = 2
KEY_ENTER = 66
CONFIRMED = "confirmed"  # the user said yes to it through the gate; its class unknown here

_SUCCESS_EN = (("success",), ("successful",), ("successfully",), ("succeeded",),
               ("placed",), ("complete",), ("completed",), ("confirmed",), ("thank", "you"),
               ("thanks",), ("sent",), ("delivered",), ("deleted",), ("removed",),
               ("paid",), ("installed",), ("changed",), ("updated",))
_SUCCESS_ZH = ("成功", "已支付", "已付款", "已下单", "已发送", "已删除", "已完成", "完成",
               "已安装", "已更改")
_FAILURE_EN = frozenset({"fail", "failed", "failure", "error", "declined", "denied", "not",
                         "unable", "cannot", "can't", "couldn't", "insufficient", "pending",
                         "processing", "retry", "again", "unsuccessful", "no"})
_FAILURE_ZH = ("失败", "错误", "未", "不", "无法", "拒绝", "处理中", "重试")


@dataclass(frozen=True)
class OnceStep:
    """A step of the run that cannot be undone: its class, what was touched, the screen it
    acted on (element summaries) and the screen number it ran on."""

    cls: str
    step: int
    label: str
    tapped: Selector | None
    before: tuple[dict[str, Any], ...]
    screen: int

    @property
    def once(self) -> str:
        return ONCE.get(self.cls, "done once")


def once_class(action: Any, element: dict[str, Any] | None, selector: Selector | None,
               screen: Sequence[dict[str, Any]]) -> tuple[str, str] | None:
    """``(class, label)`` when ``action`` pays, sends, deletes, installs or changes account
    security by the gate's cue words; ``None`` otherwise."""
    match action:
        case Tap() | LongPress() | DoubleTap():
            for label, whole in _labels(action, element, selector):
                hit = label_class(label, whole=whole)
                if hit is not None and hit[0] in ONCE:
                    return hit[0], label
        case TypeText() if action.submit and _send_button(screen) and not _not_message(
                element, action):
            return "send", f"type and send {action.text!r}"
        case Key() if action.keycode == KEY_ENTER and _send_button(screen):
            return "send", "ENTER in a message box"
    return None


def _labels(action: Any, element: dict[str, Any] | None,
            selector: Selector | None) -> list[tuple[str, bool]]:
    if element is not None:
        whole = element.get("role") in ("item", "text")
        rid = short_id(element.get("resource_id") or "").replace("_", " ")
        return [(t, whole) for t in (element.get("text"), element.get("desc"), rid) if t]
    target = getattr(action, "target", None)
    texts: list[str | None] = []
    if isinstance(target, AnchorTarget):
        texts += [target.text, target.desc, (target.resource_id or "").replace("_", " ")]
    if selector is not None:
        texts += [selector.text, selector.desc, (selector.id or "").replace("_", " ")]
    return [(t, False) for t in texts if t]


def _not_message(element: dict[str, Any] | None, action: TypeText) -> bool:
    """A search box or a recipient field: ENTER there searches or picks, never sends."""
    target = action.target
    texts = [t for t in (getattr(target, "resource_id", None), getattr(target, "desc", None))
             if t]
    if element is not None:
        texts += [short_id(element.get("resource_id") or ""), element.get("desc") or "",
                  element.get("text") or ""]
    return is_search_field(*texts) or is_recipient_field(*texts)


def _send_button(screen: Sequence[dict[str, Any]]) -> bool:
    return any(e.get("role") == "button" and any(
        (hit := label_class(t)) is not None and hit[0] == "send"
        for t in (e.get("text"), e.get("desc")) if t) for e in screen)


def success_cue(text: str) -> str | None:
    """The words of ``text`` that say something worked, or ``None`` (also when it says
    something failed, is pending or did not happen)."""
    words = latin_words(text)
    han = cjk_part(text)
    if any(w in _FAILURE_EN for w in words) or any(c in han for c in _FAILURE_ZH):
        return None
    for cue in _SUCCESS_EN:
        if any(tuple(words[i:i + len(cue)]) == cue for i in range(len(words))):
            return " ".join(cue)
    return next((c for c in _SUCCESS_ZH if c in han), None)


def proof_checks(after: Sequence[dict[str, Any]], steps: Sequence[OnceStep]) -> list[Selector]:
    """End checks from the screen ``after`` the last of ``steps`` that prove they worked:
    elements saying so that no screen those steps acted on showed, never a tapped control."""
    seen = {_norm(t) for s in steps for e in s.before
            for t in (e.get("text"), e.get("desc")) if t}
    tapped_ids = {s.tapped.id for s in steps if s.tapped is not None and s.tapped.id}
    tapped_texts = {_norm(s.label) for s in steps}
    checks: list[Selector] = []
    for e in after:
        if e.get("role") in ("input", "edit") or e.get("password"):
            continue  # typed text is the user's, not the app's word on the outcome
        rid = short_id(e.get("resource_id") or "")
        for key in ("text", "desc"):
            value = e.get(key) or ""
            if not value or success_cue(value) is None or _norm(value) in seen \
                    or _norm(value) in tapped_texts or (rid and rid in tapped_ids) \
                    or (e.get("role") == "button" and label_class(value) is not None):
                continue  # a button "Complete purchase" is a control, not an outcome
            text, desc = (literal(value), None) if key == "text" else (None, literal(value))
            checks.append(Selector(text=text, id=rid or None, desc=desc))
            break
        if len(checks) == MAX_PROOFS:
            break
    return checks


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip().casefold())


__all__ = ["CONFIRMED", "OnceStep", "once_class", "proof_checks", "success_cue"]
