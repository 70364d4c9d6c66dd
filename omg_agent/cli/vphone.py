"""``omg-agent vphone …``: start, stop, inspect and break virtual phones."""

from __future__ import annotations

import json
import socket
import sys
from typing import TextIO

import typer

from omg_agent.cli.console import console, err_console, fail
from omg_agent.errors import OmgError
from omg_agent.vphone import adbhost, daemon
from omg_agent.vphone.faults import FAULTS, default_adb_port
from omg_agent.vphone.profile import PROFILES

EXIT_HELD = 5  # as a held sensitive action: nobody at a terminal to say yes
EXIT_DECLINED = 6  # as `omg-agent run` when the user said no
LIST_FIELDS = ("port", "pid", "seed", "profile", "latency", "serial", "control_port")

app = typer.Typer(help="Run the virtual phone (vphone): a simulated Android device that "
                       "speaks the real ADB protocol.\n\nExample: omg-agent vphone start "
                       "--connect", no_args_is_help=True)


@app.command()
def start(
    port: int = typer.Option(5555, help="TCP port the vphone's adbd listens on."),
    seed: int = typer.Option(0, help="Seed for app content, prices and hazards."),
    profile: str = typer.Option("default", help=f"Device profile: {', '.join(PROFILES)}."),
    connect: bool = typer.Option(False, "--connect", help="adb connect it and print the serial."),
    latency: bool = typer.Option(False, "--latency", help="Simulate real-device latencies."),
    foreground: bool = typer.Option(False, "--foreground", help="Serve in this process until "
                                    "Ctrl-C instead of in the background."),
    as_json: bool = typer.Option(False, "--json", help="Print port, pid and serial as JSON."),
) -> None:
    """Start a vphone (in the background unless --foreground).

    Example: omg-agent vphone start --port 5555 --connect

    Example: omg-agent vphone start --port 5556 --seed 3 --profile compact --connect --json
    """
    if profile not in PROFILES:
        fail(f"unknown profile {profile!r}; known: {', '.join(PROFILES)}")
    check_port(port)
    if foreground:
        console.print(f"vphone serving on 127.0.0.1:{port} (Ctrl-C to stop)")
        daemon.serve_forever(port, seed, profile, latency)
        return
    try:
        record = daemon.spawn(port, seed, profile, latency)
        serial = adbhost.connect("127.0.0.1", record["port"]) if connect else None
    except OmgError as exc:
        fail(str(exc))
    if as_json:
        print(json.dumps({"port": record["port"], "pid": record["pid"], "profile": profile,
                          "seed": seed, "serial": serial}))
        return
    console.print(f"vphone started: adbd on 127.0.0.1:{record['port']} "
                  f"(pid {record['pid']}, profile {profile}, seed {seed})")
    if serial:
        console.print(serial)


@app.command()
def stop(port: int | None = typer.Option(None, help="Port of the vphone to stop.")) -> None:
    """Stop a running vphone (and adb disconnect it).

    Example: omg-agent vphone stop --port 5555
    """
    try:
        record = daemon.read_record(port)
        adbhost.disconnect(record["serial"])
        daemon.control(record, "POST", "/stop", {})
        console.print(f"vphone on port {record['port']} stopped")
    except OmgError as exc:
        fail(str(exc))


@app.command("list")
def list_cmd(
    as_json: bool = typer.Option(False, "--json", help="Print the records as a JSON list."),
) -> None:
    """List the running vphones: port, pid, seed, profile, latency and serial.

    Example: omg-agent vphone list

    Example: omg-agent vphone list --json
    """
    records = daemon.list_records()
    if as_json:
        print(json.dumps([{k: r.get(k) for k in LIST_FIELDS} for r in records]))
        return
    if not records:
        console.print("no vphone is running (start one with `omg-agent vphone start`)")
        return
    console.print("PORT   PID      SEED  PROFILE   LATENCY  SERIAL", markup=False)
    for r in records:
        console.print(f"{r['port']:<6} {r['pid']:<8} {r.get('seed', 0):<5} "
                      f"{r.get('profile', 'default'):<9} {'on' if r.get('latency') else 'off':<8} "
                      f"{r.get('serial', '')}", markup=False, highlight=False)


@app.command()
def state(
    port: int | None = typer.Option(None, help="Port of the vphone."),
    as_json: bool = typer.Option(True, "--json/--summary",
                                 help="The whole state as JSON (default), or one line per app."),
) -> None:
    """Print the vphone's state: foreground app, IME, and every app's state (what the
    benchmark's checks read).

    Example: omg-agent vphone state --port 5555

    Example: omg-agent vphone state --summary
    """
    try:
        record = daemon.read_record(port)
        data = daemon.control(record, "GET", "/state")
    except OmgError as exc:
        fail(str(exc))
    if as_json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
        return
    for key, value in data.items():
        if key != "apps":
            shown = value if isinstance(value, str) else _summary(value)
            console.print(f"{key}: {shown}", markup=False, highlight=False)
    for package, app_state in (data.get("apps") or {}).items():
        console.print(f"{package}: {_summary(app_state)}", markup=False, highlight=False)


def _summary(state: object) -> str:
    """One line for a piece of state: ``key=value`` pairs, values as JSON writes them
    (``null``, ``true``, ``"text"``), lists and nested objects by their size."""
    if isinstance(state, list):
        return f"{len(state)} items"
    if not isinstance(state, dict):
        return json.dumps(state, ensure_ascii=False, default=str)
    parts = []
    for key, value in state.items():
        shown = (f"{len(value)} items" if isinstance(value, list | dict)
                 else json.dumps(value, ensure_ascii=False, default=str))
        parts.append(f"{key}={shown}")
    return ", ".join(parts)


@app.command()
def fault(
    kind: str = typer.Argument(..., help=f"One of: {', '.join(FAULTS)}."),
    seconds: float = typer.Option(0.0, help="Duration (offline) or delay (latency)."),
    at: float | None = typer.Option(None, "--at", help="Inject this many seconds from now."),
    within: float | None = typer.Option(
        None, "--within", help="Inject at a random moment within this many seconds."),
    seed: int | None = typer.Option(None, help="Seed for the random moment (--within)."),
    pin: str | None = typer.Option(None, help="screen_off: lock with this PIN."),
    adb_port: int | None = typer.Option(
        None, "--adb-port", help="adb_kill: the adb server's port (default: "
        "$ANDROID_ADB_SERVER_PORT or 5037)."),
    port: int | None = typer.Option(None, help="Port of the vphone."),
    yes: bool = typer.Option(False, "--yes", help="adb_kill: kill the adb server without "
                             "asking (needed without a terminal)."),
) -> None:
    """Inject a fault now, at a given moment (--at) or at a random one (--within): drop
    transports, go offline, add latency, crash the app, show ANR, turn the screen off
    (locked), kill the adb server.

    adb_kill kills the adb server every adb user and tool on this machine shares: it warns
    and asks first (without a terminal it needs --yes; a private server: --adb-port).

    Example: omg-agent vphone fault offline --seconds 5

    Example: omg-agent vphone fault adb_kill --within 30 --seed 7 --adb-port 5038 --yes
    """
    body: dict = {"kind": kind, "seconds": seconds, "at": at, "within": within,
                  "seed": seed, "pin": pin, "adb_port": adb_port or default_adb_port()}
    if kind == "adb_kill":
        confirm_adb_kill(body["adb_port"], yes)
    try:
        record = daemon.read_record(port)
        answer = daemon.control(record, "POST", "/fault", body)
        console.print(answer["done"])
    except OmgError as exc:
        fail(str(exc))


def confirm_adb_kill(adb_port: int, yes: bool, stdin: TextIO | None = None) -> None:
    """Warn that the adb server on ``adb_port`` is shared, then go on only on ``yes`` or a
    "y" typed at a terminal: exit 5 without a terminal (as a held action), 6 on a no."""
    stdin = stdin or sys.stdin
    err_console.print(f"warning: adb_kill kills the adb server on port {adb_port}, which every "
                      "adb user and tool on this machine shares: other users' runs, IDEs "
                      "and emulators lose their devices until it restarts.",
                      markup=False, highlight=False, soft_wrap=True)
    if yes:
        return
    if not stdin.isatty():
        fail("no terminal to ask: pass --yes to kill it (or --adb-port PORT for a private "
             "adb server)", code=EXIT_HELD)
    err_console.print("Kill it? [y/N] ", markup=False, highlight=False, end="")
    if stdin.readline().strip().lower() not in ("y", "yes"):
        fail("not killed (you said no)", code=EXIT_DECLINED)


def check_port(port: int) -> None:
    """Stop with one line if ``port`` is out of range or taken by a program other than a
    vphone (a vphone's own record is checked by :func:`daemon.spawn`)."""
    if not 1 <= port <= 65535:
        fail(f"--port {port} is not a TCP port: give 1–65535 (e.g. 5555)")
    if daemon.record_path(port).exists():
        return
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError as exc:
            fail(f"port {port} is in use ({exc.strerror or exc}): pick a free one with "
                 "--port, e.g. --port 5556")


def register(root: typer.Typer) -> None:
    """Add the ``vphone`` group to the ``omg-agent`` app."""
    root.add_typer(app, name="vphone")
