"""A phone model alone (issue 28) on the FakeDriver, through the real openai client over
httpx.MockTransport: the run acts in the model's own format, a "done" nothing could check
ends ``unverified`` with the task not listed as done, and a UI-TARS reply's every action
runs in the flat loop."""

from __future__ import annotations

from typing import Any

from omg_agent.core.actions import Action, Tap
from omg_agent.core.observation import UIElement

from .fakes import FakeWorld, Recorder, ScriptedModel, el, orchestrator
from .test_orchestrator_transitions import Phone


class Switches:
    """A launcher with Settings on row 1; Settings with the Wi-Fi switch alone on row 3."""

    def __init__(self) -> None:
        self.wifi = True

    def world(self) -> FakeWorld:
        return FakeWorld({
            "home": ("launcher", [el(1, "Settings")]),
            "settings": lambda: ("com.android.settings", [
                el(3, res="wifi_switch", checkable=True, checked=self.wifi)])},
            self.move, "home")

    def move(self, screen: str, action: Action, element: UIElement | None) -> str:
        if isinstance(action, Tap) and element is not None:
            if element.text == "Settings":
                return "settings"
            if element.resource_id == "wifi_switch":
                self.wifi = not self.wifi
        return screen


def _script(*texts: str) -> ScriptedModel:
    queue = list(texts)

    def policy(contract: str, text: str, body: dict[str, Any]) -> str:
        assert contract == "?", "a phone model is never sent our JSON schema"
        return queue.pop(0) if len(queue) > 1 else queue[0]

    return ScriptedModel(policy)


def test_autoglm_alone_acts_and_its_done_ends_unverified_not_done() -> None:
    phone = Switches()
    # "Settings" at (500, 145) and the switch at (500, 345) of a 1000x2000 screen
    model = _script('打开设置 do(action="Tap", element=[500,73])',
                    '点击开关 do(action="Tap", element=[500,173])',
                    'Wi-Fi 已关闭 finish(message="Wi-Fi is off")')
    recorder = Recorder()
    with orchestrator(phone.world(), model, planning="flat", dialect="autoglm",
                      recorder=recorder) as orch:
        result = orch.run("Turn off Wi-Fi")
    assert not phone.wifi  # the phone did what was asked
    assert (result.status, result.answer) == ("unverified", "Wi-Fi is off")
    assert result.done == [] and "no check could confirm it" in result.stopped_because
    assert result.planner_calls == 0 and len(model.requests) == 3
    assert "unverified" in recorder.kinds()


def test_every_action_of_a_uitars_reply_runs_in_the_flat_loop() -> None:
    phone = Phone()
    world = phone.world("editor")
    # the title field's centre (500, 145) on the 1008x1988 image UI-TARS sees
    model = _script("Thought: rename the note\nAction: click(point='<point>504 144</point>')"
                    "\n\ntype(content='new')", "Thought: t\nAction: finished(content='ok')")
    with orchestrator(world, model, planning="flat", dialect="uitars") as orch:
        result = orch.run("Rename the note to new")
    assert world.log[:2] == [("editor", "tap"), ("editor", "type")]
    assert result.status == "unverified"
