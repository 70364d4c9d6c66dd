"""Consent v3 (issue 35 items 1, 3, 7; issue 34 item 9) on a vphone through the real adb
server, the model a double over real HTTP; every outcome read from the vphone's state.

Words grant only where a human wrote them: an MCP client's "You may pay in Shop" is put to
the human (elicitation) before the run, a fleet goal's and a Python caller's grant nothing
without an explicit allow; a cached replay asks like a live run; "Delete all notes except
Trip" is one question naming the notes it deletes; a send question shows to whom and what.
"""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import anyio
import mcp.types as mt
from mcp import Client
from test_declined_vphone import Payer
from test_mcp_server import at_checkout, server
from test_replay_cache import PayInShop

from omg_agent.errors import OmgError
from omg_agent.guards.confirmation import ConfirmationRequest, ScriptedChannel
from omg_agent.guards.provenance import ASK_CLASS
from omg_agent.phone import ActionHeld, Phone
from omg_agent.sim.expert.runner import sim_settings, vphone_on_adb, with_overrides
from omg_agent.sim.expert.screen import launch, seen, tap
from omg_agent.sim.hostile import bundle, claim_done, plan
from omg_agent.sim.model_double import ModelDouble, contract_name

SHOP, NOTES, MESSAGES = "com.omg.shop", "com.omg.notes", "com.omg.messages"
SELF_GRANT = "Buy what is in the cart in Shop. You may pay in Shop."
DELETE_ALL = "Delete all notes except the one titled Trip"


def phone_on(serial: str, base_url: str, runs: Path, **more: Any) -> Phone:
    settings = with_overrides(sim_settings(base_url, runs, 20), more)
    return Phone(serial, settings=settings, driver="adb", hold_lease=False)


def test_an_mcp_clients_self_grant_is_asked_first_and_a_no_pays_nothing(
        vphone, tmp_path: Path) -> None:
    shop = at_checkout(vphone)
    asked: list[str] = []

    async def human(context: Any, params: mt.ElicitRequestParams) -> mt.ElicitResult:
        asked.append(params.message)
        return mt.ElicitResult(action="accept", content={"answer": "no"})

    async def session(base_url: str) -> Any:
        async with Client(server(vphone.serial, tmp_path, base_url),
                          elicitation_callback=human) as client:
            return await client.call_tool("run_task", {"task": SELF_GRANT})

    with ModelDouble(Payer(vphone.phone)) as double:
        out = anyio.run(session, double.base_url).structured_content
    assert asked and asked[0].startswith("This run asks to: pay in Shop"), asked
    assert len(asked) == 2 and "Pay" in asked[1]  # the held Pay is asked too: no again
    assert out["status"] == "declined", out
    assert shop.orders == []


def test_a_fleet_goal_saying_you_may_pay_is_not_granted_but_allow_is(
        vphone, tmp_path: Path) -> None:
    from omg_agent.fleet.attempt import run_attempt
    from omg_agent.fleet.devices import FleetDevice
    from omg_agent.fleet.jobs import file_jobs
    from omg_agent.fleet.taskfile import parse_tasks

    shop = at_checkout(vphone)
    with ModelDouble(Payer(vphone.phone)) as double:
        # the endpoint is the user's --model: a tasks file may not name where the key goes
        spec = parse_tasks({"max_steps": 12, "tasks": [
            {"id": "pay", "goal": SELF_GRANT}]}, "tasks")
        job = file_jobs(spec, tmp_path / "a", model=double.base_url)[0]
        held = run_attempt(job, FleetDevice(vphone.serial), 1, tmp_path / "a")
        assert shop.orders == [] and held.run["status"] == "needs_confirmation", held.run
        allowed = file_jobs(spec, tmp_path / "b", model=double.base_url, allow="payment")[0]
        paid = run_attempt(allowed, FleetDevice(vphone.serial), 1, tmp_path / "b")
    assert len(shop.orders) == 1, paid.run


def test_a_python_callers_permission_words_are_held_without_allow(vphone, tmp_path) -> None:
    shop = at_checkout(vphone)
    human = ScriptedChannel(policy=lambda r: r.cls == ASK_CLASS)
    with ModelDouble(Payer(vphone.phone)) as double, \
            phone_on(vphone.serial, double.base_url, tmp_path) as phone:
        held = phone.run(SELF_GRANT, use_cache=False)
        assert (held.status, shop.orders) == ("needs_confirmation", [])
        paid = phone.run(SELF_GRANT, use_cache=False, confirm=human)
    assert [r.cls for r in human.requests] == [ASK_CLASS]  # asked once, before the run
    assert "pay in Shop" in human.requests[0].describe
    assert paid.status == "done" and len(shop.orders) == 1


def test_a_cached_replay_asks_like_a_live_run_and_a_no_pays_nothing(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    counts: list[tuple[str, int, int]] = []
    human = ScriptedChannel(policy=lambda r: False)
    for confirm, words in ((None, "human"), (human, "client")):
        with vphone_on_adb(0) as (vp, serial), ExitStack() as stack:
            vp.apps[SHOP].promo_mode, vp.apps[SHOP].cart = "never", {"p05": 1}
            double = stack.enter_context(ModelDouble(PayInShop()))
            phone = stack.enter_context(phone_on(serial, double.base_url, runs))
            result = phone.run(SELF_GRANT, confirm=confirm, words_from=words)
            counts.append((result.status, len(vp.apps[SHOP].orders), len(double.requests)))
    assert counts[0][:2] == ("done", 1)  # the human's own words: paid, and cached
    assert counts[1] == ("declined", 0, 0), counts  # replayed (no model), asked, no: unpaid
    assert [r.cls for r in human.requests] == [ASK_CLASS, "payment"]
    assert "Pay" in human.requests[1].describe


class Deleter:
    """Deletes every note but Trip, one by one: list → note → Delete."""

    def reply(self, request: dict[str, Any]) -> str:
        name = contract_name(request)
        if name == "TaskPlan":
            return json.dumps(plan(DELETE_ALL))
        if name == "Replan":
            return json.dumps({"status": "done", "plan": None, "response": "Deleted",
                               "evidence": []})
        look = seen(request)
        if look.package != NOTES:
            return bundle([launch(NOTES)], "open Notes")
        delete = look.screen.find(res="delete")
        if delete is not None:
            return bundle([tap(delete)], "delete this note")
        rest = [e for e in look.screen.all(res="note_item") if e.text != "Trip"]
        return bundle([tap(rest[0])], "open a note") if rest else claim_done()


def test_delete_all_but_trip_is_one_question_naming_groceries_and_ideas(
        vphone, tmp_path: Path) -> None:
    notes = vphone.phone.apps[NOTES]
    notes.notes = [{"title": t, "body": f"{t} body"} for t in ("Groceries", "Ideas", "Trip")]
    vphone.phone.changed()
    human = ScriptedChannel(policy=lambda r: True)
    with ModelDouble(Deleter()) as double, \
            phone_on(vphone.serial, double.base_url, tmp_path) as phone:
        phone.run(DELETE_ALL, confirm=human, use_cache=False)
    assert [r.describe for r in human.requests] == [
        'delete 2 notes: "Groceries", "Ideas" (com.omg.notes)']
    assert [n["title"] for n in notes.notes] == ["Trip"]


def _held_send(phone: Phone) -> ConfirmationRequest:
    try:
        phone.tap(resource_id="send")
    except ActionHeld as held:
        return held.request
    raise AssertionError("the send was not held")


def test_a_send_question_shows_the_recipient_and_the_text_and_a_secret_is_asked_masked(
        vphone, tmp_path: Path) -> None:
    messages = vphone.phone.apps[MESSAGES]
    vphone.phone.start_activity(MESSAGES)
    messages.push("thread", contact="Bob", offset=None)
    messages.fields["compose"] = "Running 10 minutes late, start without me"
    vphone.phone.changed()
    with phone_on(vphone.serial, "http://127.0.0.1:9/v1", tmp_path,
                  allow="send:Alice", secrets={"pw": "omg5865"}) as phone:
        request = _held_send(phone)
        assert request.describe.endswith(
            '— sends "Running 10 minutes late, start without me" to Bob')
        messages.stack.pop()
        messages.push("thread", contact="Alice", offset=None)
        messages.fields["compose"] = "my password is omg5865"
        vphone.phone.changed()
        secret = _held_send(phone)  # allowed for Alice, but never with a secret in it
    assert "holds a secret value" in secret.reason
    assert "omg5865" not in secret.describe and "{{secret:pw}}" in secret.describe
    assert [s["to"] for s in vphone.phone.state()["apps"][MESSAGES]["sent"]] == []


def test_a_bad_allow_is_one_line_naming_what_is_accepted(vphone, tmp_path) -> None:
    with phone_on(vphone.serial, "http://127.0.0.1:9/v1", tmp_path) as phone:
        try:
            phone.run("Open Settings", allow="paymint")
        except OmgError as exc:
            assert "choose from" in str(exc) and "\n" not in str(exc)
        else:
            raise AssertionError("a bad allow item ran")
