"""What the user said is honoured (issue 35 item 4) on a vphone through the real adb server,
the model a double over real HTTP, the task typed by a human (``words_from="human"``, as the
CLI's task argument); every outcome read from the vphone's state.

- t14's task, `Send "On my way" to 妈妈 and to Bob in Messages.`: both sends go out with
  exactly that text and nobody is asked; a model that types another text ("On my way!!")
  is asked about, and after the no nothing is sent. (On main @b2d785c the first asked "sends
  an empty message to 妈妈": the choke point judged a Send typed-then-tapped in one bundle on
  the screen before the typing.)
- "Delete the note titled Groceries in Notes": that note goes, the others stay, no question;
  "Delete all notes except the one titled Trip" still asks its one list question.
- "Sign in to Login as demo with password {{secret:pw}}", the secret from ``OMG_SECRET_PW``:
  signed in, no question.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from omg_agent.config import Settings
from omg_agent.guards.confirmation import ScriptedChannel
from omg_agent.phone import Phone, TaskResult
from omg_agent.sim.expert.screen import anchor, launch, seen, tap, tap_at, type_at
from omg_agent.sim.model_double import ModelDouble, contract_name
from omg_agent.sim.replies import LOGIN, MESSAGES, NOTES, bundle, claim_done, one_step_plan

T14 = 'Send "On my way" to 妈妈 and to Bob in Messages.'


def _phone(serial: str, base_url: str, runs: Path, env: dict[str, str] | None = None) -> Phone:
    settings = Settings.load(env=env or {}, overrides={
        "base_url": base_url, "model": "double", "max_steps": 20, "retry_backoff_s": 0.001,
        "retry_backoff_max_s": 0.01, "timeout_s": 20, "runs_dir": runs,
        "confirm_done": "never"})
    return Phone(serial, settings=settings, driver="adb", hold_lease=False)


def _run(vphone: Any, policy: Any, task: str, tmp_path: Path,
         env: dict[str, str] | None = None) -> tuple[TaskResult, ScriptedChannel, str]:
    """``task`` as a human typed it, the human at hand saying no to anything asked."""
    human = ScriptedChannel(policy=lambda r: False)
    with ModelDouble(policy) as double, \
            _phone(vphone.serial, double.base_url, tmp_path, env) as phone:
        result = phone.run(task, confirm=human, use_cache=False, words_from="human")
    trace = (result.run_dir / "trace.jsonl").read_text(encoding="utf-8")
    return result, human, trace


class _Planner:
    """The planner's side of a double: one step, and "done" on any replan."""

    task = ""

    def planned(self, request: dict[str, Any]) -> str | None:
        name = contract_name(request)
        if name == "TaskPlan":
            return json.dumps(one_step_plan(self.task, "the task is done"))
        if name == "Replan":
            return json.dumps({"status": "done", "plan": None, "response": "Done",
                               "evidence": []})
        return None


class SendTo(_Planner):
    """Sends ``text`` to 妈妈 from a new message (To, message, Send in one bundle), goes back
    to the list, and to Bob in his conversation (message and Send), then says done — the
    two ways a model sends, one with a recipient field, one with the contact in the app bar.
    """

    def __init__(self, text: str) -> None:
        self.task, self.text, self.todo = T14, text, ["妈妈", "Bob"]

    def reply(self, request: dict[str, Any]) -> str:
        if (planned := self.planned(request)) is not None:
            return planned
        look = seen(request)
        if look.package != MESSAGES:
            return bundle([launch(MESSAGES)], "open Messages")
        if look.screen.find(res="recipient") is not None:
            who = self.todo.pop(0)
            return bundle([type_at(_at("recipient"), who), type_at(_at("body"), self.text),
                           tap_at(_at("send"))], f"send it to {who}")
        if look.screen.find(res="compose") is not None:
            who = look.screen.find(res="title")
            if who is not None and who.text in self.todo:
                self.todo.remove(who.text)
                return bundle([type_at(_at("compose"), self.text), tap_at(_at("send"))],
                              f"send it to {who.text}")
            if not self.todo:
                return claim_done("sent", thought="both sent")
            return bundle([{"type": "back"}], "back to the list")
        if self.todo[0] == "妈妈":
            return bundle([tap_at(_at("fab_new"))], "new message")
        row = next(r for r in look.screen.all(res="conversation") if r.desc == self.todo[0])
        return bundle([tap(row)], f"open {self.todo[0]}")


def _at(key: str) -> dict[str, Any]:
    return anchor(res=f"{MESSAGES}:id/{key}")


def _sent(vphone: Any) -> list[tuple[str, str]]:
    return [(s["to"], s["text"]) for s in vphone.phone.state()["apps"][MESSAGES]["sent"]]


def _at_messages(vphone: Any) -> None:
    vphone.phone.start_activity(MESSAGES)
    vphone.phone.changed()


def test_t14_sends_on_my_way_to_both_with_no_question(vphone, tmp_path: Path) -> None:
    _at_messages(vphone)
    result, human, trace = _run(vphone, SendTo("On my way"), T14, tmp_path)
    assert _sent(vphone) == [("妈妈", "On my way"), ("Bob", "On my way")]
    assert human.requests == [], [r.describe for r in human.requests]
    assert result.status == "done", (result.status, result.summary)
    assert "needs_confirmation" not in trace


def test_t14_with_another_text_is_asked_and_after_the_no_nothing_is_sent(
        vphone, tmp_path: Path) -> None:
    _at_messages(vphone)
    result, human, _ = _run(vphone, SendTo("On my way!!"), T14, tmp_path)
    asked = [r.describe for r in human.requests]  # each send asked about, by what it says
    assert [r.cls for r in human.requests] == ["send", "send"], asked
    assert asked[0].endswith('sends "On my way!!" to 妈妈'), asked
    assert asked[1].endswith('sends "On my way!!" to Bob'), asked
    assert _sent(vphone) == []
    assert result.status != "done", result.status


# -- deletes: the named note only, and "all but Trip" one list question ----------------------
NAMED = "Delete the note titled Groceries in Notes"
ALL_BUT_TRIP = "Delete all notes except the one titled Trip"


class DeleteNotes(_Planner):
    """Opens each note whose title ``wanted`` says and taps Delete, one tap a turn; then
    says done."""

    def __init__(self, task: str, wanted: Callable[[str], bool]) -> None:
        self.task, self.wanted = task, wanted

    def reply(self, request: dict[str, Any]) -> str:
        if (planned := self.planned(request)) is not None:
            return planned
        look = seen(request)
        if look.package != NOTES:
            return bundle([launch(NOTES)], "open Notes")
        delete = look.screen.find(res="delete")
        if delete is not None:
            return bundle([tap(delete)], "delete this note")
        rest = [e for e in look.screen.all(res="note_item") if self.wanted(e.text)]
        return bundle([tap(rest[0])], "open a note") if rest else \
            claim_done("deleted", thought="done")


def _notes(vphone: Any) -> list[str]:
    return [n["title"] for n in vphone.phone.state()["apps"][NOTES]["notes"]]


def _three_notes(vphone: Any) -> None:
    vphone.phone.apps[NOTES].notes = [{"title": t, "body": f"{t} body"}
                                      for t in ("Groceries", "Ideas", "Trip")]
    vphone.phone.start_activity(NOTES)
    vphone.phone.changed()


def test_the_note_named_is_deleted_with_no_question_the_others_kept(
        vphone, tmp_path: Path) -> None:
    _three_notes(vphone)
    policy = DeleteNotes(NAMED, lambda title: title == "Groceries")
    result, human, trace = _run(vphone, policy, NAMED, tmp_path)
    assert _notes(vphone) == ["Ideas", "Trip"]
    assert human.requests == [], [r.describe for r in human.requests]
    assert result.status == "done", (result.status, result.summary)
    assert "needs_confirmation" not in trace


def test_delete_all_but_trip_is_still_one_question(vphone, tmp_path: Path) -> None:
    _three_notes(vphone)
    policy = DeleteNotes(ALL_BUT_TRIP, lambda title: title != "Trip")
    result, human, _ = _run(vphone, policy, ALL_BUT_TRIP, tmp_path)
    assert [r.describe for r in human.requests] == [
        'delete 2 notes: "Groceries", "Ideas" (com.omg.notes)']
    assert _notes(vphone) == ["Groceries", "Ideas", "Trip"]  # the human said no


# -- a secret named for a field --------------------------------------------------------------
SIGN_IN = "Sign in to Login as demo with password {{secret:pw}}"


class SignIn(_Planner):
    task = SIGN_IN

    def reply(self, request: dict[str, Any]) -> str:
        if (planned := self.planned(request)) is not None:
            return planned
        look = seen(request)
        if look.package != LOGIN:
            return bundle([launch(LOGIN)], "open Login")
        if look.screen.find(res="sign_in") is None:
            return claim_done("signed in", thought="signed in")
        at = {key: anchor(res=f"{LOGIN}:id/{key}") for key in ("username", "password")}
        return bundle([type_at(at["username"], "demo"),
                       type_at(at["password"], "{{secret:pw}}"),
                       tap_at(anchor(res=f"{LOGIN}:id/sign_in"))], "sign in")


def test_signing_in_with_the_secret_the_task_names_asks_nothing(vphone, tmp_path) -> None:
    password = vphone.phone.apps[LOGIN].valid_password
    result, human, trace = _run(vphone, SignIn(), SIGN_IN, tmp_path,
                                env={"OMG_SECRET_PW": password})
    assert vphone.phone.state()["apps"][LOGIN]["logged_in"]
    assert human.requests == [], [r.describe for r in human.requests]
    assert result.status == "done", (result.status, result.summary)
    assert password not in trace
