"""The mirror's agent channel: questions and approvals answered on the page or the
terminal, whichever comes first (issue 16)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from omg_agent.guards.confirmation import ConfirmationRequest, ScriptedChannel
from omg_agent.hitl.channel import PageChannel

PAY = ConfirmationRequest("payment", "tap 'Pay now' (¥4,999)", "it pays", "com.omg.shop")


def in_thread(fn: Callable[[], Any]) -> tuple[threading.Thread, list[Any]]:
    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(fn()), daemon=True)
    thread.start()
    return thread, out


def wait_pending(channel: PageChannel, count: int = 1) -> list[dict[str, Any]]:
    version = channel.changes.version
    while len(channel.pending()) < count:
        version = channel.changes.wait(version, 10)
    return channel.pending()


def test_a_question_waits_for_the_page_and_returns_its_answer():
    channel = PageChannel()
    thread, out = in_thread(lambda: channel.ask("Which size?"))
    [request] = wait_pending(channel)
    assert request["kind"] == "ask" and request["text"] == "Which size?"
    assert channel.answer(request["id"], " 42 ")
    thread.join(10)
    assert out == ["42"] and channel.pending() == []
    assert not channel.answer(request["id"], "again")  # settled once
    assert channel.audit.entries[0]["answer"] == "(answered)"  # answers may be secrets


def test_an_approval_shows_what_will_be_done_and_a_reject_is_false():
    channel = PageChannel()
    thread, out = in_thread(lambda: channel.confirm(PAY))
    [request] = wait_pending(channel)
    assert request["kind"] == "confirm" and request["describe"] == PAY.describe
    assert "Pay now" in request["text"]
    channel.answer(request["id"], False)
    thread.join(10)
    assert out == [False]
    assert channel.audit.entries[-1]["answer"] is False


def test_closing_the_mirror_releases_a_waiting_run_with_no_answer():
    channel = PageChannel()
    thread, out = in_thread(lambda: channel.confirm(PAY))
    wait_pending(channel)
    channel.close()
    thread.join(10)
    assert out == [None]


def test_the_terminal_answering_first_wins_and_the_page_is_then_refused():
    channel = PageChannel()
    terminal = ScriptedChannel([True])
    _, confirm = channel.with_terminal(None, terminal)
    assert confirm.confirm(PAY) is True  # the scripted terminal answers at once
    assert terminal.requests == [PAY]
    assert channel.pending() == []
    assert channel.audit.entries[-1]["by"] == "terminal"


def test_the_page_answering_first_wins_over_a_silent_terminal():
    channel = PageChannel()
    release = threading.Event()

    def slow_terminal(question: str) -> str | None:
        release.wait(10)
        return "from the terminal"

    ask, _ = channel.with_terminal(slow_terminal, None)
    thread, out = in_thread(lambda: ask("Your name?"))
    [request] = wait_pending(channel)
    channel.answer(request["id"], "from the page")
    thread.join(10)
    release.set()
    assert out == ["from the page"]


def test_a_terminal_with_nobody_leaves_the_question_to_the_page():
    channel = PageChannel()
    ask, _ = channel.with_terminal(lambda q: None, None)  # end of input on the terminal
    thread, out = in_thread(lambda: ask("Code?"))
    [request] = wait_pending(channel)
    channel.answer(request["id"], "1234")
    thread.join(10)
    assert out == ["1234"]


def test_the_runs_progress_is_kept_for_the_page_with_its_recent_actions():
    from omg_agent.brain.run_state import Progress
    from omg_agent.core.todo import TodoItem

    plan = (TodoItem(1, "open Shop", True), TodoItem(2, "search", False))
    channel = PageChannel()
    before = channel.changes.version
    for n, last in enumerate(["tap 'Shop'", "tap 'Shop'", "type 'MacBook'", ""]):
        channel.show_progress(Progress("act", plan, "search", last, n + 1, 30, 100, 10))
    assert channel.changes.version == before + 4  # each update wakes the viewers
    assert channel.run is not None and channel.run["steps"] == "4/30"
    assert channel.run["recent"] == ["tap 'Shop'", "type 'MacBook'"]
    assert channel.run["todo"] == "✔ 1. open Shop\n○ 2. search"  # rendered once, here


def test_the_page_shows_the_runs_task_with_its_secrets_masked():
    from types import SimpleNamespace

    from omg_agent.brain.run_state import Progress
    from omg_agent.core.secrets import SecretVault
    from omg_agent.hitl.attach import progress_hook

    task = "Log in to Bank with password {{secret:bank=hunter2}} and read the balance"
    vault = SecretVault()
    vault.add_from_task(task)
    channel = PageChannel()
    hook = progress_hook(SimpleNamespace(channel=channel), None, vault.scrub, task)
    hook(Progress("act", (), "log in", "", 1, 30, 0, 0))
    assert channel.run is not None and "Log in to Bank" in channel.run["task"]
    assert "hunter2" not in channel.run["task"]
