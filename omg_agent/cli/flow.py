"""``omg-agent flow run|from-trace|record|list``: flows — anchored steps replayed with no
model (see :mod:`omg_agent.flows`).

``run`` replays a flow file (ours or a Maestro file of the supported subset) on a device,
writing a trace and report like any run; ``from-trace`` turns a successful run folder into
a flow file; ``record`` builds one as you act on the phone from the terminal (taps name
elements of the listed screen and are saved as anchors); ``list`` shows the replay cache.
Exit codes of ``run``: 0 done, 1 failed, 5 waiting for a yes to a sensitive action, 7 the
phone is busy (another agent holds its lease, :mod:`omg_agent.cli.lease`; ``--wait-device``
queues). ``record`` holds the lease too.
"""

from __future__ import annotations

import json
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.markup import escape

from omg_agent.cli.console import console, err_console, fail
from omg_agent.cli.device_choice import OR_VPHONE, DeviceOpt, device_option
from omg_agent.cli.lease import WaitDeviceCommand, driving, take_lease, wait_device_option
from omg_agent.errors import OmgError

if TYPE_CHECKING:
    from omg_agent.config import Settings
    from omg_agent.flows.model import Flow
    from omg_agent.flows.replay import FlowResult

app = typer.Typer(help="Flows: anchored steps replayed with no model (YAML, Maestro subset)."
                       "\n\nExample: omg-agent flow run builtin:maestro_new_note",
                  no_args_is_help=True)
EXIT = {"done": 0, "failed": 1, "needs_confirmation": 5}


@app.command("run", cls=WaitDeviceCommand)
def run(
    spec: str = typer.Argument(..., metavar="FILE", help="A flow file (YAML), or "
                               "builtin:NAME for a flow shipped with omg-agent."),
    device: str | None = device_option(OR_VPHONE),
    driver: str = typer.Option("auto", "--driver", help="adb, u2 or auto."),
    var: list[str] = typer.Option([], "--var", help="NAME=VALUE for $NAME (repeatable)."),
    secret: list[str] = typer.Option([], "--secret", metavar="NAME=VALUE", help="A secret "
                                     "for {{secret:NAME}}: typed, never written anywhere "
                                     "(repeatable)."),
    allow: list[str] = typer.Option([], "--allow", help="Pre-authorise a sensitive class "
                                    "(payment, delete, send, …), optionally send:Bob."),
    runs_dir: Path | None = typer.Option(None, "--runs-dir", help="Where traces go."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON only."),
    wait_device: float | None = wait_device_option(),
) -> None:
    """Replay a flow file on the phone; every step is found again on the screen. The values
    it saves (memSave) are printed, and in --json. Exits 7 while another agent drives the
    phone (--wait-device queues).

    Example: omg-agent flow run builtin:like_first_posts --var count=5

    Example: omg-agent flow run my_flow.yaml --device 127.0.0.1:5555 --json
    """
    from omg_agent.cli.attach import attached_or_vphone
    from omg_agent.cli.device_choice import open_driver
    from omg_agent.flows.session import replay
    from omg_agent.guards.confirmation import TerminalChannel
    from omg_agent.trace.rundir import new_run_dir

    file, flow, variables, settings = _load(spec, var, secret, allow, runs_dir)
    confirm = TerminalChannel.from_streams(sys.stdin, sys.stderr) if sys.stdin.isatty() \
        else None
    with ExitStack() as stack:  # the phone: the one given or attached, or a vphone started here
        serial = attached_or_vphone(stack, device, settings.device_grace_s)
        lease = take_lease(serial, f"omg-agent flow run {file.name}", wait_device, stack)
        handle = open_driver(serial, driver)
        stack.callback(handle.close)
        try:
            run_dir = new_run_dir(settings.runs_dir, "flow-" + file.stem)
            if lease is not None:
                lease.note(run_dir)
            result = replay(handle, flow, settings, run_dir, variables=variables,
                            confirm=confirm)
        except OmgError as exc:
            fail(str(exc))
    from omg_agent.flows.model import saved_keys

    _print_result(result, saved_keys(flow), run_dir, as_json)
    raise typer.Exit(EXIT.get(result.status, 1))


def _load(spec: str, var: list[str], secret: list[str], allow: list[str],
          runs_dir: Path | None) -> tuple[Path, Flow, dict[str, str], Settings]:
    """The flow, its ``--var`` values and the settings; a one-line error for a bad file, a
    bad assignment or a variable the flow needs and was not given."""
    from omg_agent.config import Settings
    from omg_agent.core.secrets import parse_assignments
    from omg_agent.flows.builtin import flow_path
    from omg_agent.flows.parse import load_flow

    try:
        file = flow_path(spec)
        flow = load_flow(file)
        variables = parse_assignments(var)
        named = parse_assignments(secret)
        settings = Settings.load(overrides={"runs_dir": runs_dir, "secrets": named or None,
                                            "allow": ",".join(allow) or None})
    except (OmgError, ValueError) as exc:
        fail(str(exc) if isinstance(exc, OmgError) else f"--var / --secret: {exc}")
    missing = [v for v in flow.variables if v not in variables]
    if missing:
        fail(f"{spec} needs " + ", ".join(f"--var {m}=…" for m in missing))
    return file, flow, variables, settings


def _print_result(result: FlowResult, keys: list[str], run_dir: Path, as_json: bool) -> None:
    saved = {k: result.variables[k] for k in keys if k in result.variables}
    if as_json:
        typer.echo(json.dumps({"status": result.status, "failed": result.failed,
                               "commands": result.commands, "actions": result.actions,
                               "saved": saved, "wall_s": result.wall_s,
                               "run_dir": str(run_dir)}, ensure_ascii=False))
        return
    colour = "green" if result.ok else "red"
    console.print(f"[{colour}]{result.status}[/{colour}] {escape(result.failed)}")
    for key, value in saved.items():
        console.print(f"saved ${escape(key)} = {escape(repr(value))}", highlight=False)
    console.print(f"{result.commands} steps · {result.actions} actions · "
                  f"{result.wall_s:.1f} s · model calls 0 · trace {run_dir}")


@app.command("from-trace")
def from_trace(
    run_dir: Path = typer.Argument(..., help="A run folder that ended done."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Write here (default: print)."),
) -> None:
    """Turn a successful run into a flow file in Maestro's layout (appId, `---`, commands):
    element ids become anchors, saved values $vars, secrets placeholders.

    Example: omg-agent flow from-trace runs/20261123-0412-find-the-price -o price.yaml
    """
    from omg_agent.flows.fromtrace import flow_from_trace
    from omg_agent.flows.store import write_atomic
    from omg_agent.flows.write import dump_flow

    try:
        text = dump_flow(flow_from_trace(run_dir), maestro=True)
    except OmgError as exc:
        fail(str(exc))
    if out is None:
        typer.echo(text, nl=False)
        return
    write_atomic(out, text)
    err_console.print(f"flow written to {escape(str(out))}")


@app.command("record")
def record(
    out: Path = typer.Option(..., "--out", "-o", help="The flow file to write."),
    device: str | None = DeviceOpt,
    driver: str = typer.Option("auto", "--driver", help="adb, u2 or auto."),
) -> None:
    """Record a flow as you act on the phone from this terminal: each tap names an element
    of the listed screen and is saved as an anchor, not a coordinate. Commands piped in are
    read one a line (the end of the input is done; the screens go to stderr).

    Commands: tap N | long N | type [N] TEXT | enter | back | home | launch APP |
    scroll up|down | save KEY N | check N | done.

    Example: omg-agent flow record -o my_flow.yaml --device 127.0.0.1:5555

    Example: printf 'launch Settings\\ncheck 3\\n' | omg-agent flow record -o settings.yaml
    """
    from omg_agent.cli.device_choice import open_driver
    from omg_agent.flows.recorder_cli import record_session

    typed = sys.stdin.isatty()
    out_console = console if typed else err_console
    with driving(device, "omg-agent flow record") as serial:
        handle = open_driver(serial, driver)
        try:
            count = record_session(handle, out, input_line=_prompt if typed else _piped,
                                   show=lambda t: out_console.print(escape(t)))
        except OmgError as exc:
            fail(str(exc))
        finally:
            handle.close()
    err_console.print(f"{count} steps written to {escape(str(out))}")


def _prompt(prompt: str) -> str:
    return str(typer.prompt(prompt, default="", show_default=False))


def _piped(prompt: str) -> str:
    """The next piped command; the end of the input ends the recording."""
    line = sys.stdin.readline()
    return line.strip() if line else "done"


@app.command("list")
def list_cache(
    runs_dir: Path | None = typer.Option(None, "--runs-dir", help="Where traces go."),
) -> None:
    """List the replay cache: tasks ``run`` replays without a model.

    Example: omg-agent flow list --runs-dir runs
    """
    from omg_agent.config import Settings
    from omg_agent.flows.cache import CACHE_DIR
    from omg_agent.flows.store import FlowStore

    try:
        settings = Settings.load(overrides={"runs_dir": runs_dir})
    except OmgError as exc:
        fail(str(exc))
    for meta in FlowStore(settings.runs_dir / CACHE_DIR).entries():
        state = "retired" if meta.get("retired") else f"v{meta.get('current')}"
        console.print(f"{escape(meta.get('task_key', meta['key']))}  [{state}] hits "
                      f"{meta.get('hits', 0)} failures {meta.get('failures', 0)}")


def register(root: typer.Typer) -> None:
    """Add the ``flow`` group to the ``omg-agent`` app."""
    root.add_typer(app, name="flow")
