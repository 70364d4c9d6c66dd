"""The installed-package list is read once per run, so an answer a device drop cut short
must never be kept: its end line proves it whole (soak run 2 of seed 0 on CI: the cut list
lacked com.omg.feed, every launch was refused as "not installed" and the run got stuck)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from omg_agent.drivers import commands as cmds
from omg_agent.drivers.adbport import AdbShellPort
from omg_agent.errors import DeviceOffline

WHOLE = "package:android\npackage:com.omg.feed\npackage:com.omg.shop\n" \
        f"{cmds.PACKAGES_END}\n"


@pytest.mark.parametrize("cut", [0, 1, 20, len(WHOLE) - len(cmds.PACKAGES_END) - 1,
                                 len(WHOLE) - 3])
def test_an_answer_without_its_end_line_is_not_a_list(cut: int) -> None:
    assert cmds.whole_package_list(WHOLE[:cut]) is None


def test_a_whole_answer_lists_every_package() -> None:
    assert cmds.whole_package_list(WHOLE) == ["android", "com.omg.feed", "com.omg.shop"]
    assert cmds.whole_package_list(WHOLE.rstrip("\n")) == ["android", "com.omg.feed",
                                                           "com.omg.shop"]


class _Answers:
    """An AdbIO that answers the package command from a queue and, like DeviceGrace, asks
    again when the parser says the answer was cut short."""

    serial = "emulator-5554"
    calls = 0

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.commands: list[str] = []

    def read(self, cmd: str, parse: Callable[[bytes], Any], *, label: str = "") -> Any:
        while True:
            self.commands.append(cmd)
            try:
                return parse(self.answers.pop(0).encode())
            except DeviceOffline:
                continue


def test_the_port_reads_again_when_a_drop_cut_the_list_and_keeps_the_whole_one() -> None:
    io = _Answers("package:android\npackage:com.omg.sh", WHOLE)
    port = AdbShellPort(io, ime_state=lambda: (False, ""))  # type: ignore[arg-type]
    assert "com.omg.feed" in port.packages()
    assert port.packages() == ["android", "com.omg.feed", "com.omg.shop"]
    assert io.commands == [cmds.PACKAGES_CMD] * 2  # read twice, then kept
