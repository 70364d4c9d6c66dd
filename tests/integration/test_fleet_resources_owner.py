"""``fleet resources`` on the local adb server offers this user's phones (issue 37): a
vphone this process serves is offered under its serial; ``--device`` offers exactly the
phones named."""

from __future__ import annotations

import json
import os

from typer.testing import CliRunner

from omg_agent.cli import build_app
from omg_agent.fleet.owners import owner_of


def test_a_vphone_of_ours_is_offered_and_device_names_exactly(vphone) -> None:
    assert owner_of(vphone.serial) == os.getuid()  # this process listens on its port
    app = build_app()
    offered = json.loads(CliRunner().invoke(app, ["fleet", "resources"]).stdout)
    assert offered[f"omg-device:{vphone.serial}"] == 1
    named = CliRunner().invoke(app, ["fleet", "resources", "--device", vphone.serial,
                                     "--vphones", "1"])
    assert json.loads(named.stdout) == {f"omg-device:{vphone.serial}": 1,
                                        "omg-device:vphone-1": 1}
