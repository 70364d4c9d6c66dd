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
crashed, Ctrl-C, device lost) with ``--resume RUN_DIR`` (same plan, memory, step count and
trace; the plan re-synced with the screen). Ctrl-C ends a run with status ``interrupted``
and prints the resume command. ``--dry-run`` runs everything but sends nothing to the device.

Exit codes: 0 done, 1 failed (or bad setup), 2 bad usage (an ``--answer`` that is neither
yes nor no), 3 waiting for the user's answer, 4 the agent judged the task infeasible, 5
waiting for the user's yes to a sensitive action, 6 declined (the user said no), 7 the
device is busy (another agent holds its lease), 8 stopped by disk trouble (full, read-only,
the run folder deleted: status interrupted, resumable), 9 unverified (a phone model alone
said done and nothing could check it), 130 interrupted (Ctrl-C; resumable). The code is
decided by the outcome before anything is printed; an error while printing never changes
it.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Group
from rich.live import Live
from rich.markup import escape
from rich.panel import Panel
from rich.text import Text

from omg_agent.cli.console import (
    console,
    err_console,
    fail,
    print_json,
    printing_cannot_fail,
    shortened,
    symbol,
)
from omg_agent.cli.ctrlc import CtrlC
from omg_agent.cli.lease import WaitDeviceCommand, take_lease, wait_device_option
from omg_agent.core.secrets import SecretVault, asks_for_secret, parse_assignments
from omg_agent.durable import disk_trouble
from omg_agent.errors import DiskTrouble, OmgError

if TYPE_CHECKING:  # the brain imports the openai SDK, settings pydantic: only a run pays
    from omg_agent.brain.orchestrator import Orchestrator, Progress, RunResult
    from omg_agent.config import Settings
    from omg_agent.drivers.base import Driver
    from omg_agent.drivers.desktop.router import DeviceRouter
    from omg_agent.guards.confirmation import ConfirmationChannel, TerminalChannel

log = logging.getLogger(__name__)
EXIT_CODES = {"done": 0, "failed": 1, "ask_user": 3, "infeasible": 4, "needs_confirmation": 5,
              "declined": 6, "unverified": 9, "interrupted": 130}
DISK_EXIT = 8  # interrupted because the disk refused the run's files
COLOURS = {"done": "green", "failed": "red", "ask_user": "yellow", "infeasible": "yellow",
           "needs_confirmation": "yellow", "declined": "yellow", "interrupted": "yellow",
           "unverified": "yellow"}


class _Planning:
    """The first frame, "planning… 12 s": it counts while the planner model thinks."""

    def __init__(self) -> None:
        self.started = time.monotonic()

    def __rich__(self) -> Text:
        return Text(f"planning… {time.monotonic() - self.started:.0f} s")


class LiveView:
    """The rich live display: plan with ticks, step, last action, step/budget, tokens, and
    the model client's retry notices."""

    def __init__(self, task: str) -> None:
        self.task = shortened(" ".join(task.split()), 80)  # the frame's title: one line
        self.frame: Any = _Planning()
        self.live = Live(self.frame, console=console, refresh_per_second=8,
                         transient=False)

    def __enter__(self) -> LiveView:
        self.live.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.live.stop()
        if not console.is_terminal:  # a terminal ends the last frame's line; a pipe does not
            console.print()

    def update(self, p: Progress) -> None:
        todo = Text("\n".join(shortened(line) for line in p.todo.replace(
            "- [x]", symbol("✔", "[x]")).replace("- [ ]", symbol("○", "[ ]")).splitlines())
                    or "(no plan yet)")
        status = Text(f"{p.phase} · step {p.steps_used}/{p.steps_limit} · tokens "
                      f"{p.tokens_in:,} in / {p.tokens_out:,} out", style="bold")
        body = Group(todo, Text(f"now: {shortened(p.step)}", style="cyan"),
                     Text(f"last: {p.last_action or '-'}", style="dim"), status)
        self.frame = Panel(body, title=Text(self.task), border_style="blue")
        self.live.update(self.frame)  # a retry notice shown under the last frame goes

    def notice(self, text: str) -> None:
        """A retry notice from a model client, shown under the frame until the next turn
        (on a pipe, which gets no live frames, as a line of its own)."""
        line = Text(f"{symbol('⚠', '!')} {text}", style="yellow")
        if not console.is_terminal:
            console.print(line)
            return
        self.live.update(Group(self.frame, line))

    def confirm_channel(self) -> TerminalChannel:
        """The gate's questions on this terminal (the live view paused while asking)."""
        def read(prompt: str) -> str | None:
            self.live.stop()
            try:
                return typer.prompt(prompt, default="", show_default=False)
            except (EOFError, typer.Abort):
                return None
            finally:
                self.live.start()

        from omg_agent.guards.confirmation import TerminalChannel

        return TerminalChannel(read, lambda text: console.print(Text(text)))

    def ask(self, question: str) -> str | None:
        self.live.stop()
        try:
            # an answer about a password, code or PIN is not echoed on the terminal
            answer = typer.prompt(f"The agent asks: {question}\nYour answer (empty: stop)",
                                  default="", show_default=False,
                                  hide_input=asks_for_secret(question))
        finally:
            self.live.start()
        return answer.strip() or None


def _several_devices(values: list[str], least: int = 2) -> dict[str, str]:
    """Named devices when ``--device`` was given ``least`` times or more (else ``{}``)."""
    if len(values) < least:
        return {}
    from omg_agent.drivers.desktop.router import parse_devices

    try:
        return parse_devices(values)
    except OmgError as exc:
        fail(str(exc))


def attached_or_vphone(stack: ExitStack, device: str | None, grace_s: float = 0.0) -> str:
    """The serial to drive: the one given, the only one attached, or a vphone started here.
    A device given but not listed is waited for up to ``grace_s`` seconds (the adb server
    restarted, a TCP device to connect again), as a run waits for it mid-way."""
    import adbutils

    from omg_agent.cli.device import pick_serial
    from omg_agent.drivers.desktop import is_desktop
    from omg_agent.vphone import adbhost

    if is_desktop(device):  # a desktop, not an adb serial (drivers.select opens it)
        return str(device)
    client = adbutils.AdbClient()
    if device and device != "vphone":
        _await(client, device, grace_s)
    if device != "vphone":
        try:
            attached = [d.serial for d in client.device_list()]
        except adbutils.AdbError as exc:
            fail(f"adb server not reachable ({exc}); run `adb start-server`")
        if device or attached:
            return pick_serial(client, device)
    from omg_agent.vphone.phone import VirtualPhone

    phone = VirtualPhone()
    stack.callback(phone.close)
    server = phone.serve()
    serial = adbhost.connect("127.0.0.1", server.port)
    stack.callback(adbhost.disconnect, serial)
    err_console.print(f"no device given: started a vphone as {serial}")
    return serial


def _await(client: Any, serial: str, grace_s: float) -> bool:
    """Whether ``serial`` is attached, after riding out a restarting adb server."""
    from omg_agent.drivers.grace import await_device

    return await_device(client, serial, grace_s, on_wait=lambda text: err_console.print(
        escape(text), soft_wrap=True, highlight=False))


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


def run(
    task: str | None = typer.Argument(None, help="What to do, in plain language."),
    devices: list[str] = typer.Option(
        [], "--device", "-s", help="adb serial, 'vphone' to start one, or desktop / "
        "desktop=:99 (an X display). Twice or more for a task across devices: "
        "--device phone=SERIAL --device desktop=local (each plan step names its device)."),
    driver: str = typer.Option("auto", "--driver", help="adb, u2 or auto."),
    max_steps: int | None = typer.Option(None, "--max-steps", help="Step budget."),
    plan: Path | None = typer.Option(None, "--plan", help="A predefined plan (YAML)."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON only."),
    model: str | None = typer.Option(None, "--model",
                                     help="Model name for both roles ('sim': the double)."),
    base_url: str | None = typer.Option(
        None, "--base-url", help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1 "
        "(default: OMG_BASE_URL, else OpenAI's API)."),
    api_key: str | None = typer.Option(
        None, "--api-key", help="Key for the endpoint. Prefer OMG_API_KEY: other users of "
        "this machine can read a command line. Never written to the trace or logs."),
    runs_dir: Path | None = typer.Option(None, "--runs-dir", help="Where traces go."),
    secret: list[str] = typer.Option(
        [], "--secret", help="NAME=VALUE: a secret the task uses as {{secret:NAME}}; the "
                             "model and every file see only the placeholder (repeatable; "
                             "names ignore case). Prefer OMG_SECRET_<NAME>: other users of "
                             "this machine can read a command line (process list), and "
                             "your shell keeps it in its history."),
    allow: list[str] = typer.Option(
        [], "--allow", help="Pre-authorise a sensitive class (payment, delete, send, install, "
                            "permission, secret_entry, account_security), optionally for a "
                            "whole name or number: send:Bob. A payment may carry a limit: "
                            "payment:<=100, payment:Shop<=¥100, payment:<5 (strictly less), "
                            "payment:¥100 (at most that); above it, in another currency or "
                            "with no amount on the screen, the gate asks. Repeatable; "
                            "everything else asks first."),
    resume: Path | None = typer.Option(None, "--resume", help="A run folder to go on with: "
                                       "an interrupted run (killed, Ctrl-C), or one that "
                                       "stopped for an answer or a confirmation."),
    answer: str | None = typer.Option(None, "--answer", help="With --resume: the answer to "
                                      "its question, or yes / no to its held action."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Run the whole agent but send "
                                 "nothing to the device; print what would have happened."),
    dialect: str | None = typer.Option(None, "--dialect", help="The operator model's "
                                       "format: auto, json, autoglm, uitars, qwen-mobile "
                                       "(default auto: from the model's name, else json)."),
    vision: str | None = typer.Option(None, "--vision", help="When the operator model sees "
                                      "the screenshot: auto (default: when it adds to the "
                                      "element list), always, never (OMG_VISION)."),
    timeout: float | None = typer.Option(
        None, "--timeout", min=0.001, help="Deadline of the run in seconds: past it the run "
        "stops at the next step (status failed, saying so)."),
    no_macros: bool = typer.Option(False, "--no-macros", help="Never offer the operator a "
                                   "macro for repeated work (batched taps with checkpoints)."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not replay a flow cached "
                                  "from an earlier run of this task (and cache nothing)."),
    mirror: bool = typer.Option(False, "--mirror", help="Show the phone live in a browser "
                                "(127.0.0.1, one-time link): watch, drive, answer questions "
                                "and approve sensitive actions there or on the terminal."),
    wait_device: float | None = wait_device_option(),
) -> None:
    """Run one task on the phone and print the result.

    Uses the configured model (see `omg-agent config show`); with no device attached it
    starts a vphone. Paying, deleting, sending, installing and typing secrets wait for your
    yes (on the terminal; without one the run stops, resumable; a yes given with --resume
    carries out exactly the held action). Exit codes: 0 done, 1 failed, 2 bad usage or an
    answer that is neither yes nor no, 3 waiting for an answer, 4 infeasible, 5 waiting for
    a yes, 6 declined (the user said no), 7 device busy, 8 stopped by disk trouble
    (resumable), 9 unverified (no check could confirm the model's done), 130 interrupted.

    Example: omg-agent run "find the price of MacBook Air 13 in Shop and save it in Notes"

    Example: omg-agent run "Turn off Wi-Fi" --model sim --json

    Example: omg-agent run "Turn off Wi-Fi" --model qwen2.5-vl --base-url http://localhost:8000/v1

    Example: omg-agent run "打开设置，关闭蓝牙" --device emulator-5554 --max-steps 30

    Example: omg-agent run "Sign in to Login as demo with password {{secret:pw}}" --secret pw=…

    Example: omg-agent run --resume runs/20261123-0412-buy --answer yes

    Example: omg-agent run --resume runs/20261123-0412-like-the-first-10-posts

    Example: omg-agent run "type the code from Messages into the app" --device
    phone=emulator-5554 --device desktop=local

    One agent drives a phone at a time: while another holds it, this exits 7 naming it
    (command, pid, run folder); --wait-device queues instead.
    """
    several = _several_devices(devices)
    device = next(iter(_several_devices(devices, 1).values()), None) if not several else None
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
    sim = None
    if model == "sim":
        from omg_agent.sim.expert.sim import sim_task, unknown_goal_message

        sim = sim_task(task or "")
        if sim is None or resume is not None:
            fail(unknown_goal_message(task or "") if sim is None else
                 "--model sim runs an in-process vphone that is gone after the run: it "
                 "cannot be resumed")
        if device not in (None, "vphone"):
            fail("--model sim drives an in-process vphone only: drop --device")
        model, device = None, "vphone"
    try:
        named = parse_assignments(secret)
    except ValueError as exc:
        fail(f"--secret: {exc}")
    from omg_agent.config import Settings

    try:
        settings = Settings.load(overrides={"max_steps": max_steps, "device": device,
                                            "model": model, "runs_dir": runs_dir,
                                            "base_url": base_url, "api_key": api_key,
                                            "secrets": named or None,
                                            "allow": ",".join(allow) or None,
                                            "run_timeout_s": timeout, "dialect": dialect,
                                            "vision": vision})
    except OmgError as exc:
        fail(str(exc))
    if sim is None and not settings.model_configured:
        err_console.print(settings.missing_model_help())
        raise typer.Exit(1)
    if driver not in ("adb", "u2", "auto"):
        fail(f"unknown driver {driver!r}: choose adb, u2 or auto")
    job = RunJob(settings, driver, as_json, dry_run)
    if several:
        if resume is not None or dry_run or mirror:
            fail("a run across devices cannot --resume, --dry-run or --mirror yet")
        job.devices, no_cache, no_macros = several, True, True  # both are phone-only
    job.use_cache = not (no_cache or dry_run)
    job.use_macros = not (no_macros or dry_run)  # a macro talks to the shell: never dry
    job.mirror = mirror
    job.wait_device = wait_device
    try:
        if resume is not None:
            result, run_dir = job.resume(resume, answer)
        else:
            result, run_dir = job.start(task or "", plan, sim)
    except OmgError as exc:
        fail(str(exc), code=DISK_EXIT if isinstance(exc, DiskTrouble) else 1)
    except OSError as exc:  # the disk refused the run's folder before the run began
        if not disk_trouble(exc):
            raise
        fail(str(DiskTrouble(exc)), code=DISK_EXIT)
    code = DISK_EXIT if result.status == "interrupted" and job.disk is not None \
        else EXIT_CODES.get(result.status, 1)  # decided before anything is printed
    with printing_cannot_fail():
        _print_result(result, run_dir, as_json, simulated=sim is not None, disk=job.disk)
    raise typer.Exit(code)


class RunJob:
    """One ``run`` invocation: a new task, or a stopped run resumed with an answer."""

    def __init__(self, settings: Settings, driver_kind: str, as_json: bool,
                 dry_run: bool) -> None:
        self.settings = settings
        self.driver_kind = driver_kind
        self.as_json = as_json
        self.dry_run = dry_run
        self.wait_device: float | None = None  # --wait-device: queue for a busy phone
        self.leases: list[Any] = []  # the phones' leases, held to the end of the run
        self.use_cache = False  # run() turns it on unless --no-cache / --dry-run
        self.use_macros = False  # … and macros unless --no-macros / --dry-run
        self.mirror = False  # --mirror: questions and approvals on the page too
        self.devices: dict[str, str] = {}  # name -> serial / desktop spec: several devices
        self.disk: OSError | None = None  # the write the disk refused, if one was

    def start(self, task: str, plan: Path | None, sim: Any = None) -> tuple[RunResult, Path]:
        from omg_agent.brain.planner import load_plan_file
        from omg_agent.trace.recorder import new_run_dir

        if plan is not None:
            load_plan_file(plan)  # a bad file fails before any device or model is touched
        if self.devices:  # the planner learns the devices' names from the task
            task += ("\n\nDevices: " + ", ".join(self.devices)
                     + " (give each plan step its device).")
        with ExitStack() as stack:
            ctrl_c = stack.enter_context(CtrlC())  # left last: it covers the teardown too
            settings, serial, secrets = self._open(stack, task, sim)
            run_dir = new_run_dir(settings.runs_dir, secrets.mask(task))
            for lease in self.leases:
                lease.note(run_dir)  # who is refused learns where this run writes
            orchestrator = self._agent(stack, settings, serial, task, run_dir, secrets)
            from omg_agent import taskrun  # saved first, then the replay cache (issue 15)

            result = ctrl_c.run(orchestrator, run_dir, lambda: taskrun.begin(
                orchestrator, task, plan, use_cache=self.use_cache))
            self._note_disk(orchestrator, ctrl_c)
            return taskrun.shown(orchestrator, result, run_dir, secrets), run_dir
        raise AssertionError("unreachable")

    def resume(self, run_dir: Path, answer: str | None) -> tuple[RunResult, Path]:
        """Go on with ``run_dir``: an interrupted run (no ``answer``), or one waiting for
        ``answer``."""
        from omg_agent import taskrun

        try:
            saved = taskrun.saved_run(run_dir, answer, flag="--answer")
        except taskrun.UnclearAnswer as exc:  # nothing resumes on an unclear yes
            fail(str(exc), code=2)
        except OmgError as exc:
            fail(str(exc))
        if saved.ended:
            err_console.print(Text(f"the run ended {saved.ended.lower()} "
                                   f"({shortened(saved.ended_because)}): trying again from "
                                   "its last turn boundary"), soft_wrap=True)
        task = saved.state.task
        with ExitStack() as stack:
            ctrl_c = stack.enter_context(CtrlC())  # left last: it covers the teardown too
            settings, serial, secrets = self._open(stack, task, None, saved.device, run_dir)
            orchestrator = self._agent(stack, settings, serial, task, run_dir, secrets,
                                       resume=True, session=saved.session or None)
            taskrun.restore(orchestrator, saved)
            result = ctrl_c.run(orchestrator, run_dir,
                                lambda: taskrun.go_on(orchestrator, saved, answer))
            self._note_disk(orchestrator, ctrl_c)
            return taskrun.shown(orchestrator, result, run_dir, secrets), run_dir
        raise AssertionError("unreachable")

    def _open(self, stack: ExitStack, task: str, sim: Any, device: str | None = None,
              resumed: Path | None = None) -> tuple[Settings, str, SecretVault]:
        from omg_agent.brain.agent import run_secrets
        from omg_agent.trace.logmask import masking_logs

        settings = self.settings
        secrets = run_secrets(task, settings)
        stack.enter_context(masking_logs(secrets))  # from the first line logged
        if self.devices:  # opened by _agent, as a DeviceRouter
            return settings, ",".join(f"{k}={v}" for k, v in self.devices.items()), secrets
        if sim is not None:
            from omg_agent.sim.expert.sim import NOTICE, on_double, start_sim

            err_console.print(f"[yellow]{escape(NOTICE)}[/yellow]", soft_wrap=True)
            serial, base_url = start_sim(stack, sim)
            settings = on_double(settings, base_url)
        elif device is not None:
            serial = _reattach(device, settings.device_grace_s)
        else:
            serial = attached_or_vphone(stack, settings.device, settings.device_grace_s)
        self._lease(stack, serial, f"omg-agent run {secrets.mask(task)!r}" if resumed is None
                    else f"omg-agent run --resume {resumed}", resumed)
        return settings, serial, secrets

    def _lease(self, stack: ExitStack, serial: str, what: str,
               run_dir: Path | None = None) -> None:
        """Hold ``serial``'s lease for the rest of the run (before the driver touches it)."""
        lease = take_lease(serial, what, self.wait_device, stack)
        if lease is not None:
            if run_dir is not None:
                lease.note(run_dir)
            self.leases.append(lease)

    def _agent(self, stack: ExitStack, settings: Settings, serial: str, task: str,
               run_dir: Path, secrets: SecretVault, *, resume: bool = False,
               session: str | None = None) -> Orchestrator:
        from omg_agent.drivers.dryrun import DryRunDriver
        from omg_agent.drivers.select import choose_driver

        router = self._router(stack) if self.devices else None
        driver: Driver = router or choose_driver(serial, self.driver_kind,  # type: ignore[arg-type]
                                                 grace_s=settings.device_grace_s)
        stack.callback(driver.close)
        if self.dry_run:
            driver = DryRunDriver(driver, on_action=lambda line: err_console.print(
                Text.assemble(("dry run:", "cyan"), " ", secrets.mask(line))))
        shown = secrets.mask(task)  # the display: placeholders only
        view = None if self.as_json else stack.enter_context(LiveView(shown))
        human = view is not None and sys.stdin.isatty()
        macros = None
        if self.use_macros and not self.dry_run:
            from omg_agent.macros import MacroSession, MacroStore

            macros = MacroSession(driver, store=MacroStore(settings.runs_dir / "macros"))
        ask: Callable[[str], str | None] | None = view.ask if view and human else None
        confirm: ConfirmationChannel | None = view.confirm_channel() if view and human else None
        show: Callable[[Any], None] | None = (lambda p: view.update(secrets.scrub(p))) \
            if view else None
        page = None
        if self.mirror:
            from omg_agent.hitl.attach import attach_mirror, progress_hook

            ask, confirm, page = attach_mirror(stack, driver, ask, confirm, lambda url: (
                err_console.print(f"mirror: open {url}", soft_wrap=True, highlight=False)))
            show = progress_hook(page, show, secrets.scrub)
            driver = page.held(driver)  # a takeover on the page pauses the agent
        from omg_agent.taskrun import open_run

        orchestrator = open_run(stack, driver, settings, task, run_dir, secrets, serial=serial,
                                ask=ask, confirm=confirm, on_progress=show, macros=macros,
                                resume=resume, session=session, learn=not self.dry_run)
        if page is not None and orchestrator.learned is not None:
            page.learn(orchestrator.learned)
        if page is not None:
            page.audit_to(orchestrator.recorder)
        if router is not None:
            orchestrator.route = router.route  # each step's device, before it is observed
        if view is not None:  # retries of a slow or failing endpoint show live
            for client in orchestrator.llms:
                client.on_notice = lambda text: view.notice(secrets.mask(text))
        return orchestrator

    def _router(self, stack: ExitStack) -> DeviceRouter:
        """One driver per named device (a vphone started for ``vphone``), as one Driver."""
        from omg_agent.drivers.desktop.router import DeviceRouter
        from omg_agent.drivers.select import choose_driver

        drivers: dict[str, Driver] = {}
        try:
            for name, target in self.devices.items():
                serial = attached_or_vphone(stack, target, self.settings.device_grace_s)
                self._lease(stack, serial, f"omg-agent run (device {name})")
                drivers[name] = choose_driver(serial, self.driver_kind,  # type: ignore[arg-type]
                                              grace_s=self.settings.device_grace_s)
        except BaseException:
            for opened in drivers.values():
                opened.close()
            raise
        return DeviceRouter(drivers)

    def _note_disk(self, orchestrator: Orchestrator, ctrl_c: CtrlC) -> None:
        """Keep the write the disk refused (the run's stop, or its trace's), if one was."""
        stop = ctrl_c.disk.cause if ctrl_c.disk is not None else None
        self.disk = stop or getattr(orchestrator.recorder, "trouble", None)


def _reattach(serial: str, grace_s: float) -> str:
    """The device a saved run used, if adb sees it (a TCP device connected again, a
    restarting adb server waited for); a desktop is always there."""
    import adbutils

    from omg_agent.drivers.desktop import is_desktop

    if is_desktop(serial):
        return serial
    # at least a moment: a TCP device forgotten by a restarted adb server comes back at once
    if not _await(adbutils.AdbClient(), serial, max(grace_s, 2.0)):
        fail(f"the run's device {serial} is not attached any more: connect it (a vphone "
             "started by the run itself is gone with it) and resume again")
    return serial


def register(root: typer.Typer) -> None:
    """Add the ``run`` command to the ``omg-agent`` app."""
    root.command(name="run", cls=WaitDeviceCommand)(run)
