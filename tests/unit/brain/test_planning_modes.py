"""The four planning modes (issue #11) on the FakeDriver with the real openai client over
httpx.MockTransport: who plans, how many actions a call runs, when the planner is asked."""

from __future__ import annotations

from typing import Any

import pytest

from omg_agent.config import Settings
from omg_agent.errors import ConfigError
from omg_agent.sim.expert.screen import request_text

from .fakes import FakeWorld, Recorder, ScriptedModel, bundle, el, orchestrator, plan, tap
from .test_orchestrator_transitions import TWO_CHECKED, Phone, _two_steps, replies

SWITCH = {"type": "tap", "target": {"kind": "anchor", "resource_id": "wifi_switch"}}
WIFI_OFF = [{"kind": "element", "resource_id": "wifi_switch", "checked": False}]


def test_the_mode_is_one_setting_with_four_values() -> None:
    for mode in ("flat", "unified", "replan-each", "adaptive"):
        assert Settings(planning=mode).planning == mode
    assert Settings().planning == "unified"  # the best of the four, measured (README)
    with pytest.raises(ConfigError, match="planning"):
        Settings.load(overrides={"planning": "sometimes"})


def test_flat_has_no_planner_and_runs_one_action_per_call() -> None:
    phone = Phone()

    def one_by_one(text: str) -> dict[str, Any]:
        if "launcher" in text:  # a careless model sends two: only the first runs
            return bundle(tap("Settings"), SWITCH)
        if phone.wifi:
            return bundle(SWITCH)
        return bundle(goal_complete=True, answer="Wi-Fi is off")

    model = ScriptedModel(replies(("DecisionBundle", one_by_one)))
    with orchestrator(phone.world(), model, planning="flat", confirm_done="never") as orch:
        result = orch.run("Turn off Wi-Fi")
    assert result.status == "done" and not phone.wifi
    assert model.contracts() == ["DecisionBundle"] * 3 and result.planner_calls == 0
    system = model.requests[0]["messages"][0]["content"]
    assert "exactly one action" in system
    assert "dropped the other 1" in request_text(model.requests[1])


@pytest.mark.parametrize("confirm", ["unverified", "always"])
def test_a_flat_claim_without_checks_asks_the_planner_only_when_told_to_always(
        confirm: str) -> None:
    # issue 40: the flat loop is the peers' loop — no planner call unless asked for
    phone = Phone()
    steps = iter([bundle(tap("Settings")), bundle(SWITCH)])

    def operator(text: str) -> dict[str, Any]:
        return next(steps, bundle(goal_complete=True, answer="off"))

    model = ScriptedModel(replies(("DecisionBundle", operator),
                                  ("Replan", {"status": "done", "response": "Wi-Fi is off",
                                              "evidence": WIFI_OFF})))
    with orchestrator(phone.world(), model, planning="flat", confirm_done=confirm) as orch:
        result = orch.run("Turn off Wi-Fi")
    if confirm == "unverified":
        assert result.status == "done" and result.answer == "off"
        assert model.contracts() == ["DecisionBundle"] * 3 and result.planner_calls == 0
        return
    assert result.status == "done" and result.answer == "Wi-Fi is off"
    assert model.contracts() == ["DecisionBundle"] * 3 + ["Replan"]
    assert result.planner_calls == 1
    confirm_request = model.requests[-1]["messages"][-1]["content"]
    assert any(p.get("type") == "image_url" for p in confirm_request)  # from the screenshot


@pytest.mark.parametrize("evidence", [
    None,  # words alone
    [{"kind": "app", "app": "Settings"}],  # true on the way there too: proves nothing
    [{"kind": "element", "resource_id": "wifi_switch", "checked": False}],  # it is on
])
def test_a_confirmation_the_screen_does_not_back_never_ends_done(evidence) -> None:
    """The planner's 'done' is a claim too: without an element the screen shows, the operator
    gets one more try, and a second unproven confirmation ends the run failed."""
    phone = Phone()
    steps = iter([bundle(tap("Settings"))])  # Wi-Fi is never switched off

    def operator(text: str) -> dict[str, Any]:
        return next(steps, bundle(goal_complete=True, answer="off"))

    model = ScriptedModel(replies(("DecisionBundle", operator),
                                  ("Replan", {"status": "done", "response": "Wi-Fi is off",
                                              "evidence": evidence})))
    recorder = Recorder()
    with orchestrator(phone.world(), model, planning="flat", recorder=recorder,
                      confirm_done="always") as orch:
        result = orch.run("Turn off Wi-Fi")
    assert result.status == "failed" and phone.wifi
    assert "the screen never showed it" in result.stopped_because
    assert model.contracts().count("Replan") == 2
    unproven = [e for e in recorder.events if e[0] == "confirmation_unproven"]
    assert len(unproven) == 2
    retry = request_text(model.requests[model.contracts().index("Replan") + 1])
    assert "You reported the task done, but" in retry  # the operator is told why


def test_unified_adopts_the_operators_end_checks_and_ticks_them_without_a_planner() -> None:
    phone = Phone()
    recorder = Recorder()
    todo_seen: list[str] = []

    def operator(text: str) -> dict[str, Any]:
        todo_seen.append(text)
        if "launcher" in text:
            return bundle(tap("Settings"), SWITCH, todo=["[ ] open Settings",
                                                         "[ ] switch Wi-Fi off"],
                          end_checks=WIFI_OFF)
        return bundle(SWITCH, todo=["[x] open Settings", "[ ] switch Wi-Fi off"])

    model = ScriptedModel(replies(("DecisionBundle", operator)))
    with orchestrator(phone.world(), model, planning="unified", recorder=recorder) as orch:
        result = orch.run("Turn off Wi-Fi")
    # the first bundle opened Settings and tapped the switch by its anchor: the checks the
    # operator wrote pass on the next screen, so the task is ticked without another call
    assert result.status == "done" and not phone.wifi
    assert model.contracts() == ["DecisionBundle"] and result.planner_calls == 0
    assert "you keep the plan" in model.requests[0]["messages"][0]["content"]
    assert [e for e, _ in recorder.events].count("end_checks") == 1


def test_a_like_is_proved_by_the_buttons_selected_state_with_no_confirming_turn() -> None:
    # relay round 27: "Liked ♥" is unknown until it shows, so a like cost a turn to say done
    import dataclasses

    liked = {"on": False}

    def feed() -> tuple[str, list[Any]]:
        button = el(2, "Liked ♥" if liked["on"] else "Like", desc="Like post 10", res="like")
        return "com.omg.feed", [el(1, "Alice", role="text", clickable=False),
                                dataclasses.replace(button, selected=liked["on"])]

    def move(screen: str, action: Any, element: Any) -> str:
        liked["on"] = liked["on"] or (element is not None and element.desc == "Like post 10")
        return screen

    like = {"type": "tap", "target": {"kind": "anchor", "desc": "Like post 10"}}
    model = ScriptedModel(replies(("DecisionBundle", lambda text: bundle(like, end_checks=[
        {"kind": "element", "desc": "Like post 10", "selected": True}]))))
    with orchestrator(FakeWorld({"feed": feed}, move, "feed"), model,
                      planning="unified") as orch:
        result = orch.run("Like post 10 in Feed")
    assert result.status == "done" and liked["on"]
    assert model.contracts() == ["DecisionBundle"]


def test_unified_shows_its_own_checklist_back_and_never_weakens_its_checks() -> None:
    phone = Phone()

    def operator(text: str) -> dict[str, Any]:
        if "launcher" in text:
            return bundle(tap("Settings"), todo=["[x] open Settings", "[ ] Wi-Fi off"],
                          end_checks=WIFI_OFF)
        if phone.wifi:  # a later turn trying to swap in an easier end state is ignored
            return bundle(SWITCH, end_checks=[{"kind": "app", "app": "Settings"}])
        return bundle(goal_complete=True, answer="off")

    model = ScriptedModel(replies(("DecisionBundle", operator)))
    with orchestrator(phone.world(), model, planning="unified") as orch:
        result = orch.run("Turn off Wi-Fi")
    assert result.status == "done" and not phone.wifi
    assert "- [x] open Settings\n- [ ] Wi-Fi off" in request_text(model.requests[1])
    assert result.planner_calls == 0


def test_a_step_finished_and_the_next_started_in_one_reply_ticks_both() -> None:
    phone = Phone()
    first = plan({"description": "Open Settings", "checks": [{"kind": "app",
                                                             "app": "Settings"}]},
                 {"description": "Turn off Wi-Fi", "checks": WIFI_OFF})
    recorder = Recorder()

    def operator(text: str) -> dict[str, Any]:
        if "launcher" in text:
            return bundle(tap("Settings"))
        # step 1 is done on this screen; the same reply already works on step 2
        return bundle(SWITCH, step_complete=True)

    model = ScriptedModel(replies(("TaskPlan", first), ("DecisionBundle", operator)))
    with orchestrator(phone.world(), model, recorder=recorder) as orch:
        result = orch.run("Turn off Wi-Fi")
    assert result.status == "done" and not phone.wifi
    assert model.contracts() == ["TaskPlan", "DecisionBundle", "DecisionBundle"]
    ticked = [d["step"] for e, d in recorder.events if e == "step_done"]
    assert ticked == [1, 2]


def test_an_adaptive_failed_step_asks_the_planner_once() -> None:
    phone = Phone()
    model = ScriptedModel(replies(
        ("TaskPlan", plan({"description": "Turn off Wi-Fi", "checks": WIFI_OFF,
                           "on_fail": "replan"})),
        ("DecisionBundle", lambda text: bundle(tap("Settings")) if "launcher" in text
         else bundle(tap("Check for update"))),  # the wrong button, three times
        ("Replan", {"status": "give_up", "response": "could not find the switch"})))
    with orchestrator(phone.world(), model, loop_guard=False) as orch:
        result = orch.run("Turn off Wi-Fi")
    assert result.status == "failed"
    assert model.contracts().count("TaskPlan") == 1 and model.contracts().count("Replan") == 1
    assert result.planner_calls == 2


@pytest.mark.parametrize("flag", [{"plan_outdated": "Wi-Fi is already off"}, None])
def test_adaptive_replans_when_the_plan_no_longer_fits(flag: dict[str, Any] | None) -> None:
    """The operator says so, or it saved a value no step foresaw: the planner is asked."""
    phone = Phone()
    saving = {"type": "mem_save", "key": "wifi_state", "value": "on"}

    def operator(text: str) -> dict[str, Any]:
        if "launcher" in text:
            return bundle(tap("Settings")) if flag else bundle(saving, tap("Settings"))
        return bundle(SWITCH, **(flag or {}))

    model = ScriptedModel(replies(("TaskPlan", TWO_CHECKED), ("DecisionBundle", operator),
                                  ("Replan", {"status": "replanned", "plan": plan(
                                      {"description": "Turn off Wi-Fi",
                                       "checks": WIFI_OFF})})))
    recorder = Recorder()
    with orchestrator(phone.world(), model, recorder=recorder) as orch:
        orch.run("Turn off Wi-Fi")
    assert model.contracts().count("Replan") >= 1
    [unfit] = [d for e, d in recorder.events if e == "plan_unfit"]
    assert ("already off" in unfit["reason"]) if flag else ("wifi_state" in unfit["reason"])


def test_a_replan_sees_the_screen_the_turns_actions_left() -> None:
    """The turn's observation was taken before its bundle ran; the planner must not judge
    the phone from it (a liked post would still say "Like" there, and liking it again
    unlikes it)."""
    phone = Phone()
    saving = {"type": "mem_save", "key": "wifi_state", "value": "on"}

    def operator(text: str) -> dict[str, Any]:
        return bundle(saving, tap("Settings")) if "launcher" in text else bundle(SWITCH)

    model = ScriptedModel(replies(("TaskPlan", TWO_CHECKED), ("DecisionBundle", operator),
                                  ("Replan", {"status": "replanned", "plan": plan(
                                      {"description": "Turn off Wi-Fi",
                                       "checks": WIFI_OFF})})))
    with orchestrator(phone.world(), model) as orch:
        orch.run("Turn off Wi-Fi")
    [replan, *_] = [r for c, r in zip(model.contracts(), model.requests, strict=True)
                    if c == "Replan"]
    shown = request_text(replan)
    assert "app com.android.settings" in shown and "wifi_switch" in shown
    assert 'button "Notes"' not in shown  # the launcher the turn started on


def test_adaptive_does_not_replan_for_data_the_plan_foresaw() -> None:
    phone = Phone()
    saving = plan({"description": "Open Settings", "data_output": "wifi_state",
                   "checks": [{"kind": "element", "text": "Wi-Fi"},
                              {"kind": "memory", "key": "wifi_state"}]},
                  {"description": "Turn off Wi-Fi", "checks": WIFI_OFF})

    def operator(text: str) -> dict[str, Any]:
        if 'button "Notes"' in text:  # the launcher (memory names it too: not its name)
            return bundle({"type": "mem_save", "key": "wifi_state", "value": "on"},
                          tap("Settings"))
        return bundle(SWITCH)

    model = ScriptedModel(replies(("TaskPlan", saving), ("DecisionBundle", operator)))
    with orchestrator(phone.world(), model) as orch:
        result = orch.run("Turn off Wi-Fi")
    assert result.status == "done" and "Replan" not in model.contracts()
    assert model.contracts() == ["TaskPlan", "DecisionBundle", "DecisionBundle"]


def test_the_first_plan_sees_the_screenshot_and_the_element_list() -> None:
    model = ScriptedModel(replies(("TaskPlan", TWO_CHECKED), ("DecisionBundle", _two_steps)))
    with orchestrator(Phone().world(), model) as orch:
        orch.run("Turn off Wi-Fi")
    content = model.requests[0]["messages"][-1]["content"]
    assert any(p.get("type") == "image_url" for p in content)
    assert '"Settings"' in request_text(model.requests[0])


def test_a_unified_run_calls_the_planner_once_a_step_failed_and_follows_its_plan() -> None:
    """No planner while things work; a failed step (here: a dead button the loop guard
    gives up on) gets the planner with the post-mortem, and the run goes on with its plan —
    as adaptive would."""
    phone = Phone()
    recorder = Recorder()

    def operator(text: str) -> dict[str, Any]:
        if 'button "Notes"' in text:
            return bundle(tap("Settings"))
        if "Current step 1: Turn off Wi-Fi (the planner's step)" in text:
            return bundle(SWITCH)
        return bundle(tap("Check for update"))  # the wrong button, until the planner helps

    model = ScriptedModel(replies(
        ("DecisionBundle", operator),
        ("Replan", {"status": "replanned", "plan": plan(
            {"description": "Turn off Wi-Fi (the planner's step)", "checks": WIFI_OFF})})))
    with orchestrator(phone.world(), model, planning="unified", recorder=recorder) as orch:
        result = orch.run("Turn off Wi-Fi")
    assert result.status == "done" and not phone.wifi
    assert model.contracts().count("Replan") == 1 and "TaskPlan" not in model.contracts()
    assert [e for e, _ in recorder.events].count("planner_takes_over") == 1
    replan = request_text([r for r in model.requests if "Replan" in str(
        r.get("response_format"))][0])
    assert "Post-mortem" in replan
    # after the takeover the operator is told about the planner's plan, not its own list
    last = model.requests[-1]["messages"][0]["content"]
    assert "you keep the plan" not in last


def test_a_planner_taking_over_gets_the_operators_checklist_and_last_turns() -> None:
    """Relay notes (issue #27): prices the operator noted while scanning were lost when the
    planner took over, and the list was scanned again."""
    phone = Phone()
    noted = ["[x] open Settings", "[x] noted: Wi-Fi is ON, update button at the bottom",
             "[ ] turn off Wi-Fi"]

    def operator(text: str) -> dict[str, Any]:
        if 'button "Notes"' in text:
            return bundle(tap("Settings"), todo=noted)
        if "Current step 1: Turn off Wi-Fi (the planner's step)" in text:
            return bundle(SWITCH)
        return bundle(tap("Check for update"), todo=noted)

    model = ScriptedModel(replies(
        ("DecisionBundle", operator),
        ("Replan", {"status": "replanned", "plan": plan(
            {"description": "Turn off Wi-Fi (the planner's step)", "checks": WIFI_OFF})})))
    with orchestrator(phone.world(), model, planning="unified") as orch:
        result = orch.run("Turn off Wi-Fi")
    assert result.status == "done"
    replans = [request_text(r) for r in model.requests if "Replan" in str(
        r.get("response_format"))]
    assert len(replans) == 1
    assert "What the operator knew" in replans[0]
    assert "noted: Wi-Fi is ON, update button at the bottom" in replans[0]
    assert "tap 'Check for update'" in replans[0]  # its last turns


def test_the_operator_is_told_when_older_turns_are_left_out() -> None:
    """The prompt shows the last six turns; a longer run says how many it leaves out, so
    the model does not take the window for the whole run."""
    phone = Phone()
    turns = iter([bundle(tap("Settings"))] + [bundle(tap("Check for update"))] * 7)

    def operator(text: str) -> dict[str, Any]:
        return next(turns, bundle(goal_complete=True, answer="checked"))

    model = ScriptedModel(replies(("DecisionBundle", operator)))
    with orchestrator(phone.world(), model, planning="unified", loop_guard=False,
                      confirm_done="never") as orch:
        orch.run("Check for updates")
    texts = [request_text(r) for r in model.requests]
    assert len(texts) == 9 and "earlier turn" not in texts[6]  # six before it: all shown
    assert "(1 earlier turn summarised: " in texts[7]
    assert "(2 earlier turns summarised: " in texts[8]
