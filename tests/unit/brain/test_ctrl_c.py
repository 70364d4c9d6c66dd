"""Ctrl-C during ``omg-agent run`` ends the run ``interrupted`` at once, resumable — even when
the KeyboardInterrupt it raised is lost on the way up (swallowed by a library's catch-all or
raised inside a finaliser, where Python only prints it) — and never rewrites the outcome of
a run that had already ended.

The Ctrl-C is a real SIGINT to this process (``signal.raise_signal``), delivered at a chosen
point: inside the model's HTTP call, or after the run ended. The run path is the CLI's
(:meth:`omg_agent.cli.ctrlc.CtrlC.run`) over the loop doubles of :mod:`.fakes`."""

from __future__ import annotations

import contextlib
import json
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from omg_agent.brain.orchestrator import Orchestrator
from omg_agent.brain.resume import STATE_FILE, load_state
from omg_agent.brain.run_state import RunResult
from omg_agent.cli.ctrlc import CtrlC
from omg_agent.core.actions import Action
from omg_agent.core.observation import UIElement
from omg_agent.trace.recorder import RESULT_FILE, TraceRecorder

from .fakes import FakeWorld, Recorder, ScriptedModel, httpx, orchestrator
from .test_resume_interrupted import POSTS, Feed, naive

TASK = "Like posts 1 to 3"


@pytest.fixture(autouse=True)
def _python_s_own_handler() -> Iterator[None]:
    """Each test starts (and leaves the process) with the handler Python installs itself."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@contextmanager
def watched(world: FakeWorld, model: ScriptedModel, run_dir: Path,
            **parts: Any) -> Iterator[tuple[CtrlC, Orchestrator]]:
    """The run as ``omg-agent run`` builds it: Ctrl-C's check as its safe point (entered
    first, left last), its state saved in ``run_dir`` at every turn boundary."""
    with CtrlC() as ctrl_c, orchestrator(world, model, checkpoint=run_dir, gate=False,
                                         safe_point=ctrl_c.check, **parts) as orch:
        yield ctrl_c, orch


@dataclass
class LosingTransport(ScriptedModel):
    """The model's HTTP stack, where the user's Ctrl-C lands during request ``at`` and the
    KeyboardInterrupt is lost there (as in a library's ``except BaseException`` or a
    finaliser); the reply then comes back as if nothing happened."""

    at: int = 0
    status: int = 200  # 503: the request fails too, and would be retried

    def handler(self, request: httpx.Request) -> httpx.Response:
        if len(self.requests) + 1 == self.at:
            with contextlib.suppress(KeyboardInterrupt):
                signal.raise_signal(signal.SIGINT)
            if self.status != 200:
                self.requests.append(json.loads(request.content))
                return httpx.Response(self.status, json={"error": {"message": "stopped"}})
        return super().handler(request)


@pytest.mark.parametrize("status", [200, 503])
def test_a_lost_keyboard_interrupt_still_ends_the_run_before_the_reply_is_acted_on(
        tmp_path: Path, status: int) -> None:
    feed = Feed()
    model = LosingTransport(naive, at=3, status=status)  # plan, post 1, post 2: Ctrl-C
    recorder = Recorder()
    with watched(feed.world(), model, tmp_path, recorder=recorder) as (ctrl_c, orch):
        result = ctrl_c.run(orch, tmp_path, lambda: orch.run(TASK))
    assert result.status == "interrupted", result
    assert feed.taps == [1]  # the reply that came back with the Ctrl-C was not carried out
    assert len(model.requests) == 3  # and nothing was asked after it (no retry either)
    assert f"omg-agent run --resume {tmp_path}" in result.next_hint
    assert recorder.finished == ("interrupted", "")
    saved = load_state(tmp_path)  # the last turn boundary, resumable
    assert saved.interrupted and saved.state.todo.cursor == 1


@dataclass
class LosingFeed(Feed):
    """The phone, where the user's Ctrl-C lands while post ``lost_at``'s like is being
    tapped and the KeyboardInterrupt is lost there."""

    lost_at: int | None = None

    def move(self, screen: str, action: Action, element: UIElement | None) -> str:
        moved = super().move(screen, action, element)
        if element is not None and element.resource_id == f"like{self.lost_at}":
            self.lost_at = None
            with contextlib.suppress(KeyboardInterrupt):
                signal.raise_signal(signal.SIGINT)
        return moved


def test_a_keyboard_interrupt_lost_during_a_device_action_ends_the_run_at_the_next_turn(
        tmp_path: Path) -> None:
    feed = LosingFeed(lost_at=2)
    model = ScriptedModel(naive)
    with watched(feed.world(), model, tmp_path) as (ctrl_c, orch):
        result = ctrl_c.run(orch, tmp_path, lambda: orch.run(TASK))
    assert result.status == "interrupted" and feed.taps == [1, 2]
    assert len(model.requests) == 3  # the model is not asked about post 3
    saved = load_state(tmp_path)
    assert saved.interrupted and saved.state.todo.cursor == 1  # resync ticks post 2


def test_a_ctrl_c_after_the_run_ended_leaves_its_outcome(tmp_path: Path) -> None:
    feed = Feed()
    with watched(feed.world(), ScriptedModel(naive), tmp_path,
                 recorder=TraceRecorder(tmp_path, task=TASK)) as (ctrl_c, orch):

        def run_then_file_the_flow() -> RunResult:  # as the replay cache does after a run
            ended = orch.run(TASK)
            signal.raise_signal(signal.SIGINT)
            return ended

        result = ctrl_c.run(orch, tmp_path, run_then_file_the_flow)
    assert result.status == "done" and feed.liked == set(POSTS)
    assert "--resume" not in result.next_hint  # nothing to resume: the task is done
    assert json.loads((tmp_path / RESULT_FILE).read_text())["status"] == "done"
    assert json.loads((tmp_path / STATE_FILE).read_text())["phase"] == "DONE"


def test_a_ctrl_c_during_the_model_call_ends_the_run_at_once(tmp_path: Path) -> None:
    @dataclass
    class Pressed(ScriptedModel):
        def handler(self, request: httpx.Request) -> httpx.Response:
            if len(self.requests) == 1:
                signal.raise_signal(signal.SIGINT)
            return super().handler(request)

    feed = Feed()
    model = Pressed(naive)
    with watched(feed.world(), model, tmp_path) as (ctrl_c, orch):
        result = ctrl_c.run(orch, tmp_path, lambda: orch.run(TASK))
    assert result.status == "interrupted" and feed.taps == [] and len(model.requests) == 1
    assert load_state(tmp_path).interrupted


def test_a_run_started_with_ctrl_c_ignored_keeps_it_ignored() -> None:
    """A job a script starts in the background inherits SIGINT ignored, so that the
    script's Ctrl-C does not reach it: the run keeps that choice (and restores handlers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with CtrlC():
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    signal.signal(signal.SIGINT, signal.default_int_handler)
    with CtrlC():
        assert signal.getsignal(signal.SIGINT) != signal.default_int_handler
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


class ImpatientRecorder(Recorder):
    """The trace, while the user presses Ctrl-C again as it is being finished."""

    def finish(self, status: str, answer: str, summary: object = None) -> None:
        signal.raise_signal(signal.SIGINT)
        super().finish(status, answer, summary)


def test_a_second_ctrl_c_while_the_run_is_ending_lets_the_ending_complete(
        tmp_path: Path) -> None:
    feed = Feed()
    recorder = ImpatientRecorder()
    model = LosingTransport(naive, at=3)
    with watched(feed.world(), model, tmp_path, recorder=recorder) as (ctrl_c, orch):
        result = ctrl_c.run(orch, tmp_path, lambda: orch.run(TASK))
    assert result.status == "interrupted" and recorder.finished == ("interrupted", "")
    assert load_state(tmp_path).interrupted
