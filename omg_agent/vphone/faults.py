"""Fault injection for a vphone: what can go wrong with a phone on adb, now or later.

Kinds (``FAULTS``): ``drop`` (every adb transport closes; the server reconnects),
``offline`` (refuse adb for N seconds), ``latency`` (N extra seconds on every command),
``crash`` (the foreground app dies: "keeps stopping"), ``anr`` ("isn't responding"),
``screen_off`` (screen off and locked; ``lock_pin`` sets a PIN first), ``adb_kill`` (the
host's adb server is killed with ``adb kill-server``: the phone stays up, the host side must
restart the server and re-connect), and the guards' hazards. :func:`apply_fault` injects one
now; :func:`inject_later` at a given moment or at a random moment within a window (seeded),
on a timer thread. The control server (``omg-agent vphone fault KIND``) and tests use these.
"""

from __future__ import annotations

import logging
import os
import random
import subprocess
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from omg_agent.errors import AdbNotFound
from omg_agent.vphone.adbhost import adb_path
from omg_agent.vphone.hazards import HAZARDS

if TYPE_CHECKING:
    from omg_agent.vphone.phone import VirtualPhone

log = logging.getLogger(__name__)

PHONE_FAULTS = ("drop", "offline", "latency", "crash", "anr", "screen_off", "adb_kill")
FAULTS = (*PHONE_FAULTS, *HAZARDS)
ADB_PORT_ENV = "ANDROID_ADB_SERVER_PORT"


def default_adb_port() -> int:
    """The adb server port the adb client would use (``$ANDROID_ADB_SERVER_PORT`` or 5037)."""
    value = os.environ.get(ADB_PORT_ENV, "")
    return int(value) if value.isdigit() else 5037


def kill_adb_server(port: int | None = None) -> str:
    """``adb -P PORT kill-server``: what a user's other tool (or an IDE) does to the server."""
    try:
        adb = adb_path()
    except AdbNotFound as exc:
        raise ValueError(f"adb_kill needs the adb binary: {exc}") from exc
    port = port or default_adb_port()
    subprocess.run([adb, "-P", str(port), "kill-server"], capture_output=True,
                   stdin=subprocess.DEVNULL, timeout=20, check=False)
    return f"killed the adb server on port {port}"


def apply_fault(phone: VirtualPhone, kind: str, seconds: float = 0.0, *,
                adb_port: int | None = None, pin: str | None = None) -> str:
    """Inject one fault now; returns a sentence saying what was done. ``ValueError`` names
    an unknown kind and lists the known ones."""
    match kind:
        case "drop":
            phone.drop_transports()
            return "dropped all adb transports"
        case "offline":
            phone.go_offline(seconds or 5.0)
            return f"offline for {seconds or 5.0:g} s"
        case "latency":
            phone.extra_latency = max(0.0, seconds)
            return f"added {phone.extra_latency:g} s to every command"
        case "crash":
            phone.crash_foreground()
            return "crashed the foreground app"
        case "anr":
            phone.show_anr()
            return "showing an ANR dialog"
        case "screen_off":
            phone.screen_off(lock=True, pin=pin)
            return "screen off and locked" + (" with a PIN" if phone.power.pin else "")
        case "adb_kill":
            return kill_adb_server(adb_port)
        case hazard if hazard in HAZARDS:
            phone.enable_hazard(hazard)
            return f"hazard on: {HAZARDS[hazard]}"
    raise ValueError(f"unknown fault {kind!r}; choose one of: {', '.join(FAULTS)}")


@dataclass
class Injection:
    """A fault due at ``at_s`` seconds after it was scheduled; ``done`` once it ran."""

    kind: str
    at_s: float
    seconds: float = 0.0
    done: str = ""
    timer: threading.Timer | None = field(default=None, repr=False)

    def cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()


def pick_moment(at: float | None, within: float | None, rng: random.Random) -> float:
    """The delay before a fault: ``at`` seconds, or a random moment in ``[0, within)``."""
    if at is not None and at < 0 or within is not None and within < 0:
        raise ValueError("a fault's moment must be >= 0 seconds")
    if at is not None:
        return at
    return rng.uniform(0.0, within) if within else 0.0


def inject_later(phone: VirtualPhone, kind: str, *, seconds: float = 0.0,
                 at: float | None = None, within: float | None = None,
                 rng: random.Random | None = None, adb_port: int | None = None,
                 pin: str | None = None) -> Injection:
    """Schedule ``kind`` at ``at`` seconds from now, or at a random moment within ``within``
    seconds (drawn from ``rng``); no moment given means now. Checks the kind first."""
    if kind not in FAULTS:
        raise ValueError(f"unknown fault {kind!r}; choose one of: {', '.join(FAULTS)}")
    delay = pick_moment(at, within, rng or random.Random())
    injection = Injection(kind, delay, seconds)

    def fire() -> None:
        try:
            injection.done = apply_fault(phone, kind, seconds, adb_port=adb_port, pin=pin)
        except Exception as exc:  # a timer thread has no caller to raise to: say it
            injection.done = f"failed: {exc}"
        log.info("fault %s at %.2f s: %s", kind, delay, injection.done)

    if delay <= 0:
        fire()
        return injection
    injection.timer = threading.Timer(delay, fire)
    injection.timer.daemon = True
    injection.timer.start()
    return injection
