"""``omg-agent fleet …``: many tasks on many devices, in a local pool or on Ray.

Thin: parse options, build the backend and the jobs (:mod:`omg_agent.fleet`), print.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from omg_agent.cli.console import err_console, fail
from omg_agent.cli.device_choice import device_option
from omg_agent.errors import OmgError

app = typer.Typer(help="Run many tasks on many devices: a local pool, or Ray across hosts.\n\n"
                       "Example: omg-agent fleet run TASKS.yaml --vphones 2",
                  no_args_is_help=True)
DEFAULT_OUT = Path("runs/fleet")
_POOL_DEVICE = device_option("Local pool: repeatable; SERIAL@HOST:PORT for one on a remote "
                             "adb server.", default=[])
_OFFER_DEVICE = device_option("Offer only these (repeatable; default: your own phones and "
                              "those whose owner cannot be told).", default=[])


def fleet_line(print_line: Any) -> Any:
    """A per-task callback printing one line: task, device, outcome, attempts."""
    def on_run(count: int, total: int, r: dict[str, Any]) -> None:
        mark = "[green]✔[/green]" if r["success"] else "[red]✘[/red]"
        tries = len(r.get("attempts", []))
        print_line(f"[{count}/{total}] {escape(r['task_id'])} on {escape(r['device'] or '-')}"
                   f" {mark} {escape(r['status'])}" + (f" · {tries} attempts" if tries > 1
                                                         else "")
                   + (f" · {escape(r['error'])}" if r.get("error") else ""))
    return on_run


def open_backend(ray: str | None, devices: list[str], vphones: int, out: Path,
                 jobs: Any = ()) -> Any:
    """The Ray backend on the cluster at ``ray``, else a local pool over the devices; a job
    of ``jobs`` no device of the local pool could run is refused before any is asked."""
    if ray is not None:
        from omg_agent.fleet.ray_backend import RayBackend

        return RayBackend(ray)
    from omg_agent.fleet.devices import local_devices
    from omg_agent.fleet.local_backend import LocalBackend
    from omg_agent.fleet.preflight import check_jobs

    chosen = local_devices(devices, vphones)
    if not chosen:
        fail("no devices: give --device SERIAL (repeatable) and/or --vphones N, or --ray")
    check_jobs(jobs, chosen, census=False)
    return LocalBackend(chosen, out)


@app.command()
def run(
    tasks_file: Path = typer.Argument(..., help="TASKS.yaml (see docs/guide/fleet.md)."),
    ray: str | None = typer.Option(None, "--ray", help="Run on the Ray cluster at this "
                                   "address ('auto': the one this machine joined)."),
    device: list[str] = _POOL_DEVICE,
    vphones: int = typer.Option(0, "--vphones", min=0, max=64,
                                help="Local pool: vphone slots for suite: tasks."),
    model: str | None = typer.Option(None, "--model", help="In place of the file's model: "
                                     "'sim', an endpoint URL or a model name."),
    out: Path | None = typer.Option(None, "--out", help="Output folder (default "
                                    "runs/fleet/TIMESTAMP)."),
    as_json: bool = typer.Option(False, "--json", help="Print the records as JSON."),
    allow: list[str] = typer.Option([], "--allow", help="Pre-authorise a sensitive class "
                                    "(payment, delete, send, …; as for run) for the goals "
                                    "of the file: permissions written in the file grant "
                                    "nothing."),
) -> None:
    """Run every task of TASKS.yaml, each on a free device that fits it; a task whose device
    drops or whose worker dies is retried once on another. A phone named twice is used
    once; a phone another agent drives is not used. Exit 1 unless every task is done. A
    goal's words ("you may pay") grant nothing: only --allow does.

    Every task is checked before any device is used: one that is malformed, needs a model
    the file lacks, or that no device of the pool could run stops the fleet in one line
    naming it. Results: fleet.json, and index.html linking every run's report.

    Example: omg-agent fleet run tasks.yaml --vphones 2

    Example: omg-agent fleet run tasks.yaml --ray auto
    """
    from omg_agent.cli.bench_runs import out_dir, refuse_busy_out
    from omg_agent.fleet.jobs import file_jobs
    from omg_agent.fleet.preflight import check_jobs
    from omg_agent.fleet.scheduler import run_fleet
    from omg_agent.fleet.taskfile import load_tasks_file

    refuse_busy_out(out, DEFAULT_OUT)
    try:
        spec = load_tasks_file(tasks_file)
        folder = out_dir(out, DEFAULT_OUT)
        jobs = file_jobs(spec, folder, model, allow=_allow(allow))
        backend = open_backend(ray, device, vphones, folder, jobs)
    except OmgError as exc:
        fail(str(exc))
    with backend:
        try:
            check_jobs(jobs, backend.devices())  # their census: profiles and apps
        except OmgError as exc:
            fail(str(exc))
        err_console.print(f"{len(jobs)} tasks on {len(backend.devices())} devices "
                          f"({backend.name}) → {folder}", highlight=False)
        result = run_fleet(jobs, backend, folder,
                           fleet_line(lambda s: err_console.print(s, highlight=False)))
    _report(result, folder, as_json)


def _report(result: Any, folder: Path, as_json: bool) -> None:
    """fleet.json, the notes, and the records (JSON) or one summary line; exit 1 unless
    every task is done."""
    from omg_agent.durable import write_atomic
    from omg_agent.fleet.index import write_index

    counts = result.tally()
    write_atomic(folder / "fleet.json", json.dumps(  # whole or not at all, as every record
        {"backend": result.backend, "wall_s": result.wall_s, "summary": counts,
         "notes": result.notes, "records": result.records},
        ensure_ascii=False, indent=1, default=str))
    index = write_index(folder, result.records, counts)
    for note in result.notes:
        err_console.print(f"note: {escape(note)}", highlight=False)
    if as_json:
        typer.echo(json.dumps(result.records, ensure_ascii=False, indent=1, default=str))
    else:
        typer.echo(f"{counts['done']} done, {counts['failed']} failed, "
                   f"{counts['never_started']} never started of {len(result.records)} tasks "
                   f"in {result.wall_s:.1f} s on {len(result.devices)} devices "
                   f"({result.backend}); results: {folder / 'fleet.json'}, {index}")
    if counts["done"] != len(result.records):
        raise typer.Exit(1)


def _allow(items: list[str]) -> str | None:
    """The --allow items, checked (one line naming what is accepted when one is bad)."""
    if not items:
        return None
    from omg_agent.guards.authorisation import parse_allow

    try:
        parse_allow(items)
    except ValueError as exc:
        fail(f"--allow: {exc}")
    return ",".join(items)


@app.command()
def resources(
    vphones: int = typer.Option(0, "--vphones", min=0, max=64,
                                help="Also offer this many vphone slots (suite tasks)."),
    device: list[str] = _OFFER_DEVICE,
    host: str | None = typer.Option(None, "--adb-host", "-H", metavar="HOST",
                                    help="A remote adb server's host (as adb -H)."),
    port: int | None = typer.Option(None, "--adb-port", "-P", metavar="PORT",
                                    help="The adb server's port (as adb -P; default 5037)."),
    no_adb: bool = typer.Option(False, "--no-adb", help="Offer only the vphone slots."),
) -> None:
    """Print this node's devices as Ray custom resources (JSON), for
    `ray start --resources "$(omg-agent fleet resources)"`.

    The local adb server serves every user of this machine: of the phones it sees, this
    offers yours (a vphone or emulator your processes serve) and those whose owner cannot
    be told (USB), and names the others' with their users on stderr. On a remote adb server
    (--adb-host) it offers every phone.

    Example: omg-agent fleet resources --vphones 2 --adb-host 10.0.0.5 --adb-port 5037

    Example: omg-agent fleet resources --device emulator-5554
    """
    from adbutils.errors import AdbError

    from omg_agent.fleet.devices import local_devices, resources_json, seen_by_adb

    try:
        serials = device or ([] if no_adb else seen_by_adb(host, port))
        if not device and host is None:
            serials = _own_phones(serials)
        typer.echo(resources_json(local_devices(serials, vphones)))
    except (OmgError, OSError, AdbError) as exc:
        fail(f"cannot list the adb server's devices: {exc}")


def _own_phones(serials: list[str]) -> list[str]:
    """This user's phones and those of no known owner; a note on stderr for each kind."""
    from omg_agent.fleet.owners import split_by_owner

    mine, unknown, others = split_by_owner(serials)
    if unknown:
        err_console.print("note: owner unknown (USB or another host), offered: "
                          + ", ".join(unknown), markup=False, highlight=False)
    if others:
        err_console.print("note: other users' phones, not offered (name one with --device "
                          "to offer it): " + ", ".join(f"{s} ({u})" for s, u in others.items()),
                          markup=False, highlight=False)
    return [s for s in serials if s in mine or s in unknown]


def suite_on_ray(plan: Any, folder: Path, address: str, on_run: Any) -> Any:
    """``bench suite --ray ADDRESS``: the suite's jobs on the cluster's vphone slots."""
    from omg_agent.fleet.jobs import suite_on_fleet
    from omg_agent.fleet.ray_backend import RayBackend

    try:
        backend = RayBackend(address)
    except OmgError as exc:
        fail(str(exc))
    with backend:
        run, _ = suite_on_fleet(plan, folder, backend, on_run)
    return run


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="fleet")
