"""``vphone fault adb_kill`` warns before it kills the adb server every adb user of the
machine shares, and goes on only on a yes (issue 37): ``--yes``, or "y" typed at a terminal
(a real pseudo-terminal here); without a terminal it stops, exit 5, before any vphone or adb
server is touched."""

from __future__ import annotations

import os

import pytest
import typer
from typer.testing import CliRunner

from omg_agent.bench.reliability import free_port
from omg_agent.cli import build_app
from omg_agent.cli.vphone import EXIT_DECLINED, EXIT_HELD, confirm_adb_kill

APP = build_app()


def _invoke(*args: str):
    return CliRunner().invoke(APP, ["vphone", "fault", *args], env={"COLUMNS": "200"})


def test_without_a_terminal_it_warns_and_stops_before_touching_anything() -> None:
    port = free_port()  # no vphone there: had the command gone on, it would say so, exit 1
    result = _invoke("adb_kill", "--adb-port", "5037", "--port", str(port))
    assert result.exit_code == EXIT_HELD, result.output
    assert "kills the adb server on port 5037, which every adb user" in result.output
    assert "pass --yes" in result.output
    assert "vphone" not in result.output.split("pass --yes", 1)[1]


def test_yes_warns_and_goes_on() -> None:
    port = free_port()
    result = _invoke("adb_kill", "--adb-port", "5037", "--port", str(port), "--yes")
    assert "kills the adb server on port 5037" in result.output
    assert result.exit_code == 1 and "pass --yes" not in result.output  # on to the vphone


def test_other_faults_ask_nothing() -> None:
    result = _invoke("crash", "--port", str(free_port()))
    assert "adb server" not in result.output and result.exit_code == 1


@pytest.mark.parametrize(("typed", "code"), [("n\n", EXIT_DECLINED), ("\n", EXIT_DECLINED),
                                             ("y\n", None)])
def test_a_terminal_is_asked(typed: str, code: int | None) -> None:
    leader, follower = os.openpty()
    with os.fdopen(follower, "r") as stdin:
        os.write(leader, typed.encode())
        try:
            confirm_adb_kill(5037, False, stdin=stdin)
        except typer.Exit as stop:
            assert stop.exit_code == code
        else:
            assert code is None
    os.close(leader)
