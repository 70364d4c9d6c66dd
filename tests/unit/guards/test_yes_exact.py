"""A yes approves exactly what the question showed (issue 34 item 2, issue 35 item 2).

The screens are a real VirtualPhone's, observed host-side; the gate looks again after every
answer through ``observe``. While a question is open the Shop cart is refilled (the total
doubles): the yes given to the old amount must not pay the new one — it is asked again with
the new amount; an element gone or moved is not tapped; an approval is used once.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from gate_screens import SHOP, element, observe

from omg_agent.core.actions import parse_action
from omg_agent.core.secrets import SecretVault
from omg_agent.drivers.ports import InputEffect, InputHeld, InputScene
from omg_agent.guards.choke import ChokePoint
from omg_agent.guards.confirmation import (
    ConfirmationRequest,
    MaskingChannel,
    ScriptedChannel,
    TerminalChannel,
)
from omg_agent.guards.gatekeeper import GateKeeper
from omg_agent.guards.sensitive import Gate
from omg_agent.hitl.channel import PageChannel


def at_checkout(phone: Any, count: int = 1) -> Any:
    shop = phone.apps[SHOP]
    shop.cart = {next(iter(shop.prices)): count}
    phone.start_activity(SHOP)
    shop.push("cart")
    shop.push("checkout")
    phone.changed()
    return shop


def refill(phone: Any) -> None:
    """The cart changes while the question is open: twice the items, twice the total."""
    shop = phone.apps[SHOP]
    shop.cart = {k: n * 2 for k, n in shop.cart.items()}
    phone.changed()


def pay_tap(phone: Any) -> tuple[Any, Any]:
    obs = observe(phone)
    pay = element(obs, rid="pay")
    return parse_action({"type": "tap", "target": {"kind": "element", "id": pay.id}}), obs


def keeper(phone: Any, channel: Any) -> GateKeeper:
    return GateKeeper(Gate([]), channel, "Pay in Shop", observe=lambda: observe(phone))


def test_a_yes_given_while_the_cart_changed_is_asked_again_with_the_new_amount(make_phone):
    phone = make_phone()
    at_checkout(phone)
    answers = iter([True, False])

    def human(request: ConfirmationRequest) -> bool:
        if len(channel.requests) == 1:
            refill(phone)  # the cart changes while the first question is open
        return next(answers)

    channel = ScriptedChannel(policy=human)
    action, obs = pay_tap(phone)
    stop = keeper(phone, channel).review([action], obs)
    first, second = channel.requests
    assert first.describe != second.describe  # the new amount, asked again
    assert "changed" in second.text() and first.describe in second.text()
    assert stop is not None and stop.answer is False  # the second answer (no) stands
    assert phone.apps[SHOP].orders == []


def test_a_masked_channel_is_shown_the_fingerprint_and_why_it_is_asked_again(make_phone):
    # a run with a secret vault asks through MaskingChannel: it must pass on what the yes is
    # bound to (an MCP yes approves by fingerprint) and the "screen changed" note
    phone = make_phone()
    at_checkout(phone)
    vault = SecretVault()
    vault.add("pw", "omg5865")
    answers = iter([True, False])

    def human(request: ConfirmationRequest) -> bool:
        if len(channel.requests) == 1:
            refill(phone)
        return next(answers)

    channel = ScriptedChannel(policy=human)
    action, obs = pay_tap(phone)
    stop = keeper(phone, MaskingChannel(channel, vault.mask)).review([action], obs)
    first, second = channel.requests
    assert first.fingerprint and second.fingerprint != first.fingerprint
    assert "changed" in second.text() and first.describe in second.text()
    assert stop is not None and stop.answer is False
    exact = ScriptedChannel(policy=lambda r: r.fingerprint == stop.request.fingerprint or None)
    action, obs = pay_tap(phone)  # a yes to exactly the held action (what MCP's _act does)
    assert keeper(phone, MaskingChannel(exact, vault.mask)).review([action], obs) is None


def test_the_choke_point_binds_its_question_and_an_approval_to_the_fingerprint(make_phone):
    # an input held at the choke point (not the review) is approved by its fingerprint, as
    # a review's is: the words of its description approve nothing, a yes is used once
    phone = make_phone()
    at_checkout(phone)
    action, obs = pay_tap(phone)
    reviewed = keeper(phone, ScriptedChannel()).review([action], obs)
    assert reviewed is not None
    pay = element(obs, rid="pay")
    tap = InputEffect("tap", pay.bounds.center, element=pay)
    gate = keeper(phone, ScriptedChannel())  # nobody answers
    choke = ChokePoint(gate)
    with pytest.raises(InputHeld) as held:
        choke.judge(tap, InputScene(obs, 28))
    assert held.value.request.fingerprint == reviewed.request.fingerprint
    gate.approve(held.value.request.describe)
    with pytest.raises(InputHeld):
        choke.judge(tap, InputScene(obs, 28))
    gate.approve(held.value.request.fingerprint)
    choke.judge(tap, InputScene(obs, 28))  # approved: goes, once
    with pytest.raises(InputHeld):
        choke.judge(tap, InputScene(obs, 28))


def test_the_same_screen_after_a_yes_goes_on_after_one_question(make_phone):
    phone = make_phone()
    at_checkout(phone)
    channel = ScriptedChannel([True])
    action, obs = pay_tap(phone)
    assert keeper(phone, channel).review([action], obs) is None
    assert len(channel.requests) == 1


def test_a_yes_to_a_pay_button_that_is_gone_taps_nothing(make_phone):
    phone = make_phone()
    shop = at_checkout(phone)

    def human(request: ConfirmationRequest) -> bool:
        shop.cart = {}
        phone.go_home()  # the user left Shop while asked: no Pay button any more
        return True

    action, obs = pay_tap(phone)
    stop = keeper(phone, ScriptedChannel(policy=human)).review([action], obs)
    assert stop is not None and stop.gone and stop.answer is None


def test_an_approval_is_used_once_and_only_for_its_fingerprint(make_phone):
    phone = make_phone()
    at_checkout(phone)
    channel = ScriptedChannel()  # nobody answers: anything asked is held
    gate = keeper(phone, channel)
    action, obs = pay_tap(phone)
    held = gate.review([action], obs)
    assert held is not None and held.request.fingerprint
    gate.approve(held.request.describe)  # the words alone approve nothing
    assert gate.review([action], obs) is not None
    gate.approve(held.request.fingerprint)
    assert gate.review([action], obs) is None  # used here, once
    assert gate.review([action], obs) is not None
    refill(phone)
    action2, obs2 = pay_tap(phone)
    gate.approve(held.request.fingerprint)  # a yes to the old total
    assert gate.review([action2], obs2) is not None  # does not pay the new one


def test_the_terminal_asks_again_when_the_cart_changed_during_its_question(make_phone):
    phone = make_phone()
    at_checkout(phone)
    said: list[str] = []
    replies = iter(["yes", "no"])

    def read(prompt: str) -> str:
        if not said:
            refill(phone)
        said.append(prompt)
        return next(replies)

    shown: list[str] = []
    action, obs = pay_tap(phone)
    stop = keeper(phone, TerminalChannel(read, shown.append)).review([action], obs)
    assert len(said) == 2 and stop is not None and stop.answer is False
    questions = [t for t in shown if t.startswith(("The agent wants", "The screen changed"))]
    assert len(questions) == 2 and questions[0] != questions[1]


def test_the_mirror_page_is_asked_again_when_the_cart_changed_during_its_question(
        make_phone):
    phone = make_phone()
    at_checkout(phone)
    page = PageChannel()
    action, obs = pay_tap(phone)
    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(
        keeper(phone, page).review([action], obs)), daemon=True)
    thread.start()
    texts = []
    for answer in (True, False):
        version = page.changes.version
        while not page.pending():
            version = page.changes.wait(version, 10)
        [request] = page.pending()
        texts.append(request["text"])
        if answer:
            refill(phone)
        assert page.answer(request["id"], answer)
    thread.join(10)
    assert "changed" in texts[1] and texts[0] != texts[1]
    assert out and out[0] is not None and out[0].answer is False


def test_a_fingerprint_is_the_same_for_the_same_action_and_differs_with_the_amount(
        make_phone):
    def printed(count: int) -> str:
        phone = make_phone()
        at_checkout(phone, count)
        action, obs = pay_tap(phone)
        held = keeper(phone, ScriptedChannel()).review([action], obs)
        assert held is not None
        return held.request.fingerprint

    assert printed(1) == printed(1)
    assert printed(1) != printed(2)
