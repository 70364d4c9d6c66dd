"""``--wait-device [SECONDS]``: the number is optional — given alone the command waits as
long as it takes; a word after it (the task) is not taken for the number."""

from __future__ import annotations

import math

import pytest
import typer
from typer.testing import CliRunner

from omg_agent.cli.lease import WaitDeviceCommand, wait_device_option


def parsed(*args: str) -> tuple[str | None, float | None]:
    app = typer.Typer()
    seen: list[tuple[str | None, float | None]] = []

    @app.command(cls=WaitDeviceCommand)
    def run(task: str | None = typer.Argument(None),
            wait_device: float | None = wait_device_option()) -> None:
        seen.append((task, wait_device))

    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return seen[0]


@pytest.mark.parametrize(("args", "task", "wait"), [
    (("Like the posts",), "Like the posts", None),
    (("Like the posts", "--wait-device"), "Like the posts", math.inf),
    (("--wait-device", "Like the posts"), "Like the posts", math.inf),
    (("Like the posts", "--wait-device", "30"), "Like the posts", 30.0),
    (("--wait-device=2.5", "Like the posts"), "Like the posts", 2.5),
])
def test_wait_device_takes_an_optional_number(args, task, wait) -> None:
    assert parsed(*args) == (task, wait)
