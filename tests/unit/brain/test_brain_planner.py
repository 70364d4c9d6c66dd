"""Predefined plan files and the todo list that tracks a plan's progress."""

from __future__ import annotations

from pathlib import Path

import pytest

from omg_agent.brain.planner import TodoList, load_plan_file
from omg_agent.core.contracts import TaskPlan, TaskStep
from omg_agent.errors import ConfigError

PLAN = """
goal: copy a price
steps:
  - description: Open Shop
    success_criteria: the Shop shows "Search"
    complexity: 1
  - description: Save the price
    success_criteria: memory has price
    data_output: price
    on_fail: jump_to:1
"""


def test_a_plan_file_loads_in_order(tmp_path: Path) -> None:
    path = tmp_path / "plan.yaml"
    path.write_text(PLAN)
    plan = load_plan_file(path)
    assert plan.goal == "copy a price"
    assert [s.description for s in plan.steps] == ["Open Shop", "Save the price"]
    assert plan.steps[1].jump_target == 1 and plan.steps[0].max_tries == 3


def test_a_bare_list_of_steps_is_a_plan(tmp_path: Path) -> None:
    path = tmp_path / "plan.yaml"
    path.write_text("- description: A\n  success_criteria: a\n")
    assert load_plan_file(path).steps[0].description == "A"


@pytest.mark.parametrize(("text", "field"), [
    ("steps:\n  - description: A\n", "steps.1.success_criteria"),
    ("steps:\n  - description: A\n    success_criteria: a\n    on_fail: sometimes\n",
     "steps.1.on_fail"),
    ("steps: []\n", "steps"),
    ("goal: x\nstep: []\n", "step"),
])
def test_plan_file_errors_name_the_file_and_the_field(tmp_path: Path, text: str,
                                                      field: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_plan_file(path)
    assert str(path) in str(info.value)
    assert field in str(info.value)


def test_missing_and_unparsable_plan_files_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_plan_file(tmp_path / "nope.yaml")
    path = tmp_path / "broken.yaml"
    path.write_text("steps: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_plan_file(path)


def _plan(*names: str) -> TaskPlan:
    return TaskPlan(goal="g", steps=[TaskStep(description=n, success_criteria="ok")
                                     for n in names])


def test_todo_ticks_in_order_and_is_complete_only_when_all_are_ticked() -> None:
    todo = TodoList.of(_plan("A", "B"))
    assert todo.cursor == 0 and not todo.complete
    assert todo.markdown() == "- [ ] 1. A\n- [ ] 2. B"
    todo.tick(0)
    assert todo.cursor == 1 and todo.done() == ["A"] and todo.pending() == ["B"]
    todo.tick(1)
    assert todo.complete and todo.markdown() == "- [x] 1. A\n- [x] 2. B"


def test_a_replan_keeps_ticked_steps_and_replaces_the_rest() -> None:
    todo = TodoList.of(_plan("A", "B", "C"))
    todo.tick(0)
    todo.replace_pending(_plan("B2"))
    assert todo.markdown() == "- [x] 1. A\n- [ ] 2. B2"


def test_a_jump_unticks_from_the_target_on() -> None:
    todo = TodoList.of(_plan("A", "B", "C"))
    todo.tick(0)
    todo.tick(1)
    todo.untick_from(1)
    assert todo.done() == ["A"] and todo.cursor == 1
