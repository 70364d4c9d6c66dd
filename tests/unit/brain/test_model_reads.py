"""What the model reads (issue 40): every field it must write is named in the prompt and
the schema, a refused reply costs no step and its feedback names the right field.

FakeDriver screens, the real openai client on httpx.MockTransport."""

from __future__ import annotations

import json
import re
import typing
from typing import Any

import pytest
from pydantic import BaseModel

from omg_agent.brain import prompts
from omg_agent.brain.structured import InvalidReply, parse_reply
from omg_agent.core.actions import (
    Action,
    AnchorTarget,
    ElementTarget,
    FromScreen,
    PointTarget,
    Region,
)
from omg_agent.core.contracts import DecisionBundle

from .fakes import FakeWorld, ScriptedModel, bundle, el, orchestrator, plan, tap, user_text

UNION = typing.get_args(typing.get_args(Action)[0])


def _fields(model: type[BaseModel], skip: tuple[str, ...] = ("type", "kind")) -> list[str]:
    """The fields the model can write: its schema's (a hidden one — a flow's ``restart`` —
    is never shown to it)."""
    shown = model.model_json_schema(by_alias=True).get("properties", {})
    return [f.alias or n for n, f in model.model_fields.items()
            if n not in skip and (f.alias or n) in shown]


def _named_with(text: str, name: str) -> str:
    """What the prompt writes in parentheses right after `name`: its fields."""
    found = re.search(rf"`{name}` \(([^)]*)\)", text)
    return found.group(1) if found else ""


@pytest.mark.parametrize("mode", ["unified", "flat"])
def test_the_operator_prompt_names_every_field_of_every_action_type(mode: str) -> None:
    text = prompts.operator_system(mode)
    missing = []
    for member in UNION:
        name = typing.get_args(member.model_fields["type"].annotation)[0]
        fields = _fields(member)
        said = _named_with(text, name)
        missing += [f"{name}.{f}" for f in fields if f"`{f}`" not in said]
        if not fields:
            assert f"`{name}`" in text, name
    for nested in (PointTarget, ElementTarget, AnchorTarget, FromScreen, Region):
        missing += [f"{nested.__name__}.{f}" for f in _fields(nested)
                    if f"`{f}`" not in text and f'"{f}"' not in text]
    assert missing == []


@pytest.mark.parametrize("mode", ["unified", "flat"])
def test_the_operator_prompt_names_every_field_of_the_reply(mode: str) -> None:
    text = prompts.operator_system(mode)
    expected = _fields(DecisionBundle) + ["intent", "actions"]
    if mode == "flat":  # no checklist there, but it is told to leave them unset
        assert "Leave `todo`, `end_checks`" in text
    assert [f for f in expected if f"`{f}`" not in text] == []


@pytest.mark.parametrize(("action", "says"), [
    ({"type": "mem_save", "name": "price", "value": "9"},
     "execute_now.actions.0: mem_save needs `key` (not `name`)"),
    ({"type": "scan", "target": {"kind": "element", "id": 3}},
     "scan has no `target` (its fields: `count`, `until_text`)"),
    ({"type": "tap", "element": 3}, "execute_now.actions.0: tap needs `target` (not `element`)"),
    ({"type": "back", "x": 1}, "back has no `x` (it has no other field)"),
])
def test_a_refused_action_is_told_the_field_it_should_have_written(
        action: dict[str, Any], says: str) -> None:
    reply = bundle(action)
    with pytest.raises(InvalidReply) as info:
        parse_reply(json.dumps(reply), DecisionBundle)
    assert says in str(info.value)
    assert "Extra inputs are not permitted" not in str(info.value)


def _world() -> FakeWorld:
    def move(screen: str, action: Any, element: Any) -> str:
        return "saved" if element is not None and element.text == "Save" else screen

    return FakeWorld({"form": ("com.example.notes", [el(1, "Price 42"), el(2, "Save")]),
                      "saved": ("com.example.notes", [el(1, "Saved")])}, move, "form")


@pytest.mark.parametrize("mode", ["unified", "flat"])
def test_a_validation_retry_costs_no_step_and_names_the_right_field(mode: str) -> None:
    def run(first_wrong: bool) -> tuple[int, list[str]]:
        replies = iter(([bundle({"type": "mem_save", "name": "price", "value": "42"})]
                        if first_wrong else [])
                       + [bundle({"type": "mem_save", "key": "price", "value": "42"}),
                          bundle(tap("Save")), bundle(goal_complete=True, answer="saved")])
        feedback: list[str] = []

        def policy(contract: str, text: str, body: dict[str, Any]) -> Any:
            if contract != "DecisionBundle":
                return {"status": "done", "response": "saved"}
            if "could not be used" in text:
                feedback.append(text)
            return next(replies)

        model = ScriptedModel(policy)
        with orchestrator(_world(), model, planning=mode, confirm_done="never") as orch:
            result = orch.run("save the price")
        assert result.status == "done", result
        return result.steps_used, feedback

    clean, none = run(False)
    retried, feedback = run(True)
    assert none == [] and retried == clean
    assert len(feedback) == 1 and "mem_save needs `key` (not `name`)" in feedback[0]


# -- item 2: values and facts survive the history -----------------------------------------
def test_a_memory_value_is_shown_whole_and_a_very_long_one_says_how_much_more() -> None:
    from omg_agent.brain.memory import SHOWN_CHARS, MemoryBank

    posts = "Posts by Emma to like: 1, 4, 6, 13, 2, 17, 21, 25, 30, 33, 38, 40 (12 posts)"
    with MemoryBank(None, "unit") as bank:
        bank.save("emma_posts", posts, source="model")
        bank.save("long", "x" * (SHOWN_CHARS + 25), source="model")
        listing = bank.prompt_listing()
    assert f'"{posts}"' in listing  # the relay round's value was clipped at ~80 characters
    assert "… 25 more characters ($long inserts it whole)" in listing


def test_compaction_says_what_it_summarised_and_where_results_are_kept() -> None:
    from omg_agent.brain.kept import compacted

    history = [f"(step 1) like post {n} [tap] → ok" for n in range(1, 10)]
    shown = compacted(history, 6)
    assert shown[1:] == history[3:]
    assert shown[0] == ("(3 earlier turns summarised: like post 1; like post 2; like post 3; "
                        "their scan results are under Kept and saved values are under Memory)")
    assert compacted(history[:4], 6) == history[:4]


@pytest.mark.parametrize(("kept", "saved", "tail"), [
    (False, True, "; their saved values are under Memory)"),  # no Kept section shown
    (True, False, "; their scan results are under Kept)"),
    (False, False, ")"),
])
def test_compaction_names_only_the_sections_the_prompt_shows(
        kept: bool, saved: bool, tail: str) -> None:
    from omg_agent.brain.kept import compacted

    history = [f"like post {n} [tap] → ok" for n in range(1, 9)]
    assert compacted(history, 6, kept=kept, saved=saved)[0] == (
        "(2 earlier turns summarised: like post 1; like post 2" + tail)


def test_a_long_run_without_a_scan_never_points_to_a_kept_section() -> None:
    # the relay round's compaction line said "under Kept and Memory" with no Kept section
    taps = iter([bundle(tap(f"Page {n}")) for n in range(1, 9)]
                + [bundle(goal_complete=True, answer="ok")])
    model = ScriptedModel(lambda contract, text, body: next(taps))
    pages = {str(n): ("com.omg.feed", [el(1, f"Page {n}")]) for n in range(1, 10)}
    world = FakeWorld(pages, lambda screen, action, element: str(int(screen) + 1), "1")
    with orchestrator(world, model, planning="flat", confirm_done="never") as orch:
        orch.run("sign in")
    texts = [user_text(b) for b in model.requests]
    assert any("earlier turn" in t for t in texts)
    assert not any("Kept" in t for t in texts)


def test_a_scan_is_kept_by_name_and_its_history_line_points_to_it() -> None:
    from omg_agent.brain.kept import SCANS_KEPT, KeptResults, pointer

    kept = KeptResults()
    for turn in range(1, SCANS_KEPT + 2):
        results = [{"type": "scan", "ok": True, "detail": f"scan read {turn} items\n#1 a [x]"}]
        kept.keep(results, turn)
    assert pointer(results[0]) == (f"scan read {SCANS_KEPT + 1} items (whole under Kept as "
                                   f"scan{SCANS_KEPT + 1})")
    section = kept.section()
    assert "scan1 replaced by newer scans" in section
    assert f"[scan{SCANS_KEPT + 1}, turn {SCANS_KEPT + 1}] scan read" in section
    assert "#1 a [x]" in section


# -- item 4: confirm only what is unproven ------------------------------------------------
def _signed_in() -> FakeWorld:
    def move(screen: str, action: Any, element: Any) -> str:
        return "home" if element is not None and element.text == "Sign in" else screen

    return FakeWorld({"login": ("com.omg.login", [el(1, "Sign in")]),
                      "home": ("com.omg.login", [el(1, "You are signed in.", role="text",
                                                    clickable=False),
                                                 el(2, "hello", editable=True),
                                                 el(3, "Welcome, demo", role="text",
                                                    clickable=False)])},
                     move, "login")


def _claims(answer: str) -> ScriptedModel:
    replies = iter([bundle(tap("Sign in")), bundle(goal_complete=True, answer=answer)])

    def policy(contract: str, text: str, body: dict[str, Any]) -> Any:
        if contract == "TaskPlan":
            return {"goal": "sign in", "steps": [{"description": "sign in",
                                                  "success_criteria": "signed in"}]}
        if contract == "Replan":
            return {"status": "done", "response": answer,
                    "evidence": [{"kind": "element", "text": "You are signed in."}]}
        return next(replies)

    return ScriptedModel(policy)


@pytest.mark.parametrize(("mode", "answer", "confirms"), [
    ("unified", "You are signed in.", 0),  # the answer quotes the verified screen
    ("unified", 'The app says "you are signed in"', 0),
    ("adaptive", "You are signed in.", 0),
    # two texts the model quoted as one, joined by a dash (relay round 2): each is shown
    ("unified", "Signed in (the screen: 'Welcome, demo — You are signed in.')", 0),
    ("unified", "Signed in (the screen: 'Welcome, demo — your order is paid')", 1),
    ("unified", "hello", 1),  # only in an edit field: what the model typed is no evidence
    ("unified", "Signed in as Alice", 1),  # not on the screen: the planner looks
    ("flat", "Signed in as Alice", 0),  # the flat loop asks no planner unless told to
])
def test_a_planner_confirms_a_done_only_when_the_screen_does_not_prove_it(
        mode: str, answer: str, confirms: int) -> None:
    model = _claims(answer)
    with orchestrator(_signed_in(), model, planning=mode) as orch:
        result = orch.run("sign in")
    assert result.status == "done"
    assert result.confirm_calls == confirms == model.contracts().count("Replan")
    assert result.planner_calls == confirms + (mode == "adaptive")


def _product_page() -> FakeWorld:
    def move(screen: str, action: Any, element: Any) -> str:
        return "product" if element is not None and element.text == "AirPods Pro" else screen

    return FakeWorld({"list": ("com.omg.shop", [el(1, "AirPods Pro")]),
                      "product": ("com.omg.shop", [
                          el(1, "AirPods Pro", role="text", clickable=False),
                          el(2, "¥1,869.00", role="text", clickable=False),
                          el(3, "1", editable=True)])}, move, "list")


def _answers(answer: str) -> ScriptedModel:
    replies = iter([bundle(tap("AirPods Pro")), bundle(goal_complete=True, answer=answer)])

    def policy(contract: str, text: str, body: dict[str, Any]) -> Any:
        if contract == "Replan":
            return {"status": "done", "response": answer,
                    "evidence": [{"kind": "element", "text": "¥1,869.00"}]}
        return next(replies)

    return ScriptedModel(policy)


@pytest.mark.parametrize(("task", "answer", "confirms"), [
    # the relay round: each value of the answer is the product page's own text
    ("What is the price of AirPods Pro in Shop?", "AirPods Pro costs ¥1,869.00 in Shop.", 0),
    ("What is the price of AirPods Pro in Shop?", 'It costs 1869 ("AirPods Pro")', 0),
    ("What is the price of AirPods Pro in Shop?", "AirPods Pro costs ¥1,699.00.", 1),
    ("What is the price of AirPods Pro in Shop?", "AirPods Pro costs $1,869.00.", 1),
    ("What is the price of AirPods Pro in Shop?", "It is cheap.", 1),  # no value stated
    ("What is the price of AirPods Pro in Shop?", "You ordered 1 of them.", 1),  # a field's
    ("Buy AirPods Pro in Shop", "AirPods Pro costs ¥1,869.00 in Shop.", 1),  # not a question
])
def test_a_question_answered_with_values_the_screen_shows_needs_no_confirmation(
        task: str, answer: str, confirms: int) -> None:
    model = _answers(answer)
    with orchestrator(_product_page(), model, planning="unified") as orch:
        result = orch.run(task)
    assert result.confirm_calls == confirms == model.contracts().count("Replan")


def test_the_flat_loop_asks_the_planner_when_told_to_always_confirm() -> None:
    model = _claims("Signed in as Alice")
    with orchestrator(_signed_in(), model, planning="flat", confirm_done="always") as orch:
        result = orch.run("sign in")
    assert result.confirm_calls == 1 and model.contracts().count("Replan") == 1


# -- item 5: say true things ----------------------------------------------------------------
def test_a_held_secret_says_the_values_length_not_the_placeholders() -> None:
    from PIL import Image

    from omg_agent.brain.agent import gatekeeper
    from omg_agent.config import Settings
    from omg_agent.core.actions import TypeText
    from omg_agent.core.observation import Observation
    from omg_agent.core.secrets import SecretVault

    vault = SecretVault()
    vault.add_from_task("sign in with {{secret:PASS=hunter2}}")
    keeper = gatekeeper(Settings(base_url="http://m.test/v1", model="m"), "sign in", None,
                        secrets=vault)
    assert keeper is not None
    field = el(1, "", editable=True, password=True, package="com.omg.login")
    obs = Observation(Image.new("RGB", (1000, 2000)), (field,), package="com.omg.login")
    decision = keeper.gate.check(TypeText(text="{{secret:PASS}}"), field, obs)
    assert decision.sensitivity is not None
    assert "type a secret (7 characters, hidden)" in decision.sensitivity.describe


def test_a_placeholder_keeps_the_users_spelling() -> None:
    from omg_agent.core.secrets import SecretVault

    vault = SecretVault()
    vault.add_from_task("sign in as {{secret:USER=alice77}} with {{secret:Pass=hunter22}}")
    shown = vault.mask("field shows alice77, typed hunter22, task {{secret:USER=alice77}}")
    assert shown == "field shows {{secret:USER}}, typed {{secret:Pass}}, task {{secret:USER}}"
    assert vault.reveal("{{secret:user}} {{secret:USER}}") == "alice77 alice77"  # one secret


@pytest.mark.parametrize(("mode", "numbered"), [("flat", False), ("adaptive", True)])
def test_history_lines_name_a_plan_step_only_when_there_are_several(
        mode: str, numbered: bool) -> None:
    replies = iter([bundle(tap("Nothing")), bundle(tap("Nothing")),
                    bundle(goal_complete=True, answer="Saved")])
    texts: list[str] = []

    def policy(contract: str, text: str, body: dict[str, Any]) -> Any:
        if contract == "TaskPlan":
            return {"goal": "g", "steps": [{"description": "look", "success_criteria": "x"},
                                           {"description": "save", "success_criteria": "y"}]}
        if contract == "Replan":
            return {"status": "done", "response": "ok"}
        texts.append(text)
        return next(replies, bundle(goal_complete=True, answer="Saved"))

    with orchestrator(_world(), ScriptedModel(policy), planning=mode) as orch:
        orch.run("save the price")
    history = texts[-1].split("Previous turns (oldest first):", 1)[1]
    assert ("- (step 1) " in history) is numbered
    assert "(step" not in history or numbered


# -- item 3: a yes resumes the bundle -------------------------------------------------------
def test_the_rest_of_a_held_bundle_is_kept_by_anchors_and_ends_at_what_cannot_be_found() -> None:
    from PIL import Image

    from omg_agent.brain.held import anchored
    from omg_agent.brain.run_state import HeldAction
    from omg_agent.core.actions import parse_action
    from omg_agent.core.observation import Observation

    screen = Observation(Image.new("RGB", (1000, 2000)),
                         (el(3, "Sign in", res="app:id/sign_in"), el(4, "")),
                         package="app")
    rest = [parse_action(a) for a in (
        {"type": "tap", "target": {"kind": "element", "id": 3}},
        {"type": "wait", "seconds": 1},
        {"type": "tap", "target": {"kind": "element", "id": 4}},  # nothing to find it by
        {"type": "back"})]
    kept = anchored(rest, screen)
    sign_in = {"kind": "anchor", "resource_id": "app:id/sign_in", "text": "Sign in"}
    assert kept == ({"type": "tap", "target": sign_in}, {"type": "wait", "seconds": 1.0})
    held = HeldAction("type a secret", "secret_entry", {"type": "type"}, rest=kept)
    assert HeldAction.of(json.loads(json.dumps(held.as_dict()))) == held  # in state.json


def test_a_tap_on_an_element_the_turns_screen_lacked_reports_its_effect_the_same_way() -> None:
    # a tap anchored on an item a scan read scrolls to it first: the screen the turn decided
    # on never showed it, so its "now selected" used to be missing
    from PIL import Image

    from omg_agent.brain.effects import effect_note
    from omg_agent.core.observation import Observation

    def like(post: int, liked: bool) -> Any:
        import dataclasses

        return dataclasses.replace(el(post, "Liked" if liked else "Like", res="like",
                                      desc=f"Like post {post}"), selected=liked)

    def screen(name: str, *elements: Any) -> Observation:
        return Observation(Image.new("RGB", (1000, 2000)), elements, package="com.omg.feed",
                           screen_hash=name)

    before = screen("top", like(1, False), like(2, False))
    after = screen("down", like(8, True), like(9, False))
    assert effect_note(before, after) == ""
    assert effect_note(before, after, [like(8, False)]) == "'Like post 8' now selected"
    listed = screen("top2", like(1, True), like(2, False))  # the same tap on a listed element
    assert effect_note(before, listed) == "'Like post 1' now selected"


def test_the_done_list_names_the_conversation_not_the_message_it_was_tapped_by() -> None:
    import dataclasses

    from omg_agent.brain.budget import actions_done
    from omg_agent.brain.segment_review import said
    from omg_agent.core.actions import parse_action
    from omg_agent.drivers.base import ActionOutcome
    from omg_agent.trace.lines import turn_of

    row = dataclasses.replace(el(3, "张伟", role="item"), extra_texts=("到家了吗？",))
    by_message = parse_action({"type": "tap", "target": {"kind": "anchor",
                                                         "text": "到家了吗？"}})
    by_name = parse_action({"type": "tap", "target": {"kind": "anchor", "text": "张伟"}})
    first = said(ActionOutcome(0, by_message, True, element=row))
    assert first["landed"] == "张伟" and "landed" not in said(
        ActionOutcome(0, by_name, True, element=row))
    record = {"actions": [by_message.model_dump(mode="json", exclude_none=True)],
              "results": [first]}
    assert actions_done([turn_of(record)]) == ("tapped '张伟'",)


def test_a_long_runs_compaction_line_names_the_latest_intents_and_counts_the_rest() -> None:
    from omg_agent.brain.kept import INTENTS_NAMED, compacted

    history = [f"like post {n} [tap] → ok" for n in range(1, 101)]
    line = compacted(history, 6)[0]
    assert line.startswith(f"(94 earlier turns summarised: {94 - INTENTS_NAMED} more, then ")
    assert "like post 94;" in line and "like post 86;" not in line


def _refused_beside_absence() -> list[str]:
    """The fields the end-check validator refuses on an absent element, found by trying each."""
    from pydantic import ValidationError

    from omg_agent.core.checks import ElementCheck
    tries = {"shows": "x", "checked": True, "selected": True, "in_field": True}
    refused = []
    for field, value in tries.items():
        try:
            ElementCheck.model_validate({"text": "A", "present": False, field: value})
        except ValidationError:
            refused.append(field)
    return refused


@pytest.mark.parametrize("text", [prompts.operator_system("unified"),
                                  prompts.render("planner")], ids=["operator", "planner"])
def test_the_prompt_states_what_an_absent_element_check_may_not_carry(text: str) -> None:
    # a relay-model round sent {"present": false, "shows": ...} and was refused by a rule the
    # prompt never stated: the sentence about absence names every field it refuses
    refused = _refused_beside_absence()
    assert refused == ["shows", "checked", "selected"]
    said = re.search(r'`"?present"?: false`[^.;]*[;(][^.]*', text)
    assert said is not None
    assert [f for f in refused if f"`{f}`" not in said.group(0)] == []
    from omg_agent.core.checks import ElementCheck
    described = ElementCheck.model_fields["present"].description or ""
    assert [f for f in refused if f not in described] == []


# -- relay round: say true things (issue 40 item 5) -------------------------------------------
def _saves_on_turn_three(planning: str) -> ScriptedModel:
    replies = iter([bundle(tap("Sign in")), bundle(tap("Sign in")),
                    bundle({"type": "mem_save", "key": "greeting", "value": "hi"}),
                    bundle(goal_complete=True, answer="hi")])

    def policy(contract: str, text: str, body: dict[str, Any]) -> Any:
        if contract == "TaskPlan":
            return plan({"description": "sign in"}, {"description": "read the greeting"})
        if contract == "Replan":
            return {"status": "done", "response": "hi"}
        return next(replies)

    return ScriptedModel(policy)


@pytest.mark.parametrize(("planning", "named"), [("flat", False), ("unified", False),
                                                 ("adaptive", True)])
def test_the_memory_section_names_a_plan_step_only_when_there_are_several(
        planning: str, named: bool) -> None:
    # flat mode said a value was "saved at step 1" though it was saved on turn 3
    model = _saves_on_turn_three(planning)
    with orchestrator(_signed_in(), model, planning=planning, confirm_done="never") as orch:
        orch.run("sign in")
    listing = [t.split("Memory:\n", 1)[1].split("\n\n", 1)[0] for t in map(user_text,
               model.requests) if "$greeting" in t]
    assert listing, model.texts()
    assert all(("step " in line) == named for line in listing), listing
