"""Driver wrappers pass the protocol through to ``inner``, and shell_of finds the ADB
driver's shell stream under any stack of them (macros and the replay cache use it)."""

from __future__ import annotations

import adbutils

from omg_agent.core.secrets import SecretVault
from omg_agent.drivers.adbio import AdbIO
from omg_agent.drivers.base import DeviceInfo
from omg_agent.drivers.dryrun import DryRunDriver
from omg_agent.drivers.secret_typing import SecretTyping
from omg_agent.drivers.wrapper import shell_of


class ShellDriver:
    """A driver with the ADB driver's shell attribute (an AdbIO that never connects here)."""

    def __init__(self) -> None:
        self.io = AdbIO(adbutils.AdbClient(port=1), "S1")
        self.closed = False

    def info(self) -> DeviceInfo:
        return DeviceInfo("S1", 100, 200, 160)

    def current_app(self) -> tuple[str, str]:
        return "com.omg.notes", ".Main"

    def close(self) -> None:
        self.closed = True


def test_shell_of_digs_through_every_wrapper_to_the_adb_shell() -> None:
    driver = ShellDriver()
    stacked = DryRunDriver(SecretTyping(driver, SecretVault()), on_action=lambda _: None)
    assert shell_of(stacked) is driver.io
    assert shell_of(driver) is driver.io


def test_a_driver_without_a_shell_has_none() -> None:
    class NoShell:
        io = object()  # something called io that is not a shell stream

    assert shell_of(DryRunDriver(NoShell(), on_action=lambda _: None)) is None  # type: ignore[arg-type]
    assert shell_of(None) is None


def test_a_wrapper_that_wraps_itself_ends_the_search() -> None:
    class Loop:
        def __init__(self) -> None:
            self.inner = self

    assert shell_of(Loop()) is None


def test_wrappers_pass_what_they_do_not_change_to_the_inner_driver() -> None:
    driver = ShellDriver()
    wrapped = SecretTyping(DryRunDriver(driver, on_action=lambda _: None), SecretVault())  # type: ignore[arg-type]
    assert wrapped.info().serial == "S1"
    assert wrapped.current_app() == ("com.omg.notes", ".Main")
    wrapped.close()
    assert driver.closed


def test_every_driver_that_hands_a_bundle_on_hands_on_the_gates_review_too() -> None:
    """The gate judges a segment inside the executor (``review=``): a wrapper that calls the
    driver under it without passing ``review`` on would run a Pay tap unreviewed."""
    import ast
    from pathlib import Path

    import omg_agent

    package = Path(omg_agent.__file__).parent
    dropped: list[str] = []
    wrappers = 0
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.FunctionDef) and node.name == "execute"):
                continue
            for call in ast.walk(node):
                if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                        and call.func.attr == "execute"):
                    wrappers += 1
                    if not any(k.arg == "review" for k in call.keywords):
                        dropped.append(f"{path.relative_to(package)}:{call.lineno}")
    assert wrappers >= 5  # DriverWrapper, SecretTyping, _Watched, HeldDriver, DeviceRouter
    assert not dropped, f"execute() calls that drop the gate's review: {dropped}"
