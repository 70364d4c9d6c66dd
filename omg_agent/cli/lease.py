"""The command line's side of device leases (:mod:`omg_agent.drivers.lease`).

Every command that drives a phone holds its lease while it drives: ``run`` (and ``run
--resume``), ``flow run`` and ``flow record``, ``mirror`` (its viewers share it: watching is
not driving), and the everyday ``tap``, ``long-press``, ``swipe``, ``type``, ``key`` and
``launch`` for their moment. A second driver is refused at once with one line naming the
holder and exit code :data:`EXIT_BUSY` (7); ``--wait-device [SECONDS]`` (``run``, ``flow
run``) queues instead. Commands that only read the screen — ``devices``, ``observe``,
``screenshot``, ``dump`` — take no lease, so a user can look at a phone while a run drives
it. A desktop (``--device desktop``) is not leased.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import typer
from typer.core import TyperCommand

from omg_agent.cli.console import fail
from omg_agent.errors import DeviceBusy, OmgError

EXIT_BUSY = 7
WAIT_OPTION = "--wait-device"
WAIT_HELP = ("Queue for a phone another agent is driving instead of exiting 7: wait up to "
             "SECONDS, or as long as it takes when given without a number.")
HINT = f"wait for it with {WAIT_OPTION} [SECONDS], or stop it"
ONE_SHOT_HINT = "try again once it is done, or stop it"


def wait_device_option() -> Any:
    """``--wait-device [SECONDS]`` (parsed by :class:`WaitDeviceCommand`)."""
    return typer.Option(None, WAIT_OPTION, metavar="[SECONDS]", min=0, help=WAIT_HELP)


class WaitDeviceCommand(TyperCommand):
    """A command whose ``--wait-device`` may come without its number (then: no limit).

    Typer does not pass click's optional-value options through, so a bare
    ``--wait-device`` (last, or before another option or a word that is no number) is read
    as ``--wait-device=inf`` before click parses the line."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:  # typer's own click
        out: list[str] = []
        for i, arg in enumerate(args):
            if arg == WAIT_OPTION and not _is_number(args[i + 1] if i + 1 < len(args) else ""):
                arg = f"{WAIT_OPTION}=inf"
            out.append(arg)
        return super().parse_args(ctx, out)


def _is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def take_lease(serial: str, what: str, wait_s: float | None = None,
               stack: ExitStack | None = None, *, hint: str = HINT) -> Any:
    """The lease of ``serial``, held (released when ``stack`` closes, or by the caller);
    ``None`` for a desktop. Another holder: exit 7 naming it (then ``hint``), or wait
    ``wait_s`` seconds."""
    from omg_agent.drivers.desktop import is_desktop
    from omg_agent.drivers.lease import Holder, phone_lease

    if is_desktop(serial):
        return None

    def waiting(holder: Holder) -> None:
        from omg_agent.cli.console import err_console

        limit = "" if wait_s is None or math.isinf(wait_s) else f" (up to {wait_s:g} s)"
        err_console.print(f"waiting{limit}: {holder.busy()}", soft_wrap=True,
                          highlight=False, markup=False)

    lease = phone_lease(serial, what)
    try:
        lease.acquire(wait_s or 0.0, on_wait=waiting)
    except DeviceBusy as exc:
        fail(f"{exc}; {hint}", code=EXIT_BUSY)
    except OmgError as exc:
        fail(str(exc))
    if stack is not None:
        stack.callback(lease.release)
    return lease


@contextmanager
def driving(device: str | None, what: str) -> Iterator[str | None]:
    """For a one-shot command: the device to drive, picked as ``open_driver`` picks it
    (the only one attached when none is named), with its lease held until the block ends."""
    from omg_agent.drivers.desktop import is_desktop

    if is_desktop(device):
        yield device
        return
    import adbutils

    from omg_agent.cli.device_choice import pick_serial

    serial = pick_serial(adbutils.AdbClient(), device)
    with ExitStack() as stack:
        take_lease(serial, what, stack=stack, hint=ONE_SHOT_HINT)
        yield serial
