"""What the one choke point says and does when it asks (issue 34; the survivors of its
mutation run): the question names the task and passes its words through the secret mask, a
no or no one to ask holds the input with a message saying which, a segment review's yes
lets one input of its class through — once — and with the gate off nothing is asked."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from test_choke_property import CONTROL, SLOP, screen

from omg_agent.core.geometry import Point
from omg_agent.drivers.ports import InputEffect, InputHeld, InputScene
from omg_agent.guards.choke import ChokePoint, bind
from omg_agent.guards.gatekeeper import GateKeeper
from omg_agent.guards.sensitive import Gate

TASK = "Pay for the order in Shop"
PAY = InputEffect("tap", Point((CONTROL[0] + CONTROL[2]) // 2, (CONTROL[1] + CONTROL[3]) // 2))


class Answering:
    def __init__(self, answer: bool | None) -> None:
        self.answer, self.asked = answer, []  # type: ignore[var-annotated]

    def confirm(self, request: Any) -> bool | None:
        self.asked.append(request)
        return self.answer


def judge(choke: ChokePoint) -> None:
    choke.judge(PAY, InputScene(screen("pay"), SLOP))


def test_the_question_names_the_task_and_shows_its_words_through_the_mask() -> None:
    channel = Answering(True)
    choke = ChokePoint(None)
    with choke.bound(GateKeeper(Gate(), channel, task=TASK),
                     mask=lambda text: text.replace("1,079", "[amount]")) as keeper:
        judge(choke)
    assert keeper is not None and len(channel.asked) == 1
    request = channel.asked[0]
    assert request.task == TASK
    assert "[amount]" in request.describe and "1,079" not in request.describe
    assert "1,079" not in request.reason and request.reason
    assert request.fingerprint  # bound to this screen: a yes is for exactly this input


@pytest.mark.parametrize(("answer", "how"), [(False, "the user said no"),
                                             (None, "no one to ask")])
def test_a_no_or_nobody_holds_the_input_and_says_which(answer: bool | None, how: str,
                                                       caplog: pytest.LogCaptureFixture
                                                       ) -> None:
    choke = ChokePoint(GateKeeper(Gate(), Answering(answer), task=TASK), serial="dev-1")
    with caplog.at_level(logging.INFO, logger="omg_agent.guards.choke"), \
            pytest.raises(InputHeld) as held:
        judge(choke)
    text = str(held.value)
    assert text.startswith("dev-1: held at the choke point: ") and text.endswith(f"— {how}")
    assert "Pay" in text and "(" in text  # what, and why, in the words of the question
    assert held.value.answer is answer and held.value.request is not None
    assert held.value.serial == "dev-1"
    assert any(r.getMessage().startswith("choke point: ") and "Pay" in r.getMessage()
               and str(answer) in r.getMessage() for r in caplog.records)


def test_a_review_yes_lets_one_input_of_its_class_through_once() -> None:
    channel = Answering(None)
    keeper = GateKeeper(Gate(), channel, task=TASK)
    keeper.cleared.append("payment")
    choke = ChokePoint(keeper)
    judge(choke)  # the review asked and the human said yes: this input goes
    assert channel.asked == [] and keeper.cleared == []
    with pytest.raises(InputHeld):  # the next one is asked again
        judge(choke)
    assert len(channel.asked) == 1


def test_with_the_gate_off_nothing_is_asked_and_binding_restores_the_keeper() -> None:
    channel = Answering(False)
    keeper = GateKeeper(Gate(), channel, task=TASK)
    choke = ChokePoint(keeper, serial="s")
    assert (choke.keeper, choke.serial, choke.mask("x")) == (keeper, "s", "x")
    with bind(_Driver(choke), None) as bound:
        assert bound is None
        judge(choke)  # the user's config switched the gate off: nothing asked, nothing held
    assert channel.asked == [] and choke.keeper is keeper and choke.mask("y") == "y"


class _Executor:
    def __init__(self, judge: ChokePoint) -> None:
        self.judge = judge


class _Driver:
    """A driver wrapper over one that has the choke point in its executor."""

    def __init__(self, judge: ChokePoint) -> None:
        self.inner = type("Adb", (), {"_executor": _Executor(judge)})()


def test_a_touch_with_no_screen_to_place_it_on_is_asked_unbound() -> None:
    channel = Answering(True)
    choke = ChokePoint(GateKeeper(Gate(), channel, task=TASK))
    assert choke.serial == ""
    choke.judge(PAY, InputScene(None, SLOP))
    # nothing to bind a yes to: only this live answer lets it go
    assert len(channel.asked) == 1 and channel.asked[0].fingerprint == ""


def test_bind_judges_with_the_run_keeper_and_mask_then_gives_the_old_back() -> None:
    old, channel = GateKeeper(Gate(), Answering(False)), Answering(True)
    run = GateKeeper(Gate(), channel, task=TASK)
    choke = ChokePoint(old)
    with bind(_Driver(choke), run, lambda text: text.replace("Pay", "P*y")) as bound:
        assert bound is run and choke.keeper is run
        judge(choke)
    assert len(channel.asked) == 1 and "P*y" in channel.asked[0].describe
    assert choke.keeper is old and choke.mask("Pay") == "Pay"
    with bind(object(), run) as plain:  # a test double without a choke point
        assert plain is run
