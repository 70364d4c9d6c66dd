"""Honest done: an end state a run made with a switch must still show a moment later
(brain/end_holds.py) — Bluetooth that flips back off after its checks passed is no ``done``.

FakeDriver screens (its clock passes only when the executor waits), the real openai client
on httpx.MockTransport."""

from __future__ import annotations

from typing import Any

from omg_agent.core.actions import Action
from omg_agent.core.observation import UIElement

from .fakes import FakeWorld, ScriptedModel, bundle, el, orchestrator, plan

SETTINGS = "com.android.settings"


def settings(bounces: bool) -> tuple[FakeWorld, dict[str, Any]]:
    """Settings with a Bluetooth switch; with ``bounces`` the switch flips back off a second
    after it was turned on (as the vphone's ``bouncing_toggle``), on the driver's clock
    (``state["clock"]``: it passes only when the executor waits)."""
    state: dict[str, Any] = {"on": False, "at": None, "clock": lambda: 0.0, "about": False}

    def screen() -> tuple[str, list[UIElement]]:
        if state["at"] is not None and state["clock"]() >= state["at"] + 1.0:
            state["on"], state["at"] = False, None
        return SETTINGS, [el(1, "Settings", clickable=False),
                          el(2, "Bluetooth", res="bluetooth_switch", checkable=True,
                             checked=state["on"]),
                          el(3, "On, discoverable" if state["on"] else "Off",
                             clickable=False),
                          el(4, "About phone"),
                          el(5, "Model: Pixel" if state["about"] else "", clickable=False)]

    def move(current: str, action: Action, element: UIElement | None) -> str:
        if element is not None and element.resource_id == "bluetooth_switch":
            state["on"] = not state["on"]
            state["at"] = state["clock"]() if bounces and state["on"] else None
        elif element is not None and element.text == "About phone":
            state["about"] = True
        return current

    return FakeWorld({"main": screen}, move, "main"), state


def switch_script() -> ScriptedModel:
    replies = [("TaskPlan", plan({"description": "Turn on Bluetooth", "checks": [
                   {"kind": "element", "text": "discoverable", "match": "contains"}]})),
               ("DecisionBundle", bundle({"type": "tap", "target": {
                   "kind": "anchor", "resource_id": "bluetooth_switch"}}))]

    def policy(contract: str, text: str, body: dict[str, Any]) -> Any:
        want, reply = replies.pop(0)
        assert contract == want, (contract, want)
        return reply

    return ScriptedModel(policy)


def test_a_switch_that_flips_back_after_its_checks_passed_is_not_done() -> None:
    world, state = settings(bounces=True)
    with orchestrator(world, switch_script()) as orch:
        state["clock"] = orch.driver.inner.clock
        result = orch.run("Turn on Bluetooth")
    assert state["on"] is False
    assert result.status == "unverified", result.summary()
    assert "did not stay" in result.stopped_because


def test_a_switch_that_stays_on_ends_done_after_one_look_a_moment_later() -> None:
    world, state = settings(bounces=False)
    with orchestrator(world, switch_script()) as orch:
        state["clock"] = clock = orch.driver.inner.clock
        result = orch.run("Turn on Bluetooth")
    assert state["on"] is True and clock.now > 1.0  # it waited before it looked again
    assert result.status == "done", result.summary()


def test_a_run_that_toggled_nothing_waits_for_nothing() -> None:
    world, state = settings(bounces=True)
    model = ScriptedModel(lambda contract, text, body: (
        plan({"description": "Open About phone", "checks": [
            {"kind": "element", "text": "Model: Pixel"}]}) if contract == "TaskPlan"
        else bundle({"type": "tap", "target": {"kind": "anchor", "text": "About phone"}})))
    with orchestrator(world, model) as orch:
        clock = orch.driver.inner.clock
        result = orch.run("Show the phone's model in Settings")
    assert result.status == "done", result.summary()
    assert clock.now == 0.0
