"""Provenance of permission (issue 35 item 1): words grant only where a human wrote them.
A client's task (MCP, a fleet file, a Python caller's string) is asked once before the run
— or grants nothing; its limits always hold; a resumed run keeps what its start decided."""

from __future__ import annotations

from gate_screens import SHOP, element, observe

from omg_agent.config import Settings
from omg_agent.core.actions import parse_action
from omg_agent.guards.authorisation import parse_allow
from omg_agent.guards.confirmation import ScriptedChannel
from omg_agent.guards.provenance import (
    ASK_CLASS,
    asks_question,
    describe_grant,
    run_asks,
    word_authorisations,
)
from omg_agent.taskrun import words_grant

PAY = "Buy what is in the cart in Shop. You may pay in Shop."


def test_a_clients_words_keep_their_limits_and_grant_nothing():
    assert [a.grants for a in word_authorisations(PAY, grant=True)] == [True]
    assert word_authorisations(PAY, grant=False) == []
    limited = word_authorisations("Buy a cable in Shop, spend no more than ¥50", grant=False)
    assert [(a.cls, a.grants, str(a.limit)) for a in limited] == [
        ("payment", False, "at most ¥50")]


def test_what_a_client_task_asks_is_said_in_the_users_words():
    asks = run_asks("You may pay up to ¥100 in Shop; 可以删除备忘录")
    assert sorted(describe_grant(a) for a in asks) == [
        "delete in 备忘录", "pay at most ¥100 in Shop"]
    assert asks_question(asks).startswith("This run asks to: ")
    assert "pay at most ¥100 in Shop" in asks_question(asks)
    assert run_asks(PAY, parse_allow(["payment"])) == []  # the user's --allow already gives it


def settings(**kw) -> Settings:
    return Settings.model_validate({"model": "m", **kw})


def test_a_human_task_grants_a_client_task_is_asked_once_or_grants_nothing():
    assert words_grant(PAY, "human", settings(), None, None) == (True, None)
    granted, asked = words_grant(PAY, "client", settings(), None, None)
    assert not granted and asked == "run with these permissions: pay in Shop"
    yes, no = ScriptedChannel([True]), ScriptedChannel([False])
    assert words_grant(PAY, "client", settings(), yes, None)[0] is True
    assert words_grant(PAY, "client", settings(), no, None)[0] is False
    assert [r.cls for r in yes.requests] == [ASK_CLASS]
    assert "pay in Shop" in yes.requests[0].text()
    quiet = ScriptedChannel([True])
    assert words_grant("Open Settings", "client", settings(), quiet, None) == (False, None)
    assert quiet.requests == []  # nothing asked when the words ask for nothing


def test_the_gate_of_a_clients_task_holds_the_payment_its_words_allow(make_phone):
    from omg_agent.brain.agent import gatekeeper

    phone = make_phone(seed=0)
    phone.apps[SHOP].cart = {"p15": 1}
    phone.start_activity(SHOP)
    phone.apps[SHOP].push("checkout")
    obs = observe(phone)
    tap = parse_action({"type": "tap", "target": element(obs, rid="pay").id})
    human = gatekeeper(settings(), PAY, None, words_grant=True)
    client = gatekeeper(settings(), PAY, None, words_grant=False)
    allowed = gatekeeper(settings(allow="payment:Shop"), PAY, None, words_grant=False)
    assert human is not None and human.review([tap], obs) is None
    assert client is not None and client.review([tap], obs) is not None
    assert allowed is not None and allowed.review([tap], obs) is None
