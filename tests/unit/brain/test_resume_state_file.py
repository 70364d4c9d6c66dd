"""A ``state.json`` that parses but has the wrong shape is one line naming the field (a
:class:`ConfigError`), never a traceback; a file that is too large or too deep is refused
the same way; what ``save_state`` writes always loads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from omg_agent.brain.budget import StepBudget
from omg_agent.brain.memory import MemoryBank
from omg_agent.brain.resume import STATE_FILE, load_state, save_state
from omg_agent.brain.run_state import RunState
from omg_agent.brain.state_schema import MAX_STATE_BYTES
from omg_agent.errors import ConfigError


def _saved(tmp_path: Path) -> dict[str, Any]:
    with MemoryBank(None, "run1") as memory:
        memory.save("price", "¥1,079.00", source="model")
        save_state(tmp_path, RunState("Open Settings", StepBudget(12), phase="THINK", turns=2,
                                      usage=(3, 100, 20)), memory, device="emulator-5554")
    return json.loads((tmp_path / STATE_FILE).read_text(encoding="utf-8"))


def _write(tmp_path: Path, data: Any) -> None:
    (tmp_path / STATE_FILE).write_text(json.dumps(data), encoding="utf-8")


def _refused(tmp_path: Path) -> str:
    with pytest.raises(ConfigError) as err:
        load_state(tmp_path)
    message = str(err.value)
    assert "\n" not in message
    return message


def test_what_save_state_writes_loads_back(tmp_path: Path) -> None:
    _saved(tmp_path)
    saved = load_state(tmp_path)
    assert saved.state.task == "Open Settings" and saved.state.budget.limit == 12
    assert saved.memory == {"price": "¥1,079.00"} and saved.usage == (3, 100, 20)
    assert saved.state.turns == 2 and saved.state.usage == (3, 100, 20)


def test_a_json_array_is_not_a_saved_run(tmp_path: Path) -> None:
    _write(tmp_path, [])
    assert "holds a JSON list, not an object" in _refused(tmp_path)


@pytest.mark.parametrize(("change", "field"), [
    (lambda d: d.pop("budget"), "budget: Field required"),
    (lambda d: d.update(todo="buy milk"), "todo: Input should be a valid list"),
    (lambda d: d["budget"].update(limit=-5), "budget.limit: Input should be greater than"),
    (lambda d: d["budget"].update(used="many"),
     "budget.used: Input should be a valid integer"),
    (lambda d: d.update(usage=[1, 2]), "usage.2: Field required"),
    (lambda d: d.update(memory={"k": 5}), "memory.k: Input should be a valid string"),
    (lambda d: d.update(phase="SLEEPING"), "phase: Input should be"),
    (lambda d: d.update(todo=[{"step": {}, "ticked": False}]),
     "todo.0.step.description: Field required"),
    (lambda d: d.update(records=[{"step": 1, "summary": "x", "screen_hash": "",
                                  "failure": ["GREMLINS", "?"]}]),
     "records.0.failure.0: Input should be"),
])
def test_a_wrong_shape_names_the_field(tmp_path: Path, change: Any, field: str) -> None:
    data = _saved(tmp_path)
    change(data)
    _write(tmp_path, data)
    message = _refused(tmp_path)
    assert "is not a valid saved run" in message or "not a saved run" in message, message
    assert field in message, message


def test_a_file_past_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    with (tmp_path / STATE_FILE).open("wb") as fh:
        fh.truncate(MAX_STATE_BYTES + 10)  # sparse: no 32 MiB written to the disk
    assert "larger than 32 MiB" in _refused(tmp_path)


def test_json_nested_too_deep_is_refused(tmp_path: Path) -> None:
    (tmp_path / STATE_FILE).write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    assert "cannot be read" in _refused(tmp_path)


def test_a_held_action_saved_whole_or_as_a_description_both_load(tmp_path: Path) -> None:
    data = _saved(tmp_path)
    for held in ("pay ¥1,079.00", {"describe": "tap Pay", "cls": "payment",
                                   "action": {"type": "tap"}, "label": "Pay ¥1,079.00"}):
        _write(tmp_path, {**data, "held": held, "refusal": None})
        load_state(tmp_path)
    _write(tmp_path, {**data, "held": {"describe": "tap Pay"}})
    assert "held.cls: Field required" in _refused(tmp_path)
