"""TASKS.yaml: what is accepted, and one-line errors naming what was wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from omg_agent.errors import ConfigError
from omg_agent.fleet.taskfile import MAX_TASKS_BYTES, load_tasks_file


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "tasks.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_suite_and_goal_tasks_with_needs_are_read(tmp_path: Path) -> None:
    spec = load_tasks_file(_write(tmp_path, """
model: sim
max_steps: 20
tasks:
  - suite: settings.wifi
  - id: wifi-off
    goal: Turn off Wi-Fi
    profile: Pixel 7
    app: com.android.settings
"""))
    assert spec.max_steps == 20
    assert [t.key for t in spec.tasks] == ["settings.wifi", "wifi-off"]
    assert (spec.tasks[1].profile, spec.tasks[1].app) == ("Pixel 7", "com.android.settings")


@pytest.mark.parametrize(("text", "names"), [
    ("tasks: []", "tasks"),
    ("tasks:\n  - suite: a\n    colour: red", "tasks.0.colour"),
    ("tasks:\n  - id: x", "give either suite: or goal:"),
    ("tasks:\n  - suite: a\n    goal: b", "give either suite: or goal:"),
    ("tasks:\n  - goal: Turn off Wi-Fi", "needs an id:"),
    ("tasks:\n  - suite: a\n  - suite: a", "tasks.1: its id repeats tasks.0's"),
    ("max_steps: 0\ntasks:\n  - suite: a", "max_steps"),
    ("tasks:\n  - suite: 'a/../b'", "tasks.0.suite"),
])
def test_a_bad_file_is_one_line_naming_the_field_and_what_is_accepted(
        tmp_path: Path, text: str, names: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_tasks_file(_write(tmp_path, text))
    message = str(caught.value)
    assert names in message and "\n" not in message


def test_a_file_over_the_size_limit_is_refused_before_parsing(tmp_path: Path) -> None:
    path = _write(tmp_path, "tasks:\n" + "  - suite: a\n" * (MAX_TASKS_BYTES // 10))
    with pytest.raises(ConfigError, match="larger than the limit"):
        load_tasks_file(path)
