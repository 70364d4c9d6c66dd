"""Issue 36 item 3, the end checks a ``unified`` operator writes: the prompt says how to
check a value in an edit field, and a refused end check can be corrected in the next reply —
only a refused one, only then, and honest done still judges the corrected checks (the relay
round's example.com run: an address-bar check refused for lack of ``in_field``, the
corrected checks ignored, out only through ``plan_outdated`` after four calls)."""

from __future__ import annotations

from typing import Any

from omg_agent.brain import prompts

from .fakes import FakeWorld, Recorder, ScriptedModel, bundle, el, orchestrator, tap, user_text
from .test_orchestrator_transitions import replies

CHROME = "com.android.chrome"
TASK = "Open example.com in Chrome"
URL_CHECK = {"kind": "element", "text": "example.com"}  # only in the address bar: refused
PAGE_CHECK = {"kind": "element", "text": "Example Domain"}  # what the page shows
APP_CHECK = {"kind": "app", "app": CHROME}
MENU_CHECK = {"kind": "element", "desc": "Menu"}  # on every screen: held before the run


def browser() -> FakeWorld:
    blank = [el(1, "", editable=True), el(2, "Go"), el(3, desc="Menu")]
    page = [el(1, "example.com", editable=True), el(2, "Go"), el(3, desc="Menu"),
            el(4, "Example Domain", role="text", clickable=False)]

    def move(screen: str, action: Any, element: Any) -> str:
        return "page" if element is not None and element.text == "Go" else screen

    return FakeWorld({"blank": (CHROME, blank), "page": (CHROME, page)}, move, "blank")


def run(*turns: dict[str, Any]) -> tuple[Any, ScriptedModel, Recorder]:
    script = iter(turns)
    model = ScriptedModel(replies(("DecisionBundle", lambda text: next(script)),
                                  ("Replan", {"status": "give_up", "response": "stuck"})))
    recorder = Recorder()
    with orchestrator(browser(), model, planning="unified", recorder=recorder, task=TASK,
                      max_steps=8, auto_verify=False) as orch:
        return orch.run(TASK), model, recorder


OPEN = bundle({"type": "type", "text": "example.com", "target": {"kind": "element", "id": 1}},
              tap("Go"))
CLAIM = {"goal_complete": True, "answer": "example.com is open"}


def adopted(recorder: Recorder) -> list[list[str]]:
    return [d["checks"] for e, d in recorder.events if e == "end_checks"]


def test_the_end_check_rules_say_how_to_check_a_value_in_an_edit_field_once() -> None:
    text = prompts.operator_system("unified")
    assert text.count('"in_field": true') == 1
    assert "next reply may send `end_checks` again" in text
    assert "cannot be changed later" not in text


def test_a_refused_end_check_is_corrected_in_the_next_reply_and_the_task_ends_done() -> None:
    result, model, recorder = run(
        {**OPEN, "end_checks": [APP_CHECK, URL_CHECK]},
        bundle(**CLAIM),  # refused: example.com shows only in the address bar
        bundle(**CLAIM, end_checks=[PAGE_CHECK]))
    assert result.status == "done", result.stopped_because
    assert model.contracts() == ["DecisionBundle"] * 3 and result.planner_calls == 0
    # the check that passed stays; the refused one is replaced
    first, corrected = adopted(recorder)
    assert len(first) == 2 and len(corrected) == 2
    assert corrected[0] == first[0] and "Example Domain" in corrected[1]
    assert "example.com" not in corrected[1]
    text = user_text(model.requests[2])
    assert "did not pass" in text and "in_field" in text  # the operator is told which, why


def test_end_checks_sent_later_than_the_next_reply_change_nothing() -> None:
    result, model, recorder = run(
        {**OPEN, "end_checks": [URL_CHECK]},
        bundle(**CLAIM),  # refused
        bundle({"type": "wait", "seconds": 0.1}),  # the next reply corrects nothing
        bundle(**CLAIM, end_checks=[PAGE_CHECK]),  # too late: ignored, refused again
        bundle(**CLAIM), bundle(**CLAIM), bundle(**CLAIM), bundle(**CLAIM))
    assert result.status != "done"
    assert len(adopted(recorder)) == 1
    # the note offering the correction is said for the reply right after only
    assert "did not pass" in user_text(model.requests[2])
    assert "did not pass" not in user_text(model.requests[3])


def test_checks_that_were_never_refused_cannot_be_swapped() -> None:
    result, _, recorder = run(
        {**OPEN, "end_checks": [PAGE_CHECK, APP_CHECK]},
        bundle({"type": "wait", "seconds": 0.1}, end_checks=[MENU_CHECK]),  # nothing refused
        bundle(**CLAIM))
    assert result.status == "done"
    assert len(adopted(recorder)) == 1


def test_a_correction_that_held_before_the_run_acted_proves_nothing() -> None:
    # honest done judges a corrected check like any other: "Menu" was on the first screen
    result, model, _ = run(
        {**OPEN, "end_checks": [URL_CHECK]},
        bundle(**CLAIM),
        bundle(**CLAIM, end_checks=[MENU_CHECK]))
    assert result.status == "unverified"
    assert "already held before the run acted" in result.stopped_because


def test_a_correction_naming_the_address_bar_in_field_proves_nothing_the_task_did_not_write(
        ) -> None:
    # text in an edit field is the model's own typing: evidence only for a task that writes
    result, _, _ = run(
        {**OPEN, "end_checks": [URL_CHECK]},
        bundle(**CLAIM),
        bundle(**CLAIM, end_checks=[{**URL_CHECK, "in_field": True}]))
    assert result.status == "unverified"
