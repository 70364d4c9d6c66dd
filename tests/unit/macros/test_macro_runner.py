"""Compiled macros on a list: one shell call per screenful, checkpoints, stop conditions."""

from __future__ import annotations

import dataclasses
from collections import Counter

from omg_agent.guards.gatekeeper import GateKeeper
from omg_agent.guards.sensitive import Gate
from omg_agent.macros.model import Macro, Stop, Target
from omg_agent.macros.runner import MacroRunner
from tests.unit.macros.listphone import APP, AUTHOR, LIKE, LIST, ListPhone

LIKE_MACRO = Macro(name="list-like", app=APP, container=LIST,
                   target=Target(resource_id=LIKE, todo_text="Like", done_text="Liked"))


def run(phone: ListPhone, stop: Stop, macro: Macro = LIKE_MACRO, gate=None):
    return MacroRunner(phone, shell=phone, gate=gate).run(macro, stop)  # type: ignore[arg-type]


def test_count_likes_exactly_the_next_items_once_each() -> None:
    phone = ListPhone([f"A{i}" for i in range(40)])
    phone.liked = {1, 2}  # done before: skipped, never toggled
    report = run(phone, Stop(count=20))
    assert report.completed and "20 items" in report.reason
    assert phone.liked == {1, 2} | set(range(3, 23))
    assert all(n == 1 for n in Counter(phone.log).values())
    assert len(report.sent) == 20
    # a Like button may change the screen (the judged port's rule): one touch per call,
    # the next planned on the look after it; a scroll travels alone
    assert report.shell_calls == len(phone.commands) == report.observations - 1
    assert all(c.count("input ") == 1 for c in phone.commands)
    assert sum("input tap" in c for c in phone.commands) == 20


def test_touches_that_keep_the_screen_travel_a_screenful_per_call() -> None:
    phone = ListPhone([f"A{i}" for i in range(40)], role="switch")
    macro = LIKE_MACRO.model_copy(update={"target": Target(
        resource_id=LIKE, role="switch", todo_text="Like", done_text="Liked")})
    report = run(phone, Stop(count=20), macro)
    assert report.completed and phone.liked == set(range(1, 21))
    assert all(n == 1 for n in Counter(phone.log).values())
    # switches keep the screen: a screenful of taps and the scroll in one call
    assert report.shell_calls == len(phone.commands) < 20
    assert all("input tap" in c for c in phone.commands)


def test_a_touch_that_opens_a_screen_ends_its_chunk_before_the_next_lands_on_it() -> None:
    """Attack round: the like that opens a page with Pay where the next Like was; judged
    on the screen the chunk was planned on, the next tap paid with no question."""
    phone = ListPhone([f"A{i}" for i in range(40)], popup_at=1, trap=True)
    report = run(phone, Stop(count=5), gate=GateKeeper(Gate([])))
    assert phone.paid == 0 and phone.log == [1]
    assert not report.completed and report.stopped_by == "checkpoint"
    assert "Boost your like?" in report.reason


def test_end_of_list_stops_the_macro() -> None:
    phone = ListPhone([f"A{i}" for i in range(9)])
    report = run(phone, Stop())
    assert report.completed and report.reason == "the end of the list"
    assert phone.liked == set(range(1, 10))


def test_filter_likes_only_matching_items() -> None:
    authors = ["Ann" if i % 3 else "Bob" for i in range(30)]
    phone = ListPhone(authors)
    macro = LIKE_MACRO.model_copy(update={"where": {AUTHOR: "Ann"}})
    run(phone, Stop(count=8), macro)
    anns = [i + 1 for i, a in enumerate(authors) if a == "Ann"][:8]
    assert phone.liked == set(anns)


def test_until_text_stops_before_the_item_that_shows_it() -> None:
    phone = ListPhone(["Ann", "Bob", "Cid", "STOP", "Eve", "Fay"])
    report = run(phone, Stop(until_text="STOP"))
    assert report.completed and phone.liked == {1, 2, 3}


def test_popup_mid_macro_stops_at_the_checkpoint_with_what_was_done() -> None:
    phone = ListPhone([f"A{i}" for i in range(40)], popup_at=7)
    report = run(phone, Stop(count=20))
    assert not report.completed and report.stopped_by == "checkpoint"
    assert "Enjoying it?" in report.reason
    assert len(phone.liked) == 7 and all(n == 1 for n in Counter(phone.log).values())
    assert set(report.sent) >= {f"Like post {n}" for n in phone.liked}
    assert set(report.verified) <= set(report.sent)
    assert "operator has control" in report.summary()


def test_a_list_that_flings_past_unseen_items_stops_the_macro() -> None:
    phone = ListPhone([f"A{i}" for i in range(40)], fling=2.5)
    report = run(phone, Stop(count=20))
    assert not report.completed and "moved past" in report.reason
    shown_first = {1, 2, 3, 4, 5, 6}
    assert phone.liked <= shown_first  # nothing beyond the first screen was touched blind


def test_wrong_app_in_front_sends_nothing() -> None:
    phone = ListPhone(["Ann", "Bob"])
    report = run(phone, Stop(count=1), LIKE_MACRO.model_copy(update={"app": "com.other"}))
    assert not report.completed and report.stopped_by == "start" and not phone.commands


def test_the_gate_holds_a_sensitive_target_before_anything_is_sent() -> None:
    phone = ListPhone(["Ann", "Bob", "Cid"])
    shown = phone.elements
    # the same list, its buttons labelled as a payment: the gate reads the element's text
    phone.elements = lambda: tuple(  # type: ignore[method-assign]
        dataclasses.replace(e, text="Pay now") if e.resource_id == LIKE else e
        for e in shown())
    pay = LIKE_MACRO.model_copy(update={"target": Target(resource_id=LIKE,
                                                         todo_text="Pay now")})
    report = run(phone, Stop(count=2), pay, GateKeeper(Gate([])))
    assert not report.completed and report.stopped_by == "sensitive"
    assert "not pre-authorised" in report.reason
    assert not phone.commands and not phone.liked


class ExecuteOnly:
    """The list phone behind ``observe``/``execute`` only (a driver without a shell)."""

    def __init__(self, phone: ListPhone) -> None:
        self.phone = phone
        self.bundles: list[list] = []

    def observe(self, *, ocr: bool = False):
        return self.phone.observe()

    def execute(self, actions, observation=None, *, review=None):
        from omg_agent.core.actions import Swipe
        from omg_agent.drivers.base import ActionOutcome, ExecResult

        self.bundles.append(list(actions))
        obs = self.phone.observe()
        for a in actions:
            if isinstance(a, Swipe):
                start, end = obs.to_pixels((a.from_.x, a.from_.y)), obs.to_pixels((a.to.x,
                                                                                   a.to.y))
                self.phone.scroll(start.y - end.y)
            else:
                p = obs.to_pixels((a.target.x, a.target.y))
                self.phone.tap(p.x, p.y)
        return ExecResult(tuple(ActionOutcome(i, a, True) for i, a in enumerate(actions)),
                          device_calls=1)


def test_without_a_shell_stream_chunks_go_through_execute() -> None:
    phone = ListPhone([f"A{i}" for i in range(20)])
    driver = ExecuteOnly(phone)
    report = MacroRunner(driver).run(LIKE_MACRO, Stop(count=8))  # type: ignore[arg-type]
    assert report.completed and phone.liked == set(range(1, 9))
    assert all(n == 1 for n in Counter(phone.log).values())
    assert len(driver.bundles) == report.shell_calls
