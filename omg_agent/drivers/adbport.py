"""The adb-shell port of the bundle executor: inputs queued as shell fragments, batched.

Each verb of :class:`~omg_agent.drivers.ports.ActionPort` appends ``input …`` fragments
(:mod:`.commands`, :mod:`.textinput`) to the current action's
:class:`~omg_agent.drivers.commands.Step`; :meth:`AdbShellPort.batch` packs the queued steps
into as few shell calls as fit (one, normally: ``input tap …; echo OMG_OK:0; input …``),
wrapped in the ADB-Keyboard IME switch when some text needs it, and reads back from the
markers which actions finished when a call fails. Typed text never reaches a log: plans
describe themselves by length when the field is a password.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from omg_agent.core.geometry import Point
from omg_agent.core.observation import UIElement
from omg_agent.drivers import commands as cmds
from omg_agent.drivers.adbio import AdbIO, failure_text
from omg_agent.drivers.ports import PortFailed
from omg_agent.drivers.secret_places import is_secret_input
from omg_agent.drivers.textinput import needs_ime, plan_typing
from omg_agent.errors import ActionRejected, DeviceOffline

log = logging.getLogger(__name__)

ADB_KEYBOARD_FIX = ("install ADBKeyboard (https://github.com/senzhk/ADBKeyBoard: "
                    "`adb install ADBKeyboard.apk`, then `adb shell ime enable "
                    "com.android.adbkeyboard/.AdbIME`)")


class AdbShellPort:
    """Queues shell fragments per action and runs them as packed calls."""

    def __init__(self, io: AdbIO, *, ime_state: Callable[[], tuple[bool, str]],
                 ime_settle_s: float = 0.25) -> None:
        self.io = io
        self.ime_state = ime_state  # (ADB-Keyboard usable, the IME to restore)
        self.ime_settle_s = ime_settle_s
        self._steps: list[cmds.Step] = []
        self._index: int | None = None
        self._fragments: list[str] = []
        self._labels: list[str] = []
        self._needs_ime = False
        self._packages: list[str] | None = None

    @property
    def calls(self) -> int:
        return self.io.calls

    # -- queueing ------------------------------------------------------------------------
    def begin(self, index: int) -> None:
        self._commit()
        self._index = index

    def _add(self, fragment: str, label: str) -> None:
        self._fragments.append(fragment)
        self._labels.append(label)

    def tap(self, p: Point) -> None:
        self._add(cmds.tap(p), f"tap {p.x},{p.y}")

    def double_tap(self, p: Point) -> None:
        self._add(cmds.double_tap(p), f"double_tap {p.x},{p.y}")

    def long_press(self, p: Point, duration_ms: int) -> None:
        self._add(cmds.long_press(p, duration_ms), f"long_press {p.x},{p.y}")

    def swipe(self, start: Point, end: Point, duration_ms: int) -> None:
        self._add(cmds.swipe(start, end, duration_ms),
                  f"swipe {start.x},{start.y}->{end.x},{end.y}")

    def key(self, code: int) -> None:
        self._add(cmds.keyevent(code), f"key {code}")

    def start(self, package: str, *, restart: bool = False) -> None:
        self._add(cmds.launch(package, restart=restart), f"launch {package}")

    def type(self, text: str, *, clear: bool, field: UIElement | None,
             after_tap: bool) -> str:
        ime_ok = self.ime_state()[0] if clear or needs_ime(text) else False
        try:
            plan = plan_typing(text, ime_available=ime_ok, clear=clear,
                               field_chars=len(field.text) if field else 0,
                               secret=field is not None and is_secret_input(field))
        except UnicodeEncodeError:
            raise ActionRejected("the text holds unpaired surrogates (not valid unicode)",
                                 serial=self.io.serial) from None
        except ValueError:
            raise ActionRejected(f"this text needs the ADB Keyboard IME: {ADB_KEYBOARD_FIX}",
                                 serial=self.io.serial) from None
        if plan.needs_ime and after_tap and self.ime_settle_s > 0:
            self._fragments.append(f"sleep {self.ime_settle_s:g}")
        self._fragments.extend(plan.fragments)
        self._labels.append(plan.label)
        self._needs_ime = self._needs_ime or plan.needs_ime
        return plan.label

    def discard(self) -> None:
        self._fragments, self._labels, self._needs_ime = [], [], False

    def _commit(self) -> None:
        if self._index is not None and self._fragments:
            self._steps.append(cmds.Step(self._index, tuple(self._fragments),
                                         "; ".join(self._labels), self._needs_ime))
        self.discard()

    # -- running -------------------------------------------------------------------------
    def batch(self) -> list[int]:
        """Run the queued steps in packed calls; the action indices that finished."""
        self._commit()
        steps, self._steps, self._index = self._steps, [], None
        if not steps:
            return []
        ime = None
        if any(s.needs_ime for s in steps):
            ime = cmds.ImeSwitch(self.ime_state()[1], self.ime_settle_s)
        done: list[int] = []
        for call in cmds.pack(steps, ime=ime):
            log.debug("%s: shell %s", self.io.serial, call.label)
            result = self.io.run_status(call.command, label=call.label)
            count = cmds.completed_actions(call, result.stdout, result.status)
            done.extend(call.indices[:count])
            if result.status != 0:
                failed = steps[len(done)].index
                raise PortFailed(done, failed, failure_text(result.text(), result.status))
        return done

    def packages(self) -> list[str]:
        if self._packages is None:
            self._packages = self.io.read(cmds.PACKAGES_CMD, self._whole_list,
                                          label="pm list packages")
        return self._packages

    def _whole_list(self, out: bytes) -> list[str]:
        names = cmds.whole_package_list(out.decode("utf-8", "replace"))
        if names is None:  # a drop cut the answer short: io.read asks again
            raise DeviceOffline("package list cut short", serial=self.io.serial,
                                command="pm list packages")
        return names
