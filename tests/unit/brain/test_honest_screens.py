"""The screens honest done keeps for a resumed process (issue 34, mutation testing): what
:func:`saved_screens` writes and :func:`restore_screens` reads back is every field a check
reads, for the run's first screen and each app's first — never a password's text."""

from __future__ import annotations

import json
from dataclasses import replace

from PIL import Image

from omg_agent.brain import honest
from omg_agent.brain.budget import StepBudget
from omg_agent.brain.memory import MemoryBank
from omg_agent.brain.planner import TodoList
from omg_agent.brain.run_context import RunContext
from omg_agent.brain.run_state import RunState
from omg_agent.config import Settings
from omg_agent.core.checks import AppCheck, ElementCheck
from omg_agent.core.contracts import TaskStep
from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import Observation, UIElement
from omg_agent.guards.ledger import Passage

SETTINGS, SHOP = "com.android.settings", "com.omg.shop"
FLAGS = {"checkable": True, "checked": True, "selected": True, "editable": True,
         "focused": True, "clickable": True}
FULL = UIElement(1, "android.widget.Switch", "switch", Bounds(10, 20, 300, 80), text="Wi-Fi",
                 desc="wifi toggle", resource_id=f"{SETTINGS}:id/wifi", hint="on or off",
                 **FLAGS)
BARE = UIElement(2, "android.widget.TextView", "text", Bounds(0, 0, 5, 5))
SECRET = UIElement(3, "android.widget.EditText", "input", Bounds(0, 100, 500, 200),
                   text="hunter2", hint="Password", password=True, editable=True)


def screen(screen_hash: str, package: str, *elements: UIElement) -> Observation:
    return Observation(Image.new("RGB", (1, 1)), elements, package, f"{package}.Main",
                       screen_hash)


def state(*seen: Observation) -> RunState:
    s = RunState("Turn on Wi-Fi", StepBudget(5))
    s.seen = list(seen)
    return s


def written(s: RunState) -> list[dict[str, object]]:
    """What the state file holds (through JSON, as a resumed process reads it)."""
    return json.loads(json.dumps(honest.saved_screens(s)))


def test_the_first_screen_and_each_apps_first_come_back_with_every_field_a_check_reads():
    s = state(screen("a", SETTINGS, FULL, BARE, SECRET), screen("b", SETTINGS, BARE),
              screen("c", SHOP, FULL))
    s.apps = {SETTINGS: "a", SHOP: "c"}
    data = written(s)
    assert [d["hash"] for d in data] == ["a", "c"]
    assert "hunter2" not in json.dumps(data)
    back = state(screen("stale", SHOP, BARE))
    honest.restore_screens(back, data)
    assert [(o.package, o.activity, o.screen_hash) for o in back.seen] == [
        (SETTINGS, f"{SETTINGS}.Main", "a"), (SHOP, f"{SHOP}.Main", "c")]
    full, bare, secret = (replace(e, id=0) for e in back.seen[0].elements)
    assert full == replace(FULL, id=0)
    assert bare == replace(BARE, id=0)
    assert (secret.text, secret.hint, secret.editable, secret.bounds) == (
        "", "Password", True, SECRET.bounds)
    assert [replace(e, id=0) for e in back.seen[1].elements] == [replace(FULL, id=0)]


def test_the_run_s_first_screen_is_kept_even_when_its_app_s_first_is_another():
    s = state(screen("a", SETTINGS, BARE), screen("b", SHOP, FULL))
    s.apps = {SHOP: "b"}  # the first screen's app was first seen elsewhere
    assert [d["hash"] for d in written(s)] == ["a", "b"]


def test_at_most_twelve_screens_are_written_and_read():
    many = [screen(f"h{i}", f"com.app{i}", BARE) for i in range(honest.MAX_SAVED + 2)]
    s = state(*many)
    s.apps = {o.package: o.screen_hash for o in many}
    data = written(s)
    assert [d["hash"] for d in data] == [f"h{i}" for i in range(honest.MAX_SAVED)]
    back = state()
    honest.restore_screens(back, [*data, *data])
    assert [o.screen_hash for o in back.seen] == [f"h{i}" for i in range(honest.MAX_SAVED)]


def test_a_saved_screen_with_fields_missing_reads_as_empty_not_as_made_up_values():
    back = state()
    honest.restore_screens(back, [{"elements": [{"bounds": [0, 0, 10, 10]}]},
                                  {"hash": "x", "elements": "not a list"}])
    (first, second) = back.seen
    assert (first.package, first.activity, first.screen_hash) == ("", "", "")
    assert first.elements == (UIElement(0, "", "", Bounds(0, 0, 10, 10)),)
    assert second.screen_hash == "x" and second.elements == ()


# -- the run's effects and the gate's record, read where honest done reads them ------------
def context(task: str) -> RunContext:
    """A run with the gate switched off (no keeper) and nothing else it needs."""
    return RunContext(RunState(task, StepBudget(5)), None, MemoryBank(None, "run"),  # type: ignore[arg-type]
                      Settings(), None, None, None, 3)  # type: ignore[arg-type]


def test_an_action_that_landed_on_an_element_known_by_its_description_backs_its_check():
    cart = ElementCheck(desc="Shopping cart")
    assert honest.backed(cart, [{"text": "", "desc": "Shopping cart", "resource_id": ""}])
    assert honest.backed(cart, [{"desc": "Shopping cart"}])  # the other keys missing
    assert not honest.backed(cart, [{"text": "Home", "desc": "Home", "resource_id": ""}])
    # no action lands on an app or a memory value: such a check is never backed
    assert not honest.backed(AppCheck(app=SHOP), [{"text": SHOP, "desc": "",
                                                       "resource_id": SHOP}])


def test_with_the_gate_switched_off_the_record_is_the_run_state_s():
    run = context("Pay for the order in Shop")
    run.state.passed = [Passage("payment", "tap Pay", "human", True)]
    assert honest.passages(run) == run.state.passed
    honest.finish_done(run, "Paid")
    assert run.state.phase == "DONE"


def test_a_run_without_a_plan_step_ends_done_on_what_the_gate_saw():
    run = context("Open the settings")
    honest.finish_done(run, "Opened")
    assert (run.state.phase, run.state.answer) == ("DONE", "Opened")
    assert run.state.report is not None
    assert run.state.report.stopped_because == "the task is complete"


def test_an_end_check_that_held_on_the_first_screen_leaves_a_plain_task_unverified():
    run = context("Turn on Wi-Fi")
    step = TaskStep(description="Wi-Fi on", success_criteria="Wi-Fi shows",
                    checks=[ElementCheck(text="Wi-Fi")])
    run.state.todo = TodoList("Turn on Wi-Fi", [(step, True)])
    first = screen("a", SETTINGS, replace(BARE, text="Wi-Fi"))
    honest.look(run, first)
    run.state.last_obs = first
    honest.finish_done(run, "Wi-Fi is on")
    assert run.state.phase == "UNVERIFIED"
    assert run.state.report is not None
    assert "already held before the run acted" in run.state.report.stopped_because
    assert run.state.todo.entries == [(step, False)]


def test_each_check_keeps_its_own_baseline():
    wifi, cart = ElementCheck(text="Wi-Fi"), ElementCheck(desc="Shopping cart")
    assert honest.check_key(wifi) == honest.check_key(ElementCheck(text="Wi-Fi"))
    assert honest.check_key(wifi) != honest.check_key(cart)


def test_a_screen_seen_first_after_the_run_acted_is_no_first_screen():
    run = context("Turn on Wi-Fi")
    run.state.touched = [{"text": "Wi-Fi", "desc": "", "resource_id": ""}]  # it acted
    honest.look(run, screen("after", SETTINGS, replace(BARE, text="Wi-Fi")))
    assert run.state.seen == [] and run.state.apps == {}
