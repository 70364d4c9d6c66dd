"""``omg-agent run "task"``: build the brain's objects, run one task, show it live, print.

Thin, like every CLI module: it loads :class:`Settings` once, picks (or starts) the device,
builds the driver, the two model clients, the memory bank and the trace recorder, and hands
them to :class:`~omg_agent.brain.orchestrator.Orchestrator`. With no device given and none
attached it starts a vphone in this process. With no model configured it prints exactly
what to set and exits 1. ``--model sim`` runs a known vphone task (see
:mod:`omg_agent.sim.expert.sim`) against the expert double on an in-process vphone,
saying so plainly. ``ask_user`` questions are asked on the terminal when stdin is a
TTY; otherwise the run stops with status ``ask_user`` and the question.

The run holds the phone's lease (:mod:`omg_agent.cli.lease`) from before it touches the
device to its end: a second agent on the same phone is refused (exit 7), or queues with
``--wait-device``. A named device that is not listed (an adb server restarted a moment ago)
is waited for as a run waits mid-way (:func:`omg_agent.drivers.grace.await_device`).

A sensitive action is asked on the terminal with exactly what will be tapped or typed;
without a TTY the run stops with status ``needs_confirmation``. Every run saves
``state.json`` at each turn boundary (:class:`~omg_agent.brain.resume.RunCheckpoint`); a
stopped run goes on with ``--resume RUN_DIR --answer "…"``, an interrupted one (killed,
crashed, Ctrl-C, SIGTERM, SIGHUP, device lost) with ``--resume RUN_DIR`` (same plan, memory,
step count and trace; the plan re-synced with the screen). Ctrl-C ends a run with status
``interrupted`` and prints the resume command; SIGTERM and SIGHUP end it the same way
(:mod:`.ctrlc`). ``--resume`` of a run that has ended prints its result again and exits
with its code: nothing is done again. ``--dry-run`` runs everything but sends nothing to
the device, and ends with its own status ``dry_run`` (exit 0): the actions it would have
sent, in order.

Exit codes: 0 done, 1 failed (or bad setup), 2 bad usage (an ``--answer`` that is neither
yes nor no), 3 waiting for the user's answer, 4 the agent judged the task infeasible, 5
waiting for the user's yes to a sensitive action, 6 declined (the user said no), 7 the
device is busy (another agent holds its lease), 8 stopped by disk trouble (full, read-only,
the run folder deleted: status interrupted, resumable), 9 unverified (the model said done and
nothing in the run backs it: no check could look, its checks already held before the run
acted, or a pay/send/delete task carried out no such action the user allowed), 10 refused by
the disk before the run began (nothing was done, nothing to resume), 130 interrupted (Ctrl-C,
SIGTERM, SIGHUP; resumable). The code is decided by the outcome before anything is printed;
an error while printing never changes it.
"""

from __future__ import annotations

import json
import logging
import typing
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape
from rich.text import Text

from omg_agent.cli.attach import several_devices
from omg_agent.cli.console import (
    console,
    err_console,
    fail,
    print_json,
    printing_cannot_fail,
    shortened,
)
from omg_agent.cli.device_choice import OR_VPHONE, device_option
from omg_agent.cli.dryrun import print_dry
from omg_agent.cli.lease import WaitDeviceCommand, wait_device_option
from omg_agent.cli.runjob import RunJob
from omg_agent.core.secrets import parse_secret_options
from omg_agent.durable import disk_trouble
from omg_agent.errors import DiskTrouble, OmgError, RunAlreadyEnded

if TYPE_CHECKING:  # the brain imports the openai SDK, settings pydantic: only a run pays
    from omg_agent.brain.run_state import RunResult
    from omg_agent.config import Settings

log = logging.getLogger(__name__)
EXIT_CODES = {"done": 0, "failed": 1, "ask_user": 3, "infeasible": 4, "needs_confirmation": 5,
              "declined": 6, "unverified": 9, "interrupted": 130}
DISK_EXIT = 8  # interrupted because the disk refused the run's files
DISK_REFUSED_EXIT = 10  # the disk refused before the run began: nothing to resume
COLOURS = {"done": "green", "failed": "red", "ask_user": "yellow", "infeasible": "yellow",
           "needs_confirmation": "yellow", "declined": "yellow", "interrupted": "yellow",
           "unverified": "yellow"}

# `run`'s help, written for rich: one paragraph a line (rich wraps it to the terminal)
RUN_HELP = "\n\n".join((
    "Run one task on the phone and print the result.",
    "Uses the configured model (see `omg-agent config show`); with no device attached it "
    "starts a vphone. Paying, deleting, sending, installing and typing secrets wait for your "
    "yes (on the terminal; without one the run stops, resumable; a yes given with --resume "
    "carries out exactly the held action).",
    "Exit codes: 0 done, 1 failed, 2 bad usage or an answer that is neither yes nor no, 3 "
    "waiting for an answer, 4 infeasible, 5 waiting for a yes, 6 declined (the user said "
    "no), 7 device busy, 8 stopped by disk trouble (resumable), 9 unverified (no check "
    "could confirm the model's done), 10 the disk refused before the run began (nothing done), "
    "130 interrupted (Ctrl-C, SIGTERM, SIGHUP).",
    'Example: omg-agent run "find the price of MacBook Air 13 in Shop and save it in Notes"',
    'Example: omg-agent run "Turn off Wi-Fi" --model sim --json',
    'Example: omg-agent run "Turn off Wi-Fi" --model qwen2.5-vl --base-url '
    "http://localhost:8000/v1",
    'Example: omg-agent run "打开设置，关闭蓝牙" --device emulator-5554 --max-steps 30',
    'Example: omg-agent run "Sign in to Login as demo with password {{secret:pw}}" '
    "--secret pw=…",
    'Example: omg-agent run "Turn off Wi-Fi" --planning flat',
    'Example: omg-agent run "Turn off Wi-Fi" --model sim --dry-run',
    "Example: omg-agent run --resume runs/20261123-0412-buy --answer yes",
    "Example: omg-agent run --resume runs/20261123-0412-like-the-first-10-posts",
    'Example: omg-agent run "type the code from Messages into the app" --device '
    "phone=emulator-5554 --device desktop=local",
    "One agent drives a phone at a time: while another holds it, this exits 7 naming it "
    "(command, pid, run folder); --wait-device queues instead.",
))

# -- the options (typer reads them from the signature's defaults) ----------------------------
_TASK = typer.Argument(None, help="What to do, in plain language.")
_DEVICE = device_option(
    f"{OR_VPHONE} desktop or desktop=:99 drives an X display (desktop=:99,ocr: by OCR "
    "only, not its accessibility tree). Twice or more for a task "
    "across devices: --device phone=SERIAL --device desktop=local (each plan step names its "
    "device).", default=[])
_DRIVER = typer.Option("auto", "--driver", help="adb, u2 or auto.")
_MAX_STEPS = typer.Option(None, "--max-steps", help="Step budget.")
_PLAN = typer.Option(None, "--plan", help="A predefined plan (YAML).")
_JSON = typer.Option(False, "--json", help="Print the result as JSON only.")
_MODEL = typer.Option(None, "--model", help="Model name for both roles ('sim': the double).")
_BASE_URL = typer.Option(
    None, "--base-url", help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1 "
    "(default: OMG_BASE_URL, else OpenAI's API).")
_API_KEY = typer.Option(
    None, "--api-key", help="Key for the endpoint. Prefer OMG_API_KEY: other users of this "
    "machine can read a command line. Never written to the trace or logs.")
_RUNS_DIR = typer.Option(None, "--runs-dir", help="Where traces go.")
_SECRET = typer.Option(
    [], "--secret", metavar="NAME=VALUE", help="A secret the task uses as {{secret:NAME}}; "
    "the model and every file see only the placeholder (repeatable; names ignore case). It "
    "is typed only into a password field of the app the task names; NAME@APP:FIELD=VALUE (or "
    "NAME@APP:FIELD for a secret given elsewhere) binds it to that app's field. Prefer "
    "OMG_SECRET_NAME: other users of this machine can read a command line (process "
    "list), and your shell keeps it in its history.")
_ALLOW = typer.Option(
    [], "--allow", help="Pre-authorise a sensitive class (payment, delete, send, install, "
    "permission, secret_entry, account_security), optionally for a whole name or number: "
    "send:Bob. A payment may carry a limit: payment:<=100, payment:Shop<=¥100, payment:<5 "
    "(strictly less), payment:¥100 (at most that); above it, in another currency or with no "
    "amount on the screen, the gate asks. Repeatable; everything else asks first.")
_RESUME = typer.Option(None, "--resume", metavar="RUN_DIR", help="A run folder to go on "
                       "with: an interrupted run (killed, Ctrl-C), or one that stopped for an "
                       "answer or a confirmation.")
_ANSWER = typer.Option(None, "--answer", help="With --resume: the answer to its question, "
                       "or yes / no to its held action.")
_DRY_RUN = typer.Option(False, "--dry-run", help="Run the whole agent but send nothing to "
                        "the device; ends with status dry_run (exit 0) and the actions it "
                        "would have sent.")
_DIALECT = typer.Option(None, "--dialect", help="The operator model's format: auto, json, "
                        "autoglm, uitars, qwen-mobile (default auto: from the model's name, "
                        "else json).")
_VISION = typer.Option(None, "--vision", help="When the operator model sees the screenshot: "
                       "auto (default: when it adds to the element list), always, never "
                       "(OMG_VISION).")
_PLANNING = typer.Option(
    None, "--planning", metavar="MODE", help="Who plans (OMG_PLANNING): unified (default: "
    "the operator keeps its own checklist; the planner only once a step failed), adaptive "
    "(plan once, again after a failure or an answer), replan-each (again after every step) "
    "or flat (no planner, one action per model call).")
_TIMEOUT = typer.Option(None, "--timeout", metavar="SECONDS", min=0.001, help="Deadline of "
                        "the run in seconds: past it the run stops at the next step (status "
                        "failed, saying so).")
_NO_MACROS = typer.Option(False, "--no-macros", help="Never offer the operator a macro for "
                          "repeated work (batched taps with checkpoints).")
_NO_CACHE = typer.Option(False, "--no-cache", help="Do not replay a flow cached from an "
                         "earlier run of this task (and cache nothing).")
_MIRROR = typer.Option(False, "--mirror", help="Show the phone live in a browser (127.0.0.1, "
                       "one-time link): watch, drive, answer questions and approve sensitive "
                       "actions there or on the terminal.")
_MIRROR_PORT = typer.Option(None, "--mirror-port", min=0, max=65535, help="The mirror's port "
                            "(0: any free one); implies --mirror.")


def run(task: str | None = _TASK, devices: list[str] = _DEVICE, driver: str = _DRIVER,
        max_steps: int | None = _MAX_STEPS, plan: Path | None = _PLAN,
        as_json: bool = _JSON, model: str | None = _MODEL, base_url: str | None = _BASE_URL,
        api_key: str | None = _API_KEY, runs_dir: Path | None = _RUNS_DIR,
        secret: list[str] = _SECRET, allow: list[str] = _ALLOW,
        resume: Path | None = _RESUME, answer: str | None = _ANSWER,
        dry_run: bool = _DRY_RUN, dialect: str | None = _DIALECT,
        vision: str | None = _VISION, planning: str | None = _PLANNING,
        timeout: float | None = _TIMEOUT, no_macros: bool = _NO_MACROS,
        no_cache: bool = _NO_CACHE, mirror: bool = _MIRROR,
        mirror_port: int | None = _MIRROR_PORT,
        wait_device: float | None = wait_device_option()) -> None:
    """Run one task on the phone and print the result (help: :data:`RUN_HELP`)."""
    mirror = mirror or mirror_port is not None
    several = several_devices(devices)
    device = next(iter(several_devices(devices, 1).values()), None) if not several else None
    _check_usage(task, resume, answer, planning)
    sim = None
    if model == "sim":
        sim = _simulated(task, resume, device)
        if isinstance(sim, str):  # the endpoint of the `sim serve` driving that device
            base_url, sim = sim, None
        else:
            model, device = None, "vphone"
    settings = _settings(sim is not None, {
        "max_steps": max_steps, "device": device, "model": model, "runs_dir": runs_dir,
        "base_url": base_url, "api_key": api_key, **_secrets(secret),
        "allow": ",".join(allow) or None, "run_timeout_s": timeout, "dialect": dialect,
        "vision": vision, "planning": planning})
    if driver not in ("adb", "u2", "auto"):
        fail(f"unknown driver {driver!r}: choose adb, u2 or auto")
    job = RunJob(settings, driver, as_json, dry_run)
    if several:
        if resume is not None or dry_run or mirror:
            fail("a run across devices cannot --resume, --dry-run or --mirror yet")
        job.devices, no_cache, no_macros = several, True, True  # both are phone-only
    job.use_cache = not (no_cache or dry_run)
    job.use_macros = not (no_macros or dry_run)  # a macro talks to the shell: never dry
    job.mirror, job.mirror_port, job.wait_device = mirror, mirror_port or 0, wait_device
    result, run_dir = _carried_out(job, task, plan, sim, resume, answer)
    if dry_run:  # its own ending: what would have been sent, never a loop or a resume
        with printing_cannot_fail():
            print_dry(result, job.planned, run_dir, as_json)
        raise typer.Exit(0)
    code = DISK_EXIT if result.status == "interrupted" and job.disk is not None \
        else EXIT_CODES.get(result.status, 1)  # decided before anything is printed
    with printing_cannot_fail():
        _print_result(result, run_dir, as_json, simulated=sim is not None or model == "sim",
                      disk=job.disk)
    raise typer.Exit(code)


def _check_usage(task: str | None, resume: Path | None, answer: str | None,
                 planning: str | None) -> None:
    """One line naming what is wrong with the command line, before anything is touched."""
    if (resume is None) == (task is None):
        fail("give either a task or --resume RUN_DIR, not both")
    if task is not None and not task.strip():
        fail("the task is empty: say what to do, e.g. omg-agent run \"open Settings\"")
    if task is not None:
        from omg_agent.brain.agent import check_task

        try:
            check_task(task)  # before anything prints it or a device is touched
        except OmgError as exc:
            fail(str(exc))
    if answer is not None and resume is None:
        fail("--answer goes with --resume RUN_DIR")
    if answer is not None:
        from omg_agent.brain.agent import check_text

        try:
            check_text(answer, "the answer")
        except OmgError as exc:
            fail(str(exc), code=2)
    if planning is not None:
        from omg_agent.config import Settings

        modes = typing.get_args(Settings.model_fields["planning"].annotation)  # OMG_PLANNING's
        if planning not in modes:
            fail(f"--planning {planning!r}: choose {', '.join(modes[:-1])} or {modes[-1]}",
                 code=2)


def _simulated(task: str | None, resume: Path | None, device: str | None) -> Any:
    """The known vphone task ``--model sim`` runs against the expert double on a vphone it
    starts, or, with ``--device``, the endpoint of the ``sim serve`` driving that device."""
    from omg_agent.sim.expert.sim import sim_task, unknown_goal_message

    sim = sim_task(task or "")
    if sim is None or resume is not None:
        fail(unknown_goal_message(task or "") if sim is None else
             "--model sim runs an in-process vphone that is gone after the run: it "
             "cannot be resumed")
    if device not in (None, "vphone"):
        from omg_agent.sim.serve import served_for

        url = served_for(str(device))
        if url is None:
            fail(f"--model sim on {device}: no `omg-agent sim serve` drives it; start one "
                 "(it prints its vphone's serial) or drop --device")
        return url
    return sim


def _secrets(secret: list[str]) -> dict[str, Any]:
    """The settings ``--secret`` gives: values and where each may be typed."""
    try:
        values, bound = parse_secret_options(secret)
    except ValueError as exc:
        fail(f"--secret: {exc}")
    return {"secrets": values or None,
            "bound_secrets": {n: str(b) for n, b in bound.items()} or None}


def _settings(simulated: bool, overrides: dict[str, Any]) -> Settings:
    """The settings with the command line's overrides; without a model: what to set."""
    from omg_agent.cli.config import terminal_confirm
    from omg_agent.config import Settings
    from omg_agent.errors import UnsafeSetting

    try:
        settings = Settings.load(overrides=overrides, confirm=terminal_confirm())
    except OmgError as exc:  # a file that would lower safety: refused like a bad option
        fail(str(exc), code=2 if isinstance(exc, UnsafeSetting) else 1)
    if not simulated and not settings.model_configured:
        err_console.print(settings.missing_model_help())
        raise typer.Exit(1)
    return settings


def _carried_out(job: RunJob, task: str | None, plan: Path | None, sim: Any,
                 resume: Path | None, answer: str | None) -> tuple[RunResult, Path]:
    """The run started (or resumed) and its result; a setup error exits with one line."""
    try:
        if resume is not None:
            return job.resume(resume, answer)
        return job.start(task or "", plan, sim)
    except RunAlreadyEnded as exc:
        _ended_again(exc, job.as_json)
    except DiskTrouble as exc:
        _disk_refused(str(exc), resume)
    except OmgError as exc:
        fail(str(exc))
    except OSError as exc:  # the disk refused the run's folder before the run began
        if not disk_trouble(exc):
            raise
        _disk_refused(str(DiskTrouble(exc)), resume)


def _disk_refused(why: str, resume: Path | None) -> typing.NoReturn:
    """The disk refused before the run began: a resumed run is still resumable (exit 8);
    a new one has no state to resume, so it is a refusal of its own (exit 10)."""
    if resume is not None:
        fail(f"{why}: nothing was done; free some space (or make the folder writable), then "
             f"go on with `omg-agent run --resume {resume}`", code=DISK_EXIT)
    fail(f"{why}: nothing was done; free some space (or make the folder writable), then run "
         "the task", code=DISK_REFUSED_EXIT)


def _ended_again(ended: RunAlreadyEnded, as_json: bool) -> typing.NoReturn:
    """``--resume`` of a run that has ended: its result again, with its status's exit code
    (a supervisor that lost the code asks again); nothing is done on the phone."""
    from omg_agent.brain.run_state import phase_status
    from omg_agent.trace.recorder import RESULT_FILE

    try:
        saved = json.loads((Path(ended.run_dir) / RESULT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        saved = {}
    saved = saved if isinstance(saved, dict) else {}
    status = str(saved.get("status") or "")
    if status not in EXIT_CODES:
        status = phase_status(ended.phase)
    code = EXIT_CODES[status]
    with printing_cannot_fail():
        if as_json:
            print_json({**saved, "status": status, "run_dir": ended.run_dir,
                        "already_ended": True})
        else:
            answer = str(saved.get("answer") or "").strip()
            console.print(Text.assemble((status, COLOURS.get(status, "red")),
                                        *((": ", answer) if answer else ())))
            report = (saved.get("summary") or {}).get("stop_report") \
                if isinstance(saved.get("summary"), dict) else None
            if report:
                console.print(Text("\n".join(shortened(line, 2_000)
                                             for line in str(report).splitlines())))
            err_console.print(Text(f"{ended}: this is its result (trace {ended.run_dir})"),
                              soft_wrap=True)
    raise typer.Exit(code)


def _print_result(result: RunResult, run_dir: Path, as_json: bool,
                  simulated: bool = False, disk: OSError | None = None) -> None:
    from omg_agent.trace.summary import RunOutput, run_output

    # report.html is optional: not written on a disk that already refused the trace
    out = run_output(run_dir) if disk is None else RunOutput(None, None)
    if as_json:  # "simulated": the model's answers came from the expert double (--model sim)
        trouble = {"disk_error": str(DiskTrouble(disk))} if disk is not None else {}
        print_json({**result.as_dict(), **out.json_keys(result), "run_dir": str(run_dir),
                    "simulated": simulated, **trouble})
        return
    if disk is not None and result.status != "interrupted":  # the stop said it already
        err_console.print(f"[yellow]warning:[/yellow] {escape(str(DiskTrouble(disk)))}: the "
                          "run's trace and result are not complete on disk", soft_wrap=True)
    colour = COLOURS.get(result.status, "red")
    # plain Text: a model's or a user's words are neither markup nor highlighted (console)
    console.print(Text.assemble((result.status, colour), *((": ", result.answer)
                                                          if result.answer else ())))
    if result.question:
        console.print(Text(f"question: {result.question}"))
    console.print(Text("\n".join(shortened(line, 2_000)
                                 for line in result.summary().splitlines())))
    for line in out.lines(result, f"{result.wall_s:.1f} s · trace {run_dir}"):
        console.print(Text(line), soft_wrap=True)


def register(root: typer.Typer) -> None:
    """Add the ``run`` command to the ``omg-agent`` app."""
    root.command(name="run", cls=WaitDeviceCommand, help=RUN_HELP)(run)
