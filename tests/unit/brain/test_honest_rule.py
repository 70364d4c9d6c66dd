"""Honest done (brain/honest.py), rule by rule on a RunState (mutation testing, issue 34):
what counts as shown after the run acted, which screens are first screens, what a check's
value at first sight is, what the run's effects are, which tasks only look, and how the
ending is judged. The run-level tests (test_honest_done.py) drive the same rules through a
whole run; these pin each part where a run would pass whatever it returned."""

from __future__ import annotations

import dataclasses

from PIL import Image

from omg_agent.brain import honest
from omg_agent.brain.budget import StepBudget, StopReport
from omg_agent.brain.memory import MemoryBank
from omg_agent.brain.planner import TodoList
from omg_agent.brain.run_context import RunContext
from omg_agent.brain.run_state import RunState, TurnRecord
from omg_agent.brain.verdicts import DONE_HINT
from omg_agent.config import Settings
from omg_agent.core.actions import AnchorTarget, Tap
from omg_agent.core.checks import AppCheck, ElementCheck, MemoryCheck, StepCheck
from omg_agent.core.contracts import TaskStep
from omg_agent.core.geometry import Bounds, ScreenGeometry
from omg_agent.core.observation import Observation, UIElement
from omg_agent.drivers.base import ActionOutcome
from omg_agent.guards.ledger import Passage

from .fakes import Recorder

SHOP, NOTES = "com.omg.shop", "com.omg.notes"
LISTS = "Add MX Master 3S and AirPods Pro to the cart in Shop"


def el(text: str = "", *, desc: str = "", res: str = "", **flags: bool) -> UIElement:
    return UIElement(1, "android.widget.Button", "button", Bounds(0, 0, 100, 50), text=text,
                     desc=desc, resource_id=res, **flags)


def screen(screen_hash: str, package: str, *elements: UIElement) -> Observation:
    return Observation(Image.new("RGB", (1, 1)), elements, package, f"{package}.Main",
                       screen_hash)


def touched(text: str = "", desc: str = "", res: str = "") -> dict[str, str]:
    return {"text": text, "desc": desc, "resource_id": res}


def context(task: str, memory: MemoryBank, *checks: StepCheck) -> RunContext:
    """A run with the gate switched off and one plan step with ``checks``."""
    state = RunState(task, StepBudget(5))
    if checks:
        step = TaskStep(description=task, success_criteria="done", checks=list(checks))
        state.todo = TodoList(task, [(step, True)])
    return RunContext(state, None, memory, Settings(), None, None, None, 3)  # type: ignore[arg-type]


# -- a task that lists several things ------------------------------------------------------
def test_listed_things_on_the_screen_before_the_run_acted_are_not_shown() -> None:
    s = RunState(LISTS, StepBudget(5))
    s.last_obs = screen("cart", SHOP, el("MX Master 3S"), el("AirPods Pro"))
    why = honest.unshown(s)  # the run did nothing: the list was there already
    assert why == ("the task names 'MX Master 3S', 'AirPods Pro', which no screen after the "
                   "run acted showed")
    assert s.shown == []


def test_listed_things_on_the_last_screen_after_the_run_acted_are_shown() -> None:
    s = RunState(LISTS, StepBudget(5))
    s.touched = [touched("Add to cart")]  # it acted (no turn record needed)
    s.last_obs = screen("cart", SHOP, el("Cart: mx master 3s"), el(desc="AirPods  Pro"))
    assert honest.unshown(s) is None
    assert s.shown == ["MX Master 3S", "AirPods Pro"]


def test_a_listed_thing_the_run_acted_on_counts_by_its_text_or_description() -> None:
    s = RunState(LISTS, StepBudget(5))
    s.touched = [touched("MX Master 3S"), touched(desc="AirPods Pro")]
    assert honest.unshown(s) is None
    s.touched = [touched(desc="AirPods Pro")]
    assert "'MX Master 3S'" in (honest.unshown(s) or "")


# -- a saved state edited by hand -----------------------------------------------------------
def test_saved_elements_without_four_integer_bounds_are_skipped_not_guessed() -> None:
    s = RunState("Turn on Wi-Fi", StepBudget(5))
    honest.restore_screens(s, [
        {"hash": "a", "elements": [{"bounds": [0, 0, 10]}, {"bounds": [0, 0, "9", 10]},
                                   {"bounds": "0 0 10 10"}, "not an element",
                                   {"text": "Wi-Fi", "bounds": [0, 0, 10, 10]}]},
        {"hash": "b"}])  # no elements at all
    assert [[e.text for e in o.elements] for o in s.seen] == [["Wi-Fi"], []]


# -- a task that only looks or asks --------------------------------------------------------
def test_a_task_of_one_clause_opened_by_a_question_word_only_looks() -> None:
    for task in ("What is the price of the cable in Shop",
                 "Please could you tell me the battery level",  # polite words skipped
                 "LOOK at the screen",
                 "Wi-Fi still on ?  ",  # asked by its mark, trailing spaces and all
                 "Battery level？",
                 "电池还剩多少", "查看订单状态"):
        assert honest.observes_only(task), task
    for task in ("Open the cart in Shop",
                 "Check the price and turn on Wi-Fi",  # a second clause
                 "Tell me the price, then buy it",
                 "What is the price? Pay for it",  # a pay task asks for a payment
                 "Please kindly you me",  # only polite words: no question word
                 "", "Turn on Wi-Fi.", "打开设置"):
        assert not honest.observes_only(task), task


def test_only_a_plan_step_with_checks_that_saves_no_value_must_show_a_change() -> None:
    check = [ElementCheck(text="Wi-Fi")]
    assert honest.changes(TaskStep(description="a", success_criteria="b", checks=check))
    assert not honest.changes(None)
    assert not honest.changes(TaskStep(description="a", success_criteria="b"))
    assert not honest.changes(TaskStep(description="a", success_criteria="b", checks=check,
                                       data_output="price"))


# -- the run's effects ----------------------------------------------------------------------
def test_the_effects_are_the_elements_actions_went_through_on_never_a_password() -> None:
    s = RunState("Sign in", StepBudget(5))
    tap = Tap(target=AnchorTarget(text="x"))
    honest.acted_on(s, [
        ActionOutcome(0, tap, True, element=el("Sign in", desc="sign in", res="app:id/go")),
        ActionOutcome(1, tap, False, element=el("Failed")),
        ActionOutcome(2, tap, True, element=None),
        ActionOutcome(3, tap, True, element=el("hunter2", password=True, editable=True))])
    assert s.touched == [touched("Sign in", "sign in", "app:id/go")]
    assert s.toggled_at is None  # nothing checkable went through
    honest.acted_on(s, (ActionOutcome(i, tap, True, element=el(f"row {i}"))
                        for i in range(honest.MAX_TOUCHED)))  # a generator, read once
    assert len(s.touched) == honest.MAX_TOUCHED
    last = f"row {honest.MAX_TOUCHED - 1}"
    assert (s.touched[0]["text"], s.touched[-1]["text"]) == ("row 0", last)
    tick = dataclasses.replace(el("Buy milk", checkable=True), cls="android.widget.CheckBox",
                               role="checkbox")
    honest.acted_on(s, [ActionOutcome(0, tap, True, element=tick)])
    assert s.toggled_at is None  # a to-do's tick is the app's record: nothing to wait for
    switch = dataclasses.replace(el("Wi-Fi", checkable=True), cls="android.widget.Switch",
                                 role="switch")
    honest.acted_on(s, [ActionOutcome(0, tap, True, element=switch)])
    assert s.toggled_at is not None and s.touched[-1]["text"] == "Wi-Fi"


# -- the run's first screens ----------------------------------------------------------------
def test_the_first_screens_are_kept_once_each_from_the_one_before_any_action_on() -> None:
    with MemoryBank(None, "unit") as memory:
        run = context("Open Notes", memory)
        s = run.state
        home = screen("home", "launcher", el("Notes"))
        honest.look(run, home)
        honest.look(run, home)  # the same screen again: kept once
        honest.look(run, screen("", "launcher", el("Clock")))  # no hash: each is its own
        honest.look(run, screen("", "launcher", el("Clock")))
        s.touched = [touched("Notes")]  # the run acts; it keeps looking at its earliest
        honest.look(run, screen("list", NOTES, el("Milk")))
        honest.look(run, screen("edit", NOTES, el("Milk", editable=True)))
    assert [o.screen_hash for o in s.seen] == ["home", "", "", "list", "edit"]
    assert s.apps == {"launcher": "home", NOTES: "list"}  # each app's first
    kept = s.seen[0]
    assert (kept.elements, kept.package, kept.activity, kept.screen) == (
        home.elements, home.package, home.activity, home.screen)


def test_a_run_that_acted_before_its_first_look_keeps_no_first_screen() -> None:
    with MemoryBank(None, "unit") as memory:
        run = context("Open Notes", memory)
        run.state.records = [TurnRecord(1, "looked", acted=False),
                             TurnRecord(2, "tapped Notes", acted=True)]
        honest.look(run, screen("list", NOTES, el("Milk")))
        assert run.state.seen == [] and run.state.apps == {}
        run.state.records = [TurnRecord(1, "looked", acted=False)]
        honest.look(run, screen("list", NOTES, el("Milk")))
        assert [o.screen_hash for o in run.state.seen] == ["list"]


def test_at_most_forty_first_screens_are_kept() -> None:
    with MemoryBank(None, "unit") as memory:
        run = context("Scroll", memory)
        for i in range(honest.MAX_SEEN + 3):
            honest.look(run, screen(f"h{i}", NOTES, el(f"row {i}")))
    assert [o.screen_hash for o in run.state.seen] == [f"h{i}" for i in range(honest.MAX_SEEN)]


def test_things_a_look_shows_count_only_once_the_run_acted() -> None:
    with MemoryBank(None, "unit") as memory:
        run = context(LISTS, memory)
        both = screen("cart", SHOP, el("MX Master 3S"), el("AirPods Pro"))
        honest.look(run, both)
        assert run.state.shown == []
        run.state.touched = [touched("Add to cart")]
        honest.look(run, both)
        assert run.state.shown == ["MX Master 3S", "AirPods Pro"]


# -- each check's value at first sight ------------------------------------------------------
def test_a_plan_check_gets_its_value_on_the_first_screen_and_keeps_it() -> None:
    notes, absent = ElementCheck(text="Notes"), ElementCheck(text="Notes", present=False)
    with MemoryBank(None, "unit") as memory:
        run = context("Go home", memory, notes, absent)
        honest.look(run, screen("shop", SHOP, el("Checkout")))
        honest.look(run, screen("home", "launcher", el("Notes")))  # a later look changes nothing
    b = run.state.baseline
    assert (b[honest.check_key(notes)], b[honest.check_key(absent)]) == (False, True)


def test_a_switch_check_gets_its_value_where_the_switch_was_first_seen() -> None:
    on = ElementCheck(text="Wi-Fi", checked=True)
    with MemoryBank(None, "unit") as memory:
        run = context("Turn on Wi-Fi", memory)
        run.state.seen = [screen("home", "launcher", el("Settings")),
                          screen("net", "settings", el("Wi-Fi", checkable=True)),
                          screen("net2", "settings", el("Wi-Fi", checkable=True, checked=True))]
        run.state.apps = {"launcher": "home", "settings": "net"}
        honest.remember(run, [on])
    # off where it was first seen; a switch's state is no "on the screen or not" check
    assert run.state.baseline == {honest.check_key(on): False}


def test_a_check_no_kept_screen_tells_gets_no_value_until_one_does() -> None:
    on = ElementCheck(text="Wi-Fi", checked=True)
    with MemoryBank(None, "unit") as memory:
        run = context("Turn on Wi-Fi", memory)
        run.state.seen = [screen("home", "launcher", el("Settings"))]
        honest.remember(run, [on])
        assert run.state.baseline == {}
        run.state.seen.append(screen("net", "settings", el("Wi-Fi", checkable=True,
                                                           checked=True)))
        honest.remember(run, [on])
    assert run.state.baseline == {honest.check_key(on): True}


def test_an_on_screen_check_also_gets_its_value_on_each_apps_first_screen() -> None:
    milk = ElementCheck(text="$item")
    with MemoryBank(None, "unit") as memory:
        memory.save("item", "Milk")  # a check's $vars are filled in from memory
        run = context("Delete the note Milk", memory)
        s = run.state
        s.seen = [screen("home", "launcher", el("Notes")),
                  screen("list", NOTES, el("Milk")),
                  screen("list2", NOTES, el("Bread"))]  # not the app's first
        s.apps = {"launcher": "home", NOTES: "list"}
        s.baseline[f"{honest.check_key(milk)}@launcher"] = True  # known: kept as it is
        on = ElementCheck(text="Milk", checked=True)  # a state first: the next still counts
        honest.remember(run, [on, milk])
    key = honest.check_key(milk)
    assert s.baseline == {honest.check_key(on): False, key: False, f"{key}@launcher": True,
                          f"{key}@{NOTES}": True}


def test_a_value_an_earlier_process_took_is_kept_and_memory_is_read_when_first_met() -> None:
    notes, price, total = ElementCheck(text="Notes"), MemoryCheck(key="price"), \
        MemoryCheck(key="total")
    with MemoryBank(None, "unit") as memory:
        memory.save("price", "¥5")
        run = context("Save the price", memory)
        run.state.seen = [screen("home", "launcher", el("Notes"))]
        run.state.baseline = {honest.check_key(notes): False}  # saved before a resume
        honest.remember(run, [notes, price, total])
    assert run.state.baseline == {honest.check_key(notes): False, honest.check_key(price): True,
                                  honest.check_key(total): False}


# -- evidence -------------------------------------------------------------------------------
def test_a_passing_check_proves_the_run_s_work_when_it_was_false_at_first_or_acted_on() -> None:
    s = RunState("Turn on Wi-Fi", StepBudget(5))
    wifi = ElementCheck(text="Wi-Fi", checked=True)
    key = honest.check_key(wifi)
    assert not honest.proves(s, wifi)  # never seen, never touched
    s.baseline[key] = True
    assert not honest.proves(s, wifi)  # held at first sight
    s.touched = [touched("Wi-Fi")]
    assert honest.proves(s, wifi)  # but the run tapped it
    s.touched, s.baseline[key] = [], False
    assert honest.proves(s, wifi)


def test_a_text_on_an_app_s_later_screen_is_judged_against_that_app_s_first_screen() -> None:
    s = RunState("Open the note Milk", StepBudget(5))
    milk = ElementCheck(text="Milk")
    key = honest.check_key(milk)
    s.baseline = {key: False, f"{key}@{NOTES}": True}  # not at home; on the Notes list
    s.apps = {"launcher": "home", NOTES: "list"}
    s.last_obs = screen("note", NOTES, el("Milk"))  # a later Notes screen
    assert not honest.proves(s, milk)  # the list showed it before the run acted
    s.last_obs = screen("list", NOTES, el("Milk"))  # the app's first screen itself
    assert honest.proves(s, milk)  # judged against the run's first screen
    s.last_obs = screen("other", SHOP, el("Milk"))  # an app the run never saw before
    assert honest.proves(s, milk)
    del s.baseline[f"{key}@{NOTES}"]
    s.last_obs = screen("note", NOTES, el("Milk"))  # no value on the app's first: the run's
    assert honest.proves(s, milk)
    s.last_obs = None
    s.baseline[f"{key}@{NOTES}"] = True
    assert honest.proves(s, milk)
    on = ElementCheck(text="Milk", checked=True)  # a state: the run's first value only
    s.baseline = {honest.check_key(on): False, f"{honest.check_key(on)}@{NOTES}": True}
    s.last_obs = screen("note", NOTES, el("Milk", checkable=True, checked=True))
    assert honest.proves(s, on)


def test_text_the_model_typed_in_a_field_proves_only_a_task_that_asks_for_written_text() -> None:
    # "Airplane mode is on" typed into a URL bar: a field check that was false at first and
    # that the run acted on — the model's own words, no proof the switch was turned on
    typed = ElementCheck(text="Airplane mode is on", in_field=True)
    s = RunState("Turn on airplane mode", StepBudget(5))
    s.baseline[honest.check_key(typed)] = False
    s.touched = [touched("Airplane mode is on")]
    assert not honest.proves(s, typed)
    words = ElementCheck(text="airplane  mode", in_field=True)  # the task's words, typed
    s.baseline[honest.check_key(words)] = False
    assert not honest.proves(s, words)
    plain = ElementCheck(text="Airplane mode is on")  # not in a field: the usual rule
    s.baseline[honest.check_key(plain)] = False
    assert honest.proves(s, plain)
    # a task that writes text: the same kind of check is its effect
    for task in ("Create a note titled Groceries", "Type hello in the search box",
                 "搜索耳机", "Send Happy birthday to Bob in Messages"):
        title = ElementCheck(text="Groceries" if "Groceries" in task else "Happy birthday",
                             in_field=True)
        s = RunState(task, StepBudget(5))
        s.baseline[honest.check_key(title)] = False
        assert honest.proves(s, title), task
        s.baseline[honest.check_key(title)] = True  # held before the run acted: still none
        assert not honest.proves(s, title), task


def test_a_field_check_proves_a_task_that_dictates_its_text_without_a_writing_word() -> None:
    # no writing word (type, write, note…) in the task: the check's own text, said in the
    # task, is what makes it the task's effect — any other text is not
    said = ElementCheck(text="Call  me back", in_field=True)
    other = ElementCheck(text="Airplane mode is on", in_field=True)
    s = RunState("Send call me back to Bob", StepBudget(5))
    s.baseline = {honest.check_key(said): False, honest.check_key(other): False}
    assert honest.proves(s, said)
    assert not honest.proves(s, other)
    nothing = ElementCheck(desc="Message", in_field=True)  # no text of its own
    s.baseline[honest.check_key(nothing)] = False
    assert not honest.proves(s, nothing)


def test_a_check_of_no_edit_field_keeps_the_usual_rule_in_any_task() -> None:
    # an app or memory check has no in_field: it is never taken for typed text
    s = RunState("Turn on airplane mode", StepBudget(5))
    for check in (AppCheck(app=SHOP), MemoryCheck(key="mode")):
        assert not honest.proves(s, check)  # never seen, never acted on
        s.baseline[honest.check_key(check)] = False
        assert honest.proves(s, check)  # false at first: the run's work


def test_an_end_that_shows_nothing_the_run_did_says_which_checks_held() -> None:
    notes, clock = ElementCheck(text="Notes"), ElementCheck(text="Clock")
    with MemoryBank(None, "unit") as memory:
        run = context("Go home", memory)
        run.state.seen = [screen("home", "launcher", el("Notes"), el("Clock"))]
        why = honest.unproven_end(run, [notes, clock])
        assert why == ("its checks already held before the run acted "
                       f"({notes.describe()}; {clock.describe()})")
        assert honest.unproven_end(run, []) == (
            "its checks already held before the run acted (no checks)")
        run.state.touched = [touched("Clock")]
        assert honest.unproven_end(run, [notes, clock]) is None  # one of them is backed


# -- the ending -----------------------------------------------------------------------------
def ending(task: str, memory: MemoryBank, *steps: TaskStep, first: Observation,
           last: Observation) -> RunContext:
    """A run whose plan ``steps`` are all ticked, that first saw ``first`` and now shows
    ``last``, with an in-memory trace."""
    run = context(task, memory)
    run.recorder = Recorder()
    run.state.todo = TodoList(task, [(step, True) for step in steps])
    honest.look(run, first)
    run.state.last_obs = last
    return run


def step(description: str, *checks: StepCheck, data_output: str | None = None) -> TaskStep:
    return TaskStep(description=description, success_criteria=description,
                    checks=list(checks), data_output=data_output)


CHECKOUT = screen("checkout", SHOP, el("Checkout"), el("Pay ¥1,079.00", res="pay"))
PAID = screen("paid", SHOP, el("Payment successful"))


def test_a_pay_task_without_a_payment_that_went_through_is_unverified_and_says_why() -> None:
    plan = (step("Open the cart", ElementCheck(text="Checkout")),
            step("Pay", ElementCheck(text="Payment successful")))
    with MemoryBank(None, "unit") as memory:
        memory.save("order", "#1001")
        run = ending("Pay for the order in Shop", memory, *plan, first=CHECKOUT, last=PAID)
        run.state.passed = [Passage("payment", "tap Pay", "human", ok=False)]  # it failed
        honest.finish_done(run, "Paid order $order", StopReport(("x",), "y", "z"))
    s = run.state
    why = ("the task asks for a payment, but no payment in this run was approved or "
           "authorised by the user and carried out")
    assert (s.phase, s.answer) == ("UNVERIFIED", "Paid order #1001")
    assert s.report == StopReport(("Open the cart",), f"the task was reported done, but {why}",
                                  honest.UNPROVEN_HINT)
    assert s.todo.entries == [(plan[0], True), (plan[1], False)]  # only the last unticked
    assert run.recorder.events == [("done_unproven", {"reason": why,
                                                      "answer": "Paid order #1001"})]


def test_a_pay_task_whose_approved_payment_went_through_is_done_whatever_its_end_showed() -> None:
    # a resumed run's first screen can be the one after the approved Pay
    with MemoryBank(None, "unit") as memory:
        memory.save("order", "#1001")
        run = ending("Pay for the order in Shop", memory,
                     step("Pay", ElementCheck(text="Payment successful")), first=PAID, last=PAID)
        run.state.passed = [Passage("payment", "tap Pay", "human", ok=True)]
        honest.finish_done(run, "Paid order $order")
    s = run.state
    assert (s.phase, s.answer) == ("DONE", "Paid order #1001")
    assert s.report == StopReport(("Pay",), "the task is complete", DONE_HINT)
    assert run.recorder.events == []


def test_a_pay_task_without_a_payment_and_an_end_that_held_says_its_checks_held() -> None:
    with MemoryBank(None, "unit") as memory:
        run = ending("Pay for the order in Shop", memory,
                     step("Pay", ElementCheck(text="Checkout")), first=CHECKOUT, last=CHECKOUT)
        honest.finish_done(run, "Paid")
    assert run.state.phase == "UNVERIFIED"
    assert run.state.report is not None
    assert "already held before the run acted" in run.state.report.stopped_because


def test_a_listed_thing_never_shown_leaves_even_an_approved_purchase_unverified() -> None:
    with MemoryBank(None, "unit") as memory:
        run = ending("Buy MX Master 3S and AirPods Pro in Shop", memory,
                     step("Pay", ElementCheck(text="Payment successful")),
                     first=CHECKOUT, last=PAID)
        run.state.touched = [touched("MX Master 3S")]
        run.state.passed = [Passage("payment", "tap Pay", "authorisation", ok=True)]
        honest.finish_done(run, "Bought")
    assert run.state.phase == "UNVERIFIED"
    assert run.state.report is not None
    assert "'AirPods Pro'" in run.state.report.stopped_because


def test_the_last_step_s_checks_are_the_ones_that_must_show_a_change() -> None:
    plan = (step("Stay in Shop", ElementCheck(text="Checkout")),  # held at the start
            step("Go home", ElementCheck(text="Notes")))  # did not
    home = screen("home", "launcher", el("Notes"))
    with MemoryBank(None, "unit") as memory:
        run = ending("Go to the home screen", memory, *plan, first=CHECKOUT, last=home)
        mine = StopReport(("Stay in Shop", "Go home"), "home at last", "nothing")
        honest.finish_done(run, "Home", mine)
        assert (run.state.phase, run.state.report) == ("DONE", mine)
        run = ending("Go to the home screen", memory, *reversed(plan), first=CHECKOUT,
                     last=home)
        honest.finish_done(run, "Home")
        assert run.state.phase == "UNVERIFIED"


def test_an_end_that_held_at_the_start_is_done_for_a_question_or_a_value_read() -> None:
    price = ElementCheck(text="Pay ¥1,079.00")
    with MemoryBank(None, "unit") as memory:
        run = ending("What is the price of the order in Shop?", memory,
                     step("Read the price", price), first=CHECKOUT, last=CHECKOUT)
        honest.finish_done(run, "¥1,079.00")
        assert run.state.phase == "DONE"
        run = ending("Open the checkout and save the price", memory,
                     step("Read the price", price, data_output="price"),
                     first=CHECKOUT, last=CHECKOUT)
        honest.finish_done(run, "¥1,079.00")
        assert run.state.phase == "DONE"
        run = ending("Open the checkout and save the price", memory,
                     step("Read the price", price), first=CHECKOUT, last=CHECKOUT)
        honest.finish_done(run, "¥1,079.00")
        assert run.state.phase == "UNVERIFIED"


def test_a_kept_first_screen_keeps_its_frame_so_the_element_shown_is_the_one_judged() -> None:
    on = ElementCheck(text="Wi-Fi", checked=True)
    shown = UIElement(1, "android.widget.Switch", "switch", Bounds(0, 500, 1000, 590),
                      text="Wi-Fi", checkable=True)  # off, on the screen
    below = UIElement(2, "android.widget.Switch", "switch", Bounds(0, 2100, 500, 2150),
                      text="Wi-Fi", checkable=True, checked=True)  # on, scrolled off it
    first = Observation(Image.new("RGB", (1, 1)), (shown, below), "settings", "Main", "net",
                        geometry=ScreenGeometry(1000, 2000))
    with MemoryBank(None, "unit") as memory:
        run = context("Turn on Wi-Fi", memory, on)
        honest.look(run, first)
    assert run.state.seen[0].screen == first.screen
    assert run.state.baseline == {honest.check_key(on): False}


def test_a_resumed_process_judges_its_saved_first_screens_in_their_frame() -> None:
    on = ElementCheck(text="Wi-Fi", checked=True)
    shown = UIElement(1, "android.widget.Switch", "switch", Bounds(0, 500, 1000, 590),
                      text="Wi-Fi", checkable=True)  # off, on the screen
    below = UIElement(2, "android.widget.Switch", "switch", Bounds(0, 2100, 500, 2150),
                      text="Wi-Fi", checkable=True, checked=True)  # on, scrolled off it
    frame = ScreenGeometry(1000, 2000, status_bar=60, nav_bar=120, margin=10)
    first = Observation(Image.new("RGB", (1, 1)), (shown, below), "settings", "Main", "net",
                        geometry=frame)
    saved = RunState("Turn on Wi-Fi", StepBudget(5))
    saved.seen, saved.apps = [first], {"settings": "net"}
    with MemoryBank(None, "unit") as memory:
        run = context("Turn on Wi-Fi", memory)
        honest.restore_screens(run.state, honest.saved_screens(saved))
        assert run.state.seen[0].screen == frame
        honest.remember(run, [on])  # a check the resumed process meets first
    assert run.state.baseline == {honest.check_key(on): False}
    wifi = ElementCheck(text="Wi-Fi")
    for bad in ([1000, 2000, 60, 120], [1000, "2000", 60, 120, 10], [0, 0, 0, 0, 0], "x"):
        with MemoryBank(None, "unit") as memory:
            back = context("Turn on Wi-Fi", memory)
            honest.restore_screens(back.state, [{"hash": "net", "frame": bad, "elements": [
                {"text": "Wi-Fi", "bounds": [0, 500, 1000, 590]}]}])
            assert back.state.seen[0].geometry is None, bad  # the picture's frame, as before
            honest.remember(back, [wifi])  # and checks are still judged on it
        assert back.state.baseline == {honest.check_key(wifi): True}, bad
