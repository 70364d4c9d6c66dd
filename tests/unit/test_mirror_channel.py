"""The mirror's agent channel: questions and approvals answered on the page or the
terminal, whichever comes first (issue 16)."""

from __future__ import annotations

import base64
import io
import json
import os
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


def test_no_clear_answer_on_the_terminal_is_recorded_as_such_through_the_mirror():
    """Was: three unclear terminal answers were recorded as the quote "no"."""
    import io

    from omg_agent.guards.confirmation import NO_CLEAR_ANSWER, TerminalChannel, words_of

    channel = PageChannel()
    terminal = TerminalChannel.from_streams(io.StringIO("maybe\nhmm\nwell\n"), io.StringIO())
    _, confirm = channel.with_terminal(None, terminal)
    assert confirm.confirm(PAY) is False  # not done, as before
    assert words_of(confirm) == NO_CLEAR_ANSWER


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
    assert [a["text"] for a in channel.run["recent"]] == ["tap 'Shop'", "type 'MacBook'"]
    assert all(a["thumb"] == "" for a in channel.run["recent"])  # no screen given: no picture
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


# -- a thumbnail of the screen each recent action acted on (issue 30) ---------------------------

def _screen(color: tuple[int, int, int], *elements: Any, noisy: bool = False) -> Any:
    from PIL import Image

    from omg_agent.core.observation import Observation

    image = Image.new("RGB", (1080, 2400), color)
    if noisy:  # a screen that no small JPEG holds: random pixels, too few to be averaged
        image = Image.frombytes("RGB", (160, 356), os.urandom(160 * 356 * 3))
    return Observation(image, tuple(elements), screen_hash=f"{color}")


def _field(text: str, *, password: bool = False) -> Any:
    from omg_agent.core.geometry import Bounds
    from omg_agent.core.observation import UIElement

    return UIElement(id=1, cls="android.widget.EditText", role="input",
                     bounds=Bounds(0, 0, 500, 100), text=text, editable=True,
                     password=password)


def _hook(task: str = "Buy a charger") -> tuple[PageChannel, Callable[..., None]]:
    from types import SimpleNamespace

    from omg_agent.brain.run_state import Progress
    from omg_agent.core.secrets import SecretVault
    from omg_agent.hitl.attach import progress_hook

    vault = SecretVault()
    vault.add_from_task(task)
    channel = PageChannel()
    hook = progress_hook(SimpleNamespace(channel=channel), None, vault.scrub, task)

    def show(last: str, screen: Any) -> None:
        hook(Progress("act", (), "buy", last, 1, 30, 0, 0, acted_on=screen))

    return channel, show


def _thumbs(channel: PageChannel) -> list[bytes]:
    assert channel.run is not None
    return [base64.b64decode(a["thumb"]) for a in channel.run["recent"]]


def test_each_recent_action_shows_a_small_jpeg_of_the_screen_it_acted_on_the_last_few_kept():
    from PIL import Image

    from omg_agent.hitl.channel import RECENT
    from omg_agent.hitl.frames import THUMB_MAX_BYTES, THUMB_WIDTH

    channel, show = _hook()
    colors = [(20 * n, 200, 255 - 20 * n) for n in range(RECENT + 4)]
    for n, color in enumerate(colors):
        show(f"tap 'item {n}'", _screen(color))
    assert channel.run is not None and len(channel.run["recent"]) == RECENT
    assert channel.run["recent"][-1]["text"] == f"tap 'item {len(colors) - 1}'"
    for jpeg, color in zip(_thumbs(channel), colors[-RECENT:], strict=True):
        assert jpeg[:3] == b"\xff\xd8\xff" and len(jpeg) <= THUMB_MAX_BYTES
        image = Image.open(io.BytesIO(jpeg))
        assert image.width <= THUMB_WIDTH and image.height == round(2400 * image.width / 1080)
        got = image.convert("RGB").getpixel((image.width // 2, image.height // 2))
        assert all(abs(a - b) <= 12 for a, b in zip(got, color, strict=True)), (got, color)


def test_a_screen_no_small_jpeg_holds_gets_no_thumbnail_but_its_action_is_listed():
    channel, show = _hook()
    show("swipe up", _screen((0, 0, 0), noisy=True))
    assert channel.run is not None and channel.run["recent"] == [{"text": "swipe up",
                                                                  "thumb": ""}]


def test_no_thumbnail_where_the_screen_could_show_a_secret():
    channel, show = _hook("Log in to Bank with password {{secret:bank=hunter2}}")
    show("type 'hunter2'", _screen((10, 10, 10)))  # typed a secret: its words are masked
    show("tap 'Show password'", _screen((20, 20, 20), _field("hunter2")))  # shown in clear
    show("tap 'Log in'", _screen((30, 30, 30), _field("•••••••", password=True)))
    show("tap 'Balance'", _screen((40, 40, 40), _field("Balance")))  # nothing secret: shown
    assert channel.run is not None
    recent = channel.run["recent"]
    assert "hunter2" not in json.dumps(channel.run) and "secret" in recent[0]["text"]
    assert [bool(a["thumb"]) for a in recent] == [False, False, False, True]


def test_the_run_hands_the_screen_of_its_last_turn_record_and_no_other():
    from omg_agent.brain.budget import StepBudget
    from omg_agent.brain.run_state import RunState, TurnRecord

    state = RunState("task", StepBudget(30))
    acted, later = _screen((1, 2, 3)), _screen((4, 5, 6))
    state.records.append(TurnRecord(1, "tap 'Shop'", acted.screen_hash))
    assert state.progress((0, 0)).acted_on is None  # no observation yet
    state.last_obs = acted
    assert state.progress((0, 0)).acted_on is acted
    state.last_obs = later  # a newer look than the record's screen: no picture at all
    assert state.progress((0, 0)).acted_on is None
