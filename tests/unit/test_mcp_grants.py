"""What the MCP server keeps of the human's answers (issue 35 item 2): single-use tickets, a
no written into the run before anything else, run folders by name, and results without
self-approval recipes."""

from __future__ import annotations

from pathlib import Path

import pytest

from omg_agent.brain.budget import StepBudget
from omg_agent.brain.dialogue import declined_hint
from omg_agent.brain.held import record_no, said_no_to
from omg_agent.brain.memory import MemoryBank
from omg_agent.brain.resume import save_state
from omg_agent.brain.run_state import HeldAction, Refusal, RunState
from omg_agent.config import Settings
from omg_agent.errors import ConfigError
from omg_agent.guards.confirmation import ConfirmationRequest, ScriptedChannel
from omg_agent.mcp import consent
from omg_agent.mcp.grants import Grants, SessionAsks
from omg_agent.mcp.server import Hub
from omg_agent.taskrun import saved_run

PAY = HeldAction('tap "Pay ¥1,179.00" (button, com.omg.shop)', "payment",
                 {"type": "tap", "target": {"kind": "element", "id": 3}}, "Pay ¥1,179.00",
                 {"resource_id": "com.omg.shop:id/pay"}, "¥1,179.00", "com.omg.shop", 1,
                 "f" * 32)


def held_run(tmp_path: Path) -> Path:
    run = tmp_path / "runs" / "20261129-0700-buy"
    run.mkdir(parents=True)
    state = RunState("Buy what is in my cart", StepBudget(10), phase="NEEDS_CONFIRMATION")
    state.held = PAY
    with MemoryBank(None, "unit") as memory:
        save_state(run, state, memory, device="emulator-5554")
    return run


def test_a_ticket_is_used_once_and_only_for_its_action() -> None:
    grants = Grants()
    ticket = grants.issue("fp-1")
    assert grants.redeem(ticket, "fp-2") is None  # bound to the action it was issued for
    ticket = grants.issue("fp-1")
    assert grants.redeem(ticket, "fp-1") == "fp-1"
    assert grants.redeem(ticket, "fp-1") is None  # a replayed answer gets nothing
    assert grants.redeem("made-up") is None and grants.redeem(None) is None


def test_a_no_on_the_page_is_not_asked_again_in_the_session() -> None:
    page = ScriptedChannel([False, True])
    asks = SessionAsks(page, Grants(), "emulator-5554")
    request = ConfirmationRequest("payment", PAY.describe, "it pays")
    assert asks.confirm(request) is False
    assert asks.confirm(request) is False  # the retry: declined without a question
    assert len(page.requests) == 1 and "emulator-5554" in page.requests[0].text()


def test_a_no_written_into_the_run_refuses_a_later_yes_to_the_same_action(
        tmp_path: Path) -> None:
    run = held_run(tmp_path)
    assert saved_run(run, "yes").state.held == PAY  # before the no: a yes resumes
    assert record_no(run) == PAY
    assert said_no_to(run, PAY)
    with pytest.raises(ConfigError, match="already said no"):
        saved_run(run, "yes")
    assert saved_run(run, "no").state.held == PAY  # the no itself still goes on


def test_a_no_given_on_the_command_line_stands_even_if_its_resume_fails_later(
        tmp_path: Path) -> None:
    run = held_run(tmp_path)
    saved_run(run, "no")  # what `run --resume DIR --answer no` reads first, before the device
    with pytest.raises(ConfigError, match="already said no"):
        saved_run(run, "yes")


def test_a_relative_runs_dir_accepts_the_name_and_the_relative_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    run = held_run(tmp_path)
    hub = Hub(Settings(runs_dir=Path("runs")), device="emulator-5554")
    assert hub.run_dir(run.name) == run.resolve()
    assert hub.run_dir(f"runs/{run.name}") == run.resolve()  # what run_task returned
    with pytest.raises(ConfigError, match="not a run of"):
        hub.run_dir("..")


@pytest.mark.parametrize("text", [
    "answer with: omg-agent run --resume runs/20261129-0700-buy --answer yes (or no)",
    declined_hint("Buy it in Shop", Refusal("no", PAY.describe, "payment")),
    "step 3: needs your yes first — tap Pay (it pays); run again with --allow",
    consent.how_to_approve("20261129-0700-buy"),
    consent.how_to_approve(None),
    consent.how_to_approve("x", "mirror"),
])
def test_no_text_the_model_reads_holds_a_self_approval_recipe(text: str) -> None:
    shown = consent.for_model(text)
    assert "--answer" not in shown and "--allow" not in shown and "--resume" not in shown


def test_the_question_is_yes_or_no_and_names_the_phone() -> None:
    text = consent.question(PAY.describe, "it pays", "emulator-5554")
    assert "emulator-5554" in text and PAY.describe in text
    pending = consent.pending(text, {"ticket": "t"})
    schema = pending.input_requests[consent.KEY].params.requested_schema  # type: ignore[union-attr]
    assert schema["properties"]["answer"]["enum"] == ["yes", "no"]


def test_a_held_action_with_no_fingerprint_is_not_put_to_the_human(tmp_path: Path) -> None:
    # the choke point held an input it had no screen for: a ticket for the empty fingerprint
    # would let a yes approve whatever the retry's input hit
    import anyio

    from omg_agent.mcp import gated

    hub = Hub(Settings(runs_dir=tmp_path / "runs"), device="emulator-5554")
    held = ConfirmationRequest("unclassified", "send an input it cannot classify (a key)",
                               "the choke point cannot tell what it does")
    out = anyio.run(gated._put, hub, None, None, {"type": "key", "key": "enter"}, held)
    assert out.status == "needs_confirmation" and "no screen" in out.detail
    assert hub.grants.tickets == {}  # no ticket: nothing a yes could redeem


def test_a_reports_html_loses_its_recipe_keeps_its_tags_and_is_read_in_linear_time() -> None:
    picture = "data:image/png;base64," + "iVBORw0KGgo" * 200_000  # no full stop in 2 MB
    html = (f'<img src="{picture}"><div class="next">answer with: omg-agent run --resume '
            'RUN_DIR --answer yes (or no)</div><p>Plan</p>')
    shown = consent.for_model(html)  # a clause regex scanning from every position: minutes
    assert "--answer" not in shown and "--resume" not in shown
    assert shown.endswith('<div class="next">answer with: only the user can approve it'
                          "</div><p>Plan</p>") and shown.startswith(f'<img src="{picture}">')
