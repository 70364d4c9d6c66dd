"""The operator's review of a segment the executor planned: the gate judges the element the
executor resolved (not its own guess), and a segment's mem_save reads the screen planned on."""

from __future__ import annotations

from omg_agent.brain.operator import TurnResult
from omg_agent.brain.segment_review import SegmentReview
from omg_agent.core.actions import MemSave, PointTarget, Tap, parse_action
from omg_agent.core.contracts import DecisionBundle
from omg_agent.drivers.ports import Planned
from omg_agent.guards.confirmation import ScriptedChannel
from omg_agent.guards.gatekeeper import GateKeeper
from omg_agent.guards.sensitive import Gate

from .fakes import FakeWorld, el

PAY = el(3, "Pay ¥10,509.00", res="pay")
SHOP = FakeWorld({"checkout": ("com.omg.shop", [el(1, "Kettle", role="text",
                                                    clickable=False), PAY])},
                 lambda screen, action, element: screen, "checkout").observation()
FAR = Tap(target=PointTarget(x=500, y=1000))  # far below every element of the screen


def review(keeper: GateKeeper | None, *actions) -> tuple[SegmentReview, TurnResult]:
    result = TurnResult("acted", DecisionBundle(thought="t", last_action_result="success",
                                                step_complete=True), SHOP)

    def save(action: MemSave, screen) -> str:
        return f"read on {screen.screen_hash}"

    return SegmentReview(list(actions), 0, len(actions), False, result, save, keeper), result


def test_the_gate_holds_a_tap_the_executor_resolved_onto_pay() -> None:
    channel = ScriptedChannel([False])
    keeper = GateKeeper(Gate([]), channel, "open the shop")
    assert keeper.review([FAR], SHOP) is None  # alone, the gate finds nothing under the point
    seg, _ = review(keeper, FAR)
    assert seg.review([Planned(0, FAR, element=PAY)], SHOP) == 0  # the executor's element
    assert seg.held is not None and "pay" in seg.held.request.describe.lower()
    assert seg.held.element is PAY and len(channel.requests) == 1


def test_a_segments_mem_save_reads_the_screen_planned_on_and_the_user_is_asked_once() -> None:
    saving = parse_action({"type": "mem_save", "key": "k", "value": "v"})
    channel = ScriptedChannel([True])
    seg, result = review(GateKeeper(Gate([]), channel, "t"), saving, FAR)
    assert seg.review([Planned(0, saving), Planned(1, FAR, element=PAY)], SHOP) is None
    assert result.saved == {"k": "read on checkout"}
    assert [r["detail"] for r in result.results if r["type"] == "gate"] == [
        f"the user confirmed: {channel.requests[0].describe}"]
