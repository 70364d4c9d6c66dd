"""A run that paid becomes a flow only with end checks that prove the payment worked —
never the Pay button, never what the checkout already showed (issue 24, item 5)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from brain.fakes import FakeWorld, el

from omg_agent.core.actions import AnchorTarget, ElementTarget, Launch, Tap, TypeText
from omg_agent.errors import FlowError
from omg_agent.flows.cache import ReplayCache
from omg_agent.flows.fromtrace import flow_from_trace
from omg_agent.flows.model import Selector
from omg_agent.flows.proof import once_class, success_cue
from omg_agent.trace.recorder import TraceRecorder

SHOP = "com.omg.shop"
CHECKOUT = (SHOP, [el(1, "Checkout", res=f"{SHOP}:id/title", role="text", clickable=False),
                   el(2, "Total: ¥1,079.00", res=f"{SHOP}:id/total", role="text",
                      clickable=False),
                   el(3, "Pay ¥1,079.00", res=f"{SHOP}:id/pay")])


def paid_screen(*texts: str) -> tuple[str, list[Any]]:
    return (SHOP, [el(i, t, res=f"{SHOP}:id/line{i}", role="text", clickable=False)
                   for i, t in enumerate(texts, start=1)])


def trace(run_dir: Path, *after: tuple[str, list[Any]], anchor: bool = True) -> Path:
    """A finished run: launch, then Pay on the checkout (by its anchor, or its element id),
    then one step per screen in ``after`` (the model looking, then saying done)."""
    world = FakeWorld({"checkout": CHECKOUT, **{f"after{i}": s for i, s in enumerate(after)}},
                      lambda s, a, e: s, "checkout")
    target = AnchorTarget(resource_id="pay") if anchor else ElementTarget(id=3)
    with TraceRecorder(run_dir, task="Pay for the order in Shop") as rec:
        rec.record_step(1, observation=world.observation(), actions=[Launch(app=SHOP)],
                        results=[{"index": 0, "type": "launch", "ok": True}])
        rec.record_step(2, observation=world.observation(), actions=[Tap(target=target)],
                        results=[{"index": 0, "type": "tap", "ok": True, "point": [540, 900]}])
        for i in range(len(after)):
            world.current = f"after{i}"
            rec.record_step(3 + i, observation=world.observation(), actions=[], results=[])
        rec.finish("done", "Paid")
    return run_dir


def checks(run_dir: Path) -> list[Selector]:
    flow = flow_from_trace(run_dir)
    return [c.selector for c in flow.commands if c.name == "assertVisible"
            and c.selector is not None]


@pytest.mark.parametrize("anchor", [True, False])
def test_a_payment_with_no_screen_after_it_is_not_made_into_a_flow(tmp_path: Path,
                                                                    anchor: bool) -> None:
    # the probe: the last screen the trace holds is the checkout, whose Pay button became
    # the flow's end check — a replay paid, then found no Pay button and handed over
    with pytest.raises(FlowError, match="no screen after it"):
        flow_from_trace(trace(tmp_path / "run", anchor=anchor))


def test_the_proof_is_what_only_the_screen_after_the_payment_says(tmp_path: Path) -> None:
    run = trace(tmp_path / "run", paid_screen("Payment successful 支付成功",
                                              "Order #1001 · ¥1,079.00", "Back to home"))
    found = checks(run)
    assert found == [Selector(text="Payment successful 支付成功", id="line1")]
    assert not any((s.id or "") == "pay" or "Pay ¥" in (s.text or "") for s in found)


def test_what_the_checkout_already_showed_proves_nothing(tmp_path: Path) -> None:
    run = trace(tmp_path / "run", paid_screen("Total: ¥1,079.00", "Pay ¥1,079.00",
                                              "Back to home"))
    with pytest.raises(FlowError, match="shows nothing new that says it worked"):
        flow_from_trace(run)


def test_a_screen_saying_the_payment_failed_is_no_proof(tmp_path: Path) -> None:
    run = trace(tmp_path / "run", paid_screen("Payment failed", "Payment not completed"))
    with pytest.raises(FlowError, match="nothing new that says it worked"):
        flow_from_trace(run)


def test_the_last_screen_decides_not_an_earlier_one(tmp_path: Path) -> None:
    run = trace(tmp_path / "run", paid_screen("Order placed"), paid_screen("Home"))
    with pytest.raises(FlowError, match="nothing new"):
        flow_from_trace(run)


@pytest.mark.parametrize("text, cue", [("Payment successful", "successful"),
                                       ("Order placed", "placed"), ("Message sent", "sent"),
                                       ("支付成功", "成功"), ("已删除", "已删除"),
                                       ("Payment failed", None), ("Not sent", None),
                                       ("支付失败", None), ("Back to home", None),
                                       ("Payment processing", None)])
def test_success_words(text: str, cue: str | None) -> None:
    assert success_cue(text) == cue


class Events:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    def record_event(self, kind: str, **data: Any) -> None:
        self.events.append((kind, data))


def test_the_cache_says_in_the_trace_why_a_paying_run_was_not_filed(tmp_path: Path) -> None:
    run = trace(tmp_path / "run")
    events = Events()
    cache = ReplayCache(tmp_path / "cache")
    assert cache.remember("Pay for the order in Shop", run, object(), "Paid", events) is None
    assert cache.store.entries() == []
    [(kind, data)] = events.events
    assert kind == "cache_not_saved" and "cannot be undone (paid once)" in data["reason"]


def test_typing_with_enter_sends_only_in_a_message_box_next_to_a_send_button() -> None:
    send = {"id": 9, "role": "button", "text": "Send", "resource_id": "x:id/send"}
    box = {"id": 4, "role": "input", "text": "", "resource_id": "x:id/message_input"}
    search = {"id": 5, "role": "input", "text": "", "resource_id": "x:id/search_input"}
    typed = TypeText(text="hello", submit=True, target=ElementTarget(id=4))
    assert once_class(typed, box, None, [box, send]) == ("send", "type and send 'hello'")
    assert once_class(typed, search, None, [search, send]) is None
    assert once_class(typed, box, None, [box]) is None  # no Send button: ENTER is a newline
    assert once_class(Tap(target=ElementTarget(id=9)), send, None, [send])[0] == "send"
    assert once_class(Tap(target=AnchorTarget(text="Delete note")), None, None, [])[0] == \
        "delete"
    assert once_class(Tap(target=AnchorTarget(text="Like")), None, None, []) is None
