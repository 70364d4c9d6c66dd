"""A run goes on from its state file alone: the turns, the model usage, the planning mode,
the dialogue and the plan's ticks all come back from ``state.json`` — nothing is handed
from the first orchestrator to the second but the folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from omg_agent.brain.budget import StepBudget
from omg_agent.brain.memory import MemoryBank
from omg_agent.brain.resume import continue_interrupted, load_state, save_state
from omg_agent.brain.run_state import Dialogue, RunState

from .fakes import Recorder, ScriptedModel, orchestrator
from .test_resume_interrupted import POSTS, Feed, naive

TASK = "Like posts 1 to 3"


class Steps(Recorder):
    """The trace's step numbers, as the recorder is given them."""

    def __init__(self) -> None:
        super().__init__()
        self.steps: list[int] = []

    def record_step(self, step: int, **data: Any) -> None:
        self.steps.append(step)


def test_an_interrupted_run_resumes_from_its_state_file_alone(tmp_path: Path) -> None:
    feed = Feed(interrupt_after=2)
    first = Steps()
    with orchestrator(feed.world(), ScriptedModel(naive), recorder=first, gate=False,
                      checkpoint=tmp_path) as orch, pytest.raises(KeyboardInterrupt):
        orch.run(TASK)
    saved = load_state(tmp_path)  # a new process: the folder is all there is
    assert saved.state.turns == first.steps[-1] == 1  # the last boundary's turn count
    calls_before = saved.state.usage[0]
    assert calls_before > 0
    second, model = Steps(), ScriptedModel(naive)
    with orchestrator(feed.world(), model, recorder=second, gate=False,
                      checkpoint=tmp_path) as orch:
        result = continue_interrupted(orch, saved)
    assert result.status == "done" and feed.liked == set(POSTS)
    assert second.steps[0] == 2  # the trace's step numbers go on after the saved turns
    assert result.model_calls == calls_before + len(model.requests)  # usage carried on


def test_the_planning_mode_dialogue_and_ticks_come_back_from_the_file(tmp_path: Path) -> None:
    state = RunState(TASK, StepBudget(20), phase="THINK", planned=True, turns=4,
                     usage=(5, 500, 50))
    state.dialogue = Dialogue(None, (("Which posts?", "the first three"),))
    with MemoryBank(None, "run") as memory:
        save_state(tmp_path, state, memory, device="fake")
    saved = load_state(tmp_path)
    assert saved.state.dialogue.answers == (("Which posts?", "the first three"),)
    assert (saved.state.turns, saved.state.usage) == (4, (5, 500, 50))
    with orchestrator(Feed().world(), ScriptedModel(naive), planning="unified",
                      gate=False) as orch:
        orch.begin(saved.state)
        # a unified run whose planner had taken over goes on adaptive, counting on from 4
        assert orch.operator.planning == "adaptive" and orch.operator.turns == 4
        assert orch.outcome().model_calls == 5
