"""What a stopped run says it did (issue 25): the ticked plan steps and, from the trace, the
actions the device carried out — counted — whatever ended the run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from omg_agent.brain.budget import MAX_DONE_ITEMS, StopReport, actions_done, done_so_far
from omg_agent.trace import TraceRecorder

from .fakes import FakeWorld, ScriptedModel, bundle, el, orchestrator, plan, tap


def _replies(*script: tuple[str, Any]):
    """A policy answering each contract with its one reply, every time."""
    answers = dict(script)
    return lambda contract, text, body: answers.get(contract)


def _turn(*pairs: tuple[dict, bool], elements: list[dict] | None = None) -> dict:
    return {"actions": [a for a, _ in pairs],
            "results": [{"index": i, "ok": ok} for i, (_, ok) in enumerate(pairs)]
            + [{"type": "screen", "ok": True}],  # a marker with no action of its own
            "elements": elements or []}


def test_carried_out_actions_are_counted_by_what_they_did() -> None:
    like = {"type": "tap", "target": {"kind": "element", "id": 7}}
    swipe = {"type": "swipe", "direction": "up"}
    turns = [_turn((like, True), (swipe, True), elements=[{"id": 7, "text": "Like"}])
             for _ in range(195)]
    turns.append(_turn(({"type": "tap", "target": {"kind": "anchor", "text": "Like"}}, True),
                       ({"type": "launch", "app": "Feed"}, True)))
    assert done_so_far([("Open Feed", True)], [], trace=turns) == (
        "Open Feed", "tapped 'Like' ×196", "swiped up ×195", "launched Feed")


def test_failed_and_device_free_actions_are_not_counted_as_done() -> None:
    turns = [_turn(({"type": "tap", "target": {"kind": "anchor", "text": "Pay"}}, False),
                   ({"type": "wait", "seconds": 1}, True), ({"type": "done"}, True))]
    assert actions_done(turns) == ()
    assert "nothing yet" in StopReport(done_so_far([], [], trace=turns), "x", "y").message()


def test_a_long_tail_of_different_actions_is_counted_together() -> None:
    turns = [_turn(({"type": "type", "text": f"word {i}"}, True)) for i in range(12)]
    done = actions_done(turns)
    assert len(done) == MAX_DONE_ITEMS + 1 and done[-1] == "4 more actions on the device"


def test_the_budget_stop_report_lists_the_likes_the_trace_recorded(tmp_path: Path) -> None:
    liked: list[int] = []

    def move(screen: str, action: Any, element: Any) -> str:
        if element is not None and element.text == "Like":
            liked.append(1)
        return screen

    world = FakeWorld({"feed": lambda: ("com.omg.feed", [  # each like changes the screen
        el(1, "Like"), el(2, f"{len(liked)} liked", role="text", clickable=False)])},
        move, "feed")
    model = ScriptedModel(_replies(
        ("TaskPlan", plan({"description": "Like the first 200 posts"})),
        ("DecisionBundle", bundle(tap("Like")))))
    with TraceRecorder(tmp_path / "run", task="like") as recorder, \
            orchestrator(world, model, max_steps=8, recorder=recorder) as orch:
        result = orch.run("Like the first 200 posts")
    # the planner never answers validly: its last call's refused replies cost one step
    # (issue 40), and the run stops on them or on the budget — the likes are listed either way
    assert result.status == "failed" and ("step budget" in result.stopped_because
                                          or "no valid reply" in result.stopped_because)
    assert liked and result.done == [f"tapped 'Like' ×{len(liked)}"], result.done
    assert "nothing yet" not in result.summary()
