"""Ctrl-C during ``omg-agent run``: one SIGINT handler for the run, checked at safe points.

Python turns SIGINT into a KeyboardInterrupt raised wherever the main thread is. That stops
a blocking wait at once — a model request, a retry's backoff, a device call — and
:meth:`CtrlC.run` turns it into the run's end: status ``interrupted``, ``state.json``
at the last turn boundary, and the command that resumes it. But the exception can be lost
on its way up: a library's ``except BaseException`` that does not re-raise, or a finaliser
(``__del__``, a weakref callback) that happens to be running when the signal is handled —
Python prints "Exception ignored in …" and goes on. The run would then carry out the model's
reply and keep going, to ``done``. So :class:`CtrlC` records each Ctrl-C as well as raising
it, and :meth:`CtrlC.check` — the run's safe point, given to
:func:`omg_agent.taskrun.open_agent` — looks at that record after every model reply (before
the reply is acted on) and at the top of every turn: a lost interrupt ends the run there.
At worst the rest of a bundle already being sent to the device runs; nothing new is decided.
:class:`CtrlC` is entered first and left last by ``run``, so it covers the device's set-up
and teardown too.

SIGTERM and SIGHUP — what ``timeout``, ``docker stop``, systemd, a CI's cancel and a closed
terminal send — end the run the same way (issue 38): status ``interrupted``, the stop report
naming the signal, ``result.json``, the JSON on stdout under ``--json`` and exit 130. They are
taken over only where their handler is still the default (a run under ``nohup`` keeps SIGHUP
ignored); a second one while the run ends stops a teardown that hangs, as a third Ctrl-C does.

A Ctrl-C that comes once the run has ended (its outcome decided: e.g. while the replay cache
files the flow of a done run) leaves that outcome as it is. A process started with SIGINT
ignored (a job a script put in the background) keeps it ignored, as the script asked: stop
such a run with SIGTERM; ``--resume`` goes on from its last turn boundary.

A disk that refuses the run's files (full, read-only, an I/O error, the run's folder deleted)
ends the run the same way, at the same safe points (issue 25): the trace keeps the error
(:meth:`~omg_agent.trace.recorder.TraceRecorder.check` raises it at the top of the next
turn), a ``state.json`` that cannot be saved raises it at the turn boundary, and
:meth:`CtrlC.run` ends the run ``interrupted`` with one line saying what the disk refused and
how to go on; :attr:`CtrlC.disk` keeps it for the exit code (8).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape

from omg_agent.cli.console import err_console
from omg_agent.durable import disk_trouble
from omg_agent.errors import DiskTrouble

if TYPE_CHECKING:
    from omg_agent.brain.orchestrator import Orchestrator, RunResult


# the signals a supervisor stops a process with; SIGHUP does not exist on Windows
_STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP")
                      if hasattr(signal, name))


class CtrlC:
    """While entered (in the main thread, where Python's own handler is in place), each
    SIGINT is counted in :attr:`pressed` and raised as KeyboardInterrupt, and :meth:`check`
    raises it again at a safe point. Once the run is :attr:`ending` (its outcome decided),
    the next Ctrl-C is only counted, so the result, the trace and the device's teardown
    complete and the outcome is printed; one more raises (a teardown that hangs)."""

    def __init__(self) -> None:
        self.pressed = 0
        self.ending = False
        self._while_ending = 0
        self._previous: dict[int, Any] = {}
        self.disk: DiskTrouble | None = None  # the disk trouble that ended the run
        self.signal_name = "Ctrl-C"  # what stopped the run: Ctrl-C, SIGTERM or SIGHUP

    def __enter__(self) -> CtrlC:
        if threading.current_thread() is not threading.main_thread():
            return self
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            self._previous[signal.SIGINT] = signal.signal(signal.SIGINT, self._on_sigint)
        for signum in _STOP_SIGNALS:
            if signal.getsignal(signum) is signal.SIG_DFL:
                self._previous[signum] = signal.signal(signum, self._on_sigint)
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)
        self._previous = {}

    def _on_sigint(self, signum: int, frame: FrameType | None) -> None:
        if not self.pressed:
            self.signal_name = ("Ctrl-C" if signum == signal.SIGINT
                                else signal.Signals(signum).name)
        self.pressed += 1
        if self.ending:
            self._while_ending += 1
            if self._while_ending < 2:
                return
        raise KeyboardInterrupt

    def check(self) -> None:
        """A safe point: raise the Ctrl-C here if one came and the run is still going."""
        if self.pressed and not self.ending:
            raise KeyboardInterrupt

    def run(self, orchestrator: Orchestrator, run_dir: Path,
            go: Callable[[], RunResult]) -> RunResult:
        """``go()`` (its orchestrator built with :meth:`check` as its safe point: see
        :class:`omg_agent.taskrun.Hooks`); a Ctrl-C ends the run ``interrupted`` with the
        command that resumes it, said on the terminal too. Before the run began (no state yet) it
        propagates, after saying how to go on."""
        from omg_agent.brain.resume import STATE_FILE, interrupted

        try:
            result = go()
        except (KeyboardInterrupt, typer.Abort):
            self.ending = True
            if orchestrator.state is None:
                if (run_dir / STATE_FILE).exists():
                    _say(f"interrupted before the run began: go on with `omg-agent run "
                         f"--resume {run_dir}`")
                raise
            result = interrupted(orchestrator, run_dir, during=self.signal_name)
        except (DiskTrouble, OSError) as exc:
            self.ending = True
            self.disk = _as_disk_trouble(exc, run_dir)
            if self.disk is None:
                raise
            if orchestrator.state is None:
                raise self.disk from None
            result = interrupted(orchestrator, run_dir, during=f"disk: {self.disk}")
        finally:
            self.ending = True  # the outcome is decided: the checks stand down
        if self.disk is not None and result.status == "interrupted":
            result = _disk_stop(result, run_dir, self.disk)
        elif result.status == "interrupted":
            _say(f"interrupted ({self.signal_name}): go on with `omg-agent run --resume {run_dir}`")
        elif self.pressed:
            _say(f"{self.signal_name} came as the run ended; it ended {result.status}")
        return result


def _say(text: str) -> None:
    err_console.print(escape(text), soft_wrap=True)


def _disk_stop(result: RunResult, run_dir: Path, disk: DiskTrouble) -> RunResult:
    """Say in one line why a run stopped on disk trouble and how it goes on (if it can)."""
    from dataclasses import replace

    if run_dir.is_dir():
        _say(f"error: {disk}; the run stopped at step {result.steps_used}, interrupted: free "
             f"some space (or make the folder writable), then go on with `omg-agent run "
             f"--resume {run_dir}`")
        return result
    again = ("look at the phone for what the run already did (the done steps are above), "
             "then run what is left as a new task")
    _say(f"error: the run's folder {run_dir} was deleted while the run went on; it stopped "
         f"at step {result.steps_used}, interrupted, and cannot be resumed: {again}")
    return replace(result, next_hint=f"the run's folder was deleted: {again}")


def _as_disk_trouble(exc: BaseException, run_dir: Path) -> DiskTrouble | None:
    """``exc`` as the disk trouble it is, or None when it is some other error."""
    if isinstance(exc, DiskTrouble):
        return exc
    if isinstance(exc, OSError) and disk_trouble(exc, run_dir):
        return DiskTrouble(exc)
    return None


__all__ = ["CtrlC"]
