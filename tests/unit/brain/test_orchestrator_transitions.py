"""Every orchestrator transition on a FakeDriver with the real openai client over
httpx.MockTransport: milliseconds each, no device, no socket, nothing monkeypatched."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from omg_agent.core.actions import Action, Back, Tap
from omg_agent.core.observation import UIElement
from omg_agent.guards.confirmation import ScriptedChannel
from omg_agent.sim.expert.screen import request_text

from .fakes import (
    FakeWorld,
    Recorder,
    ScriptedModel,
    bundle,
    el,
    orchestrator,
    plan,
    tap,
    user_text,
)


@dataclass
class Phone:
    """A tiny phone: a launcher, Settings (Wi-Fi on, Bluetooth off), Notes with a note 'old'
    and its editor, a dead 'Check for update' button."""

    wifi: bool = True
    notes: list[str] = field(default_factory=lambda: ["old", "keep"])

    def world(self, start: str = "home") -> FakeWorld:
        return FakeWorld({
            "home": ("launcher", [el(1, "Settings"), el(2, "Notes")]),
            "settings": lambda: ("com.android.settings", [
                el(1, "Wi-Fi", role="text", clickable=False),
                el(2, "ON" if self.wifi else "OFF", role="text", clickable=False, row=1),
                el(3, res="wifi_switch", checkable=True, checked=self.wifi, row=1),
                el(4, "Bluetooth", role="text", clickable=False),
                el(5, "OFF", role="text", clickable=False, row=4),
                el(6, res="bt_switch", checkable=True, checked=False, row=4),
                el(7, "Check for update")]),
            "notes": lambda: ("com.omg.notes", [el(i + 1, n, role="text")
                                                for i, n in enumerate(self.notes)]),
            "editor": ("com.omg.notes", [el(1, "old", res="title", editable=True),
                                         el(2, "Delete")]),
        }, self.move, start)

    def move(self, screen: str, action: Action, element: UIElement | None) -> str:
        label = element.text or element.resource_id if element else ""
        if isinstance(action, Back):
            return "notes" if screen == "editor" else "home"
        if not isinstance(action, Tap):
            return screen
        match screen, label:
            case "home", "Settings":
                return "settings"
            case "home", "Notes":
                return "notes"
            case "settings", "wifi_switch":
                self.wifi = not self.wifi
            case "notes", "old":
                return "editor"
            case "editor", "Delete":
                self.notes.remove("old")
                return "notes"
        return screen


def replies(*script: Any, then: Any = None):
    """A policy answering each contract from its own queue (the last answer repeats)."""
    queues: dict[str, list[Any]] = {}
    for contract, reply in script:
        queues.setdefault(contract, []).append(reply)

    def policy(contract: str, text: str, body: dict[str, Any]) -> Any:
        queue = queues.get(contract) or [then]
        reply = queue.pop(0) if len(queue) > 1 else queue[0]
        return reply(text) if callable(reply) else reply

    return policy


OFF_PLAN = plan({"description": "Turn off Wi-Fi",
                 "success_criteria": 'the Wi-Fi row says "OFF"'})


# -- honest outcomes (the probes) ---------------------------------------------------------
def test_a_planner_done_after_a_failed_step_ends_the_run_failed_in_its_words() -> None:
    phone = Phone()
    model = ScriptedModel(replies(
        ("TaskPlan", OFF_PLAN),
        ("DecisionBundle", bundle(tap("No such switch"))),
        ("Replan", {"status": "done", "response": "I could not turn off Wi-Fi"})))
    with orchestrator(phone.world(), model) as orch:
        result = orch.run("Turn off Wi-Fi")
    assert result.status == "failed" and result.answer == ""
    assert "I could not turn off Wi-Fi" in result.stopped_because
    assert "failed (ELEMENT_NOT_FOUND)" in result.stopped_because
    assert phone.wifi


def test_quoted_off_with_bluetooth_off_and_wifi_on_is_not_done_without_the_planner() -> None:
    """Prose criteria: the claim goes to the planner with the screenshot; a planner that
    sees Wi-Fi still on replans, and nothing ends the run as done."""
    phone = Phone()
    model = ScriptedModel(replies(
        ("TaskPlan", OFF_PLAN),
        ("DecisionBundle", bundle(tap("Settings"))),
        ("DecisionBundle", bundle(goal_complete=True, answer="Wi-Fi is off")),
        ("Replan", {"status": "give_up", "response": "Wi-Fi is still on"})))
    with orchestrator(phone.world(), model) as orch:
        result = orch.run("Turn off Wi-Fi")
    assert result.status == "failed" and phone.wifi
    confirm = [r for r in model.requests if "Replan" in str(r.get("response_format"))][0]
    assert any(p.get("type") == "image_url" for p in confirm["messages"][-1]["content"])


def test_an_off_check_reads_the_wifi_switch_not_bluetooths_off() -> None:
    phone = Phone()
    checked = plan({"description": "Turn off Wi-Fi", "success_criteria": "Wi-Fi is off",
                    "checks": [{"kind": "element", "text": "Wi-Fi", "checked": False}]})
    model = ScriptedModel(replies(
        ("TaskPlan", checked),
        ("DecisionBundle", bundle(tap("Settings"))),
        ("DecisionBundle", bundle(goal_complete=True, answer="done")),
        ("Replan", {"status": "give_up", "response": "stuck"})))
    recorder = Recorder()
    with orchestrator(phone.world(), model, recorder=recorder) as orch:
        result = orch.run("Turn off Wi-Fi")
    assert result.status == "failed" and phone.wifi
    refused = [d["reason"] for k, d in recorder.events if k == "not_verified"]
    assert refused and "it is on" in refused[0]
    assert result.post_mortems[0]["reason"] == "NOT_VERIFIED"


def test_a_verified_check_ends_the_run_done_without_a_confirmation_call() -> None:
    phone = Phone()
    checked = plan({"description": "Turn off Wi-Fi", "success_criteria": "Wi-Fi is off",
                    "checks": [{"kind": "element", "resource_id": "wifi_switch",
                                "checked": False}]})
    model = ScriptedModel(replies(
        ("TaskPlan", checked),
        ("DecisionBundle", bundle(tap("Settings"),
                                  {"type": "tap", "target": {"kind": "anchor",
                                                             "resource_id": "wifi_switch"}})),
        ("DecisionBundle", bundle(goal_complete=True, answer="Wi-Fi is off"))))
    with orchestrator(phone.world(), model) as orch:
        result = orch.run("Turn off Wi-Fi")
    # the checks pass on the screen after the tap: the step (and the goal) is done without
    # a model turn that would only say so
    assert result.status == "done" and not phone.wifi and result.answer.startswith("Done:")
    assert model.contracts() == ["TaskPlan", "DecisionBundle"]


def test_a_goal_is_verified_against_the_last_step_not_the_current_one() -> None:
    """The relay case: the operator deletes the note while step 1 ('open the note') is
    current; its title sat in an edit field. The end state (no note 'old') decides."""
    phone = Phone()
    three = plan({"description": "Open note old", "success_criteria": 'editor shows "old"',
                  "checks": [{"kind": "element", "text": "old", "in_field": True}]},
                 {"description": "Delete it", "success_criteria": "deleted"},
                 {"description": "Back in the list", "success_criteria": "old is gone",
                  "checks": [{"kind": "element", "text": "old", "present": False},
                             {"kind": "app", "app": "com.omg.notes"}]})
    model = ScriptedModel(replies(
        ("TaskPlan", three),
        ("DecisionBundle", bundle(tap("Notes"), tap("old"), tap("Delete"))),
        ("DecisionBundle", bundle(goal_complete=True, answer="deleted 'old'"))))
    yes = ScriptedChannel([True])  # the gate asks before Delete; the user says yes
    with orchestrator(phone.world(), model, confirm=yes) as orch:
        result = orch.run("Delete the note old")
    assert result.status == "done" and phone.notes == ["keep"]
    assert [r.cls for r in yes.requests] == ["delete"]
    assert "[ ]" not in result.todo


def test_text_in_an_edit_field_is_no_evidence_unless_the_check_says_so() -> None:
    phone = Phone()
    one = plan({"description": "Open note old", "success_criteria": "open",
                "checks": [{"kind": "element", "text": "old"}]})
    model = ScriptedModel(replies(
        ("TaskPlan", one),
        ("DecisionBundle", bundle(tap("Notes"), tap("old"))),
        ("DecisionBundle", bundle(step_complete=True)),
        ("Replan", {"status": "give_up", "response": "no"})))
    recorder = Recorder()
    with orchestrator(phone.world(), model, recorder=recorder) as orch:
        orch.run("Open old")
    assert "not_verified" in recorder.kinds()


def test_a_planner_done_with_steps_never_done_is_refused() -> None:
    phone = Phone()
    two = plan({"description": "Open Settings"}, {"description": "Turn off Wi-Fi"})
    model = ScriptedModel(replies(
        ("TaskPlan", two),
        ("DecisionBundle", bundle(tap("Settings"))),
        ("DecisionBundle", bundle(step_complete=True)),
        ("Replan", {"status": "done", "response": "Wi-Fi is off"})))
    with orchestrator(phone.world(), model, planning="replan-each") as orch:
        result = orch.run("Turn off Wi-Fi")
    assert result.status == "failed" and "'Turn off Wi-Fi' was never done" in \
        result.stopped_because
    assert result.done == ["Open Settings"]


def test_a_planner_infeasible_ends_the_run_infeasible() -> None:
    model = ScriptedModel(replies(
        ("TaskPlan", plan({"description": "Find the Dark mode switch"})),
        ("DecisionBundle", bundle(tap("Dark mode"))),
        ("Replan", {"status": "infeasible", "response": "there is no Dark mode setting"})))
    with orchestrator(Phone().world("settings"), model) as orch:
        result = orch.run("Turn on dark mode")
    assert result.status == "infeasible" and result.answer == "there is no Dark mode setting"


def test_an_operator_infeasible_ends_the_run_infeasible_without_a_replan() -> None:
    model = ScriptedModel(replies(
        ("TaskPlan", plan({"description": "Find it"})),
        ("DecisionBundle", bundle(goal_infeasible=True, answer="no such product"))))
    with orchestrator(Phone().world(), model) as orch:
        result = orch.run("Buy a unicorn")
    assert result.status == "infeasible" and model.contracts()[-1] == "DecisionBundle"


# -- failure handling -------------------------------------------------------------------------
def test_retry_once_then_replan_with_the_post_mortem() -> None:
    seen: list[str] = []

    def replan(text: str) -> dict[str, Any]:
        seen.append(text)
        return {"status": "give_up", "response": "no way"}

    model = ScriptedModel(replies(("TaskPlan", plan({"description": "Tap Buy"})),
                                  ("DecisionBundle", bundle(tap("Details"))),
                                  ("Replan", replan)))
    recorder = Recorder()
    with orchestrator(Phone().world(), model, recorder=recorder) as orch:
        result = orch.run("buy")
    # 3 failed turns, a retry with a note, 3 more, then the planner with the post-mortem
    assert model.contracts().count("DecisionBundle") == 6
    assert recorder.kinds().count("post_mortem") == 2
    assert "ELEMENT_NOT_FOUND" in seen[0] and result.status == "failed"


def test_jump_to_unticks_back_to_the_named_step() -> None:
    phone = Phone()
    steps = plan({"description": "Open Settings", "on_fail": "abort"},
                 {"description": "Tap Buy", "on_fail": "jump_to:1"})
    opened: list[int] = []

    def decide(text: str) -> dict[str, Any]:
        if "Current step 1" in text:
            opened.append(1)
            return bundle(step_complete=True)
        return bundle(tap("Details"))

    model = ScriptedModel(replies(("TaskPlan", steps), ("DecisionBundle", decide),
                                  ("Replan", lambda t: {"status": "replanned",
                                                        "plan": plan({"description":
                                                                      "Tap Buy", "on_fail":
                                                                      "jump_to:1"})})))
    with orchestrator(phone.world("settings"), model, max_steps=60) as orch:
        result = orch.run("buy")
    assert len(opened) >= 2  # step 1 was done again after the jump
    assert result.status == "failed"


def test_a_failed_step_rolls_back_to_the_last_verified_screen() -> None:
    phone = Phone()
    steps = plan({"description": "Open Notes", "on_fail": "abort",
                  "checks": [{"kind": "app", "app": "Notes"}]},
                 {"description": "Edit", "on_fail": "replan"})
    model = ScriptedModel(replies(
        ("TaskPlan", steps),
        ("DecisionBundle", bundle(tap("Notes"))),
        ("DecisionBundle", bundle(step_complete=True)),
        ("DecisionBundle", bundle(tap("old"))),
        ("DecisionBundle", bundle(tap("Details"))),
        ("Replan", plan and {"status": "replanned", "plan": plan({"description": "Edit"})}),
        ("Replan", {"status": "give_up", "response": "cannot"})))
    recorder = Recorder()
    world = phone.world()
    with orchestrator(world, model, recorder=recorder) as orch:
        orch.run("edit")
    rollback = [d for k, d in recorder.events if k == "rollback"]
    assert rollback and rollback[0]["reached"] and rollback[0]["presses"] == 1
    assert ("editor", "back") in world.log


def test_the_budget_ends_the_run_with_a_budget_post_mortem() -> None:
    model = ScriptedModel(replies(("TaskPlan", plan({"description": "Wait", "complexity": 5})),
                                  ("DecisionBundle", bundle({"type": "wait", "seconds": 0}))))
    with orchestrator(Phone().world(), model, max_steps=6) as orch:
        result = orch.run("wait")
    assert result.status == "failed" and result.steps_used == 6
    assert result.post_mortems[-1]["reason"] == "BUDGET"
    assert "step budget of 6" in result.stopped_because


def test_invalid_replies_count_and_end_the_step_as_no_decision() -> None:
    model = ScriptedModel(replies(("TaskPlan", plan({"description": "x", "on_fail": "abort"})),
                                  ("DecisionBundle", "{not json")))
    with orchestrator(Phone().world(), model, parse_attempts=1) as orch:
        result = orch.run("x")
    assert result.status == "failed" and result.steps_used == 3


# -- the user ---------------------------------------------------------------------------------
def test_ask_user_answered_replans_with_the_answer() -> None:
    seen: list[str] = []

    def replan(text: str) -> dict[str, Any]:
        seen.append(text)
        return {"status": "replanned", "plan": plan({"description": "Open Settings",
                                                     "checks": [{"kind": "app",
                                                                 "app": "Settings"}]})}

    model = ScriptedModel(replies(
        ("TaskPlan", plan({"description": "Ask"})),
        ("DecisionBundle", bundle({"type": "ask_user", "question": "Which app?"})),
        ("DecisionBundle", bundle(tap("Settings"))),
        ("DecisionBundle", bundle(goal_complete=True, answer="opened")),
        ("Replan", replan)))
    with orchestrator(Phone().world(), model, ask_user=lambda q: "Settings") as orch:
        result = orch.run("open the app I name")
    assert "The user answered: Settings" in seen[0]
    assert result.status == "done" and len(seen) == 1


def test_ask_user_without_a_human_stops_resumable_with_the_question() -> None:
    model = ScriptedModel(replies(
        ("TaskPlan", plan({"description": "Ask"})),
        ("DecisionBundle", bundle({"type": "ask_user", "question": "Which app?"}))))
    with orchestrator(Phone().world(), model) as orch:
        result = orch.run("open the app I name")
    assert result.status == "ask_user" and result.question == "Which app?"
    assert "--resume" in result.next_hint


def test_a_predefined_plan_goes_on_after_an_early_goal_claim_until_all_ticked() -> None:
    phone = Phone()
    model = ScriptedModel(replies(
        ("DecisionBundle", lambda t: bundle(goal_complete=True, answer="done")
         if "Current step 2" in t else bundle(step_complete=True))))
    from pathlib import Path
    from tempfile import TemporaryDirectory

    with TemporaryDirectory() as tmp:
        path = Path(tmp, "plan.yaml")
        path.write_text("steps:\n - description: one\n   success_criteria: a\n"
                        " - description: two\n   success_criteria: b\n", encoding="utf-8")
        with orchestrator(phone.world(), model) as orch:
            result = orch.run("two steps", path)
    assert result.status == "done" and model.contracts() == ["DecisionBundle"] * 2


# -- the loop guard ---------------------------------------------------------------------------
DEAD_TAP = {"type": "tap", "target": {"kind": "point", "x": 990, "y": 372}}  # edge of row 7


def test_a_dead_button_climbs_one_rung_per_repeat_and_the_model_is_told_each_time() -> None:
    """Seed 004 §3.2: the ladder counts the model's repeats of an ineffective action; its
    own moves (wait, offset, back) cost no model call, and it never presses back after a
    single model action (relay notes, issue #27)."""
    phone = Phone()
    model = ScriptedModel(replies(
        ("TaskPlan", plan({"description": "Check for update", "complexity": 5})),
        ("DecisionBundle", bundle(DEAD_TAP)),
        ("Replan", {"status": "give_up", "response": "the button does nothing"})))
    recorder = Recorder()
    world = phone.world("settings")
    with orchestrator(world, model, recorder=recorder, max_steps=40) as orch:
        result = orch.run("check for updates")
    rungs = [d["rung"] for k, d in recorder.events if k == "loop_guard"]
    assert rungs == ["wait", "offset", "back", "post_mortem"]
    assert model.contracts() == ["TaskPlan", *["DecisionBundle"] * 3, "Replan"]
    second, third = (user_text(b) for b in model.requests[2:4])
    assert "had no visible effect: looked again after 2 s" in second
    assert "had no visible effect (×2): retried it offset" in third
    assert "the same again and I press back" in third
    assert [a for _, a in world.log] == ["tap", "wait", "tap", "tap", "tap", "back"]
    assert result.status == "failed" and result.steps_used < 40
    assert result.post_mortems[0]["reason"] == "LOOP"
    assert "budget" not in result.summary().lower()


def test_a_swipe_that_no_longer_moves_the_list_is_the_end_of_the_list_not_a_loop() -> None:
    phone = Phone()
    swipes = iter(range(3))
    model = ScriptedModel(replies(
        ("TaskPlan", plan({"description": "Read the settings list", "complexity": 5})),
        ("DecisionBundle", lambda t: bundle({"type": "swipe", "direction": "up"})
         if next(swipes, None) is not None else bundle(goal_complete=True, answer="seen")),
        ("Replan", {"status": "give_up", "response": "stuck"})))
    recorder = Recorder()
    world = phone.world("settings")
    with orchestrator(world, model, recorder=recorder, max_steps=40) as orch:
        orch.run("read the whole settings list")
    rungs = [d["rung"] for k, d in recorder.events if k == "loop_guard"]
    assert rungs and set(rungs) == {"note"}  # told, never a rung: no wait, no back
    assert "back" not in [a for _, a in world.log]
    second = user_text(model.requests[2])
    assert "did not move the content: the end of the list" in second


def test_an_a_b_a_b_cycle_is_caught_within_six_actions() -> None:
    phone = Phone()
    model = ScriptedModel(replies(
        ("TaskPlan", plan({"description": "Find it", "complexity": 5})),
        ("DecisionBundle", lambda t: bundle(tap("Settings")) if "Foreground app: launcher" in t
         else bundle({"type": "back"})),
        ("Replan", {"status": "give_up", "response": "going round in circles"})))
    recorder = Recorder()
    world = phone.world("home")
    with orchestrator(world, model, recorder=recorder) as orch:
        result = orch.run("find it")
    assert [d["rung"] for k, d in recorder.events if k == "loop_guard"] == ["post_mortem"]
    assert len(world.log) <= 6 and result.post_mortems[0]["reason"] == "LOOP"


def test_two_identical_replans_end_in_a_question_not_a_third_plan() -> None:
    same = plan({"description": "Tap Buy", "on_fail": "replan"})
    model = ScriptedModel(replies(
        ("TaskPlan", same), ("DecisionBundle", bundle(tap("Details"))),
        ("Replan", {"status": "replanned", "plan": same})))
    asked: list[str] = []
    with orchestrator(Phone().world(), model, ask_user=lambda q: asked.append(q) or None) \
            as orch:
        result = orch.run("buy")
    # the first repeat goes back to the planner as a LOOP post-mortem; the second asks
    assert model.contracts().count("Replan") == 2
    assert "already tried" in request_text([r for r in model.requests
                                       if "Replan" in str(r.get("response_format"))][1])
    assert result.status == "ask_user" and "already tried" in asked[0]


# -- resuming in another process ---------------------------------------------------------------
def test_a_saved_question_resumes_in_a_fresh_orchestrator_with_one_step_count(tmp_path) -> None:
    from omg_agent.brain.resume import load_state, restore_memory, save_state

    phone = Phone()
    answered = plan({"description": "Open the app the user names",
                     "checks": [{"kind": "app", "app": "Settings"}]})
    model = ScriptedModel(replies(
        ("TaskPlan", plan({"description": "Ask"})),
        ("DecisionBundle", bundle({"type": "mem_save", "key": "who", "value": "me"},
                                  {"type": "ask_user", "question": "Which app?"})),
        ("DecisionBundle", bundle(tap("Settings"))),
        ("DecisionBundle", bundle(goal_complete=True, answer="opened $who")),
        ("Replan", {"status": "replanned", "plan": answered})))
    world = phone.world()
    with orchestrator(world, model) as first:
        stopped = first.run("open the app I name")
        assert stopped.status == "ask_user" and first.state is not None
        save_state(tmp_path, first.state, first.memory, device="fake")
    saved = load_state(tmp_path)
    assert saved.state.dialogue.pending == "Which app?" and saved.memory == {"who": "me"}
    with orchestrator(world, model) as second:
        restore_memory(second.memory, saved.memory)  # the state carries turns and usage
        result = second.resume(saved.state, "Settings")
    assert result.status == "done" and result.answer == "opened me"
    assert result.steps_used > stopped.steps_used
    assert result.model_calls == len(model.requests)  # usage carried across the stop


# -- planning modes ------------------------------------------------------------------------------
TWO_CHECKED = plan({"description": "Open Settings", "checks": [{"kind": "app",
                                                               "app": "Settings"},
                                                              {"kind": "element",
                                                               "text": "Wi-Fi"}]},
                   {"description": "Turn off Wi-Fi",
                    "checks": [{"kind": "element", "resource_id": "wifi_switch",
                                "checked": False}]})


def _two_steps(text: str) -> dict[str, Any]:
    if "launcher" in text:
        return bundle(tap("Settings"))
    return bundle({"type": "tap", "target": {"kind": "anchor", "resource_id": "wifi_switch"}})


def test_an_adaptive_run_whose_steps_succeed_makes_exactly_one_planner_call() -> None:
    phone = Phone()
    model = ScriptedModel(replies(("TaskPlan", TWO_CHECKED), ("DecisionBundle", _two_steps)))
    with orchestrator(phone.world(), model) as orch:
        result = orch.run("Turn off Wi-Fi")
    assert result.status == "done" and not phone.wifi
    assert model.contracts() == ["TaskPlan", "DecisionBundle", "DecisionBundle"]


def test_replan_each_asks_the_planner_after_every_finished_step() -> None:
    phone = Phone()
    rest = plan({"description": "Turn off Wi-Fi",
                 "checks": [{"kind": "element", "resource_id": "wifi_switch",
                             "checked": False}]})
    model = ScriptedModel(replies(("TaskPlan", TWO_CHECKED), ("DecisionBundle", _two_steps),
                                  ("Replan", {"status": "replanned", "plan": rest})))
    with orchestrator(phone.world(), model, planning="replan-each") as orch:
        result = orch.run("Turn off Wi-Fi")
    assert result.status == "done"
    assert model.contracts() == ["TaskPlan", "DecisionBundle", "Replan", "DecisionBundle"]
    # the planner sees the element list the operator saw, not bare labels
    review = request_text(model.requests[2])
    assert "res=wifi_switch" in review and "checkable,checked}" in review
    # … and the screenshot
    assert any(p.get("type") == "image_url" for p in model.requests[2]["messages"][-1]["content"])


def test_an_absence_alone_is_never_ticked_without_the_models_claim() -> None:
    """'old is gone' passes on any screen without the note: only the model's claim (then
    verified) may tick such a step."""
    phone = Phone()
    gone = plan({"description": "Delete note old", "success_criteria": "old is gone",
                 "checks": [{"kind": "element", "text": "old", "present": False}]})
    model = ScriptedModel(replies(
        ("TaskPlan", gone), ("DecisionBundle", bundle(tap("Settings"))),
        ("DecisionBundle", bundle(goal_infeasible=True, answer="no such note here"))))
    with orchestrator(phone.world(), model) as orch:
        result = orch.run("Delete the note old")
    assert result.status == "infeasible" and model.contracts().count("DecisionBundle") == 2


def test_an_absence_and_the_app_are_not_enough_to_tick_without_a_claim() -> None:
    """The relay case: 'Delete note old' checked by 'old absent' + 'Notes in front' passed
    in the note's editor before anything was deleted; only a present element ticks alone."""
    phone = Phone()
    weak = plan({"description": "Delete note old", "success_criteria": "old is gone",
                 "checks": [{"kind": "element", "text": "old", "present": False},
                            {"kind": "app", "app": "com.omg.notes"}]})
    model = ScriptedModel(replies(
        ("TaskPlan", weak), ("DecisionBundle", bundle(tap("Notes"), tap("old"))),
        ("DecisionBundle", bundle(goal_infeasible=True, answer="stop here"))))
    with orchestrator(phone.world(), model) as orch:
        result = orch.run("Delete the note old")
    assert result.status == "infeasible" and phone.notes == ["old", "keep"]


def test_an_app_check_knows_the_apps_chinese_name() -> None:
    """The relay case: a plan checking for '信息' was refused on com.omg.messages."""
    from omg_agent.brain.verify import app_matches

    assert app_matches("信息", "com.omg.messages") and app_matches("设置", "com.android.settings")
    assert app_matches("com.omg.notes", "com.omg.notes") and not app_matches("备忘录",
                                                                             "com.omg.shop")


def test_a_claim_that_also_does_the_next_steps_work_needs_no_turn_to_say_so() -> None:
    """Relay round 4: 'step 1 done' plus step 2's actions in one reply; step 2's checks pass
    on the next screen, so no model turn is spent claiming it."""
    phone = Phone()
    model = ScriptedModel(replies(
        ("TaskPlan", TWO_CHECKED),
        ("DecisionBundle", bundle({"type": "tap", "target": {"kind": "anchor",
                                                              "resource_id": "wifi_switch"}},
                                  step_complete=True))))
    with orchestrator(phone.world("settings"), model) as orch:
        result = orch.run("Turn off Wi-Fi")
    assert result.status == "done" and not phone.wifi
    assert model.contracts() == ["TaskPlan", "DecisionBundle"]


def test_a_steps_time_is_its_own_not_the_models_thinking() -> None:
    import time

    from omg_agent.brain.run_state import Attempt

    slow = Attempt(started=time.monotonic() - 100).after_turn("a", None, model_s=95.0)
    assert slow.elapsed() < 10  # a 95 s model call does not time out a 30 s step

