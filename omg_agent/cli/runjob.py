"""One ``omg-agent run`` invocation once its options are read: the device and its lease, the
live view, the mirror, and the run assembled by the composition root
(:func:`omg_agent.taskrun.open_agent`) with this terminal's hooks — its questions, its
Ctrl-C, its display — then started or resumed."""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.markup import escape
from rich.text import Text

from omg_agent.cli.attach import attached_or_vphone, reattach
from omg_agent.cli.console import err_console, fail, shortened
from omg_agent.cli.ctrlc import CtrlC
from omg_agent.cli.lease import take_lease
from omg_agent.cli.live import LiveView
from omg_agent.errors import OmgError, RunAlreadyEnded

if TYPE_CHECKING:  # the brain imports the openai SDK, settings pydantic: only a run pays
    from omg_agent.brain.resume import SavedRun
    from omg_agent.brain.run_state import RunResult
    from omg_agent.config import Settings
    from omg_agent.core.secrets import SecretVault
    from omg_agent.drivers.base import Driver
    from omg_agent.drivers.desktop.router import DeviceRouter
    from omg_agent.taskrun import Agent


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
        self.mirror_port = 0  # --mirror-port (0: any free one)
        self.devices: dict[str, str] = {}  # name -> serial / desktop spec: several devices
        self.disk: OSError | None = None  # the write the disk refused, if one was
        self.planned: list[str] = []  # --dry-run: what would have been sent, in order

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
            agent = self._agent(stack, ctrl_c, settings, serial, task, run_dir, secrets)
            # saved first, then the replay cache (issue 15)
            return self._go(agent, ctrl_c, lambda: agent.begin(task, plan)), run_dir
        raise AssertionError("unreachable")

    def resume(self, run_dir: Path, answer: str | None) -> tuple[RunResult, Path]:
        """Go on with ``run_dir``: an interrupted run (no ``answer``), or one waiting for
        ``answer``."""
        from omg_agent import taskrun

        try:
            saved = taskrun.saved_run(run_dir, answer, flag="--answer")
        except taskrun.UnclearAnswer as exc:  # nothing resumes on an unclear yes
            fail(str(exc), code=2)
        except RunAlreadyEnded:
            raise  # its result is printed again, with its exit code (cli/run.py)
        except OmgError as exc:
            fail(str(exc))
        if saved.ended:
            err_console.print(Text(f"the run ended {saved.ended.lower()} "
                                   f"({shortened(saved.ended_because)}): trying again from "
                                   "its last turn boundary"), soft_wrap=True)
        task = saved.state.task
        # everything the run keeps (memory bank, replay cache, learned steps, macros) lives
        # in its own runs folder, wherever the resume is started from
        self.settings = self.settings.model_copy(update={"runs_dir": Path(run_dir).parent})
        with ExitStack() as stack:
            ctrl_c = stack.enter_context(CtrlC())  # left last: it covers the teardown too
            settings, serial, secrets = self._open(stack, task, None, saved.device, run_dir)
            agent = self._agent(stack, ctrl_c, settings, serial, task, run_dir, secrets,
                                saved)
            return self._go(agent, ctrl_c, lambda: agent.go_on(saved, answer)), run_dir
        raise AssertionError("unreachable")

    def _go(self, agent: Agent, ctrl_c: CtrlC, go: Callable[[], RunResult]) -> RunResult:
        """``go()`` under Ctrl-C; the result as shown, the disk's refusal kept."""
        result = ctrl_c.run(agent.orchestrator, agent.run_dir, go)
        stop = ctrl_c.disk.cause if ctrl_c.disk is not None else None
        self.disk = stop or getattr(agent.recorder, "trouble", None)
        return agent.shown(result)

    def _open(self, stack: ExitStack, task: str, sim: Any, device: str | None = None,
              resumed: Path | None = None) -> tuple[Settings, str, SecretVault]:
        from omg_agent.taskrun import open_secrets

        settings = self.settings
        secrets = open_secrets(stack, task, settings)  # masked from the first line logged
        if self.devices:  # opened by _agent, as a DeviceRouter
            return settings, ",".join(f"{k}={v}" for k, v in self.devices.items()), secrets
        if sim is not None:
            from omg_agent.sim.expert.sim import NOTICE, on_double, start_sim

            err_console.print(f"[yellow]{escape(NOTICE)}[/yellow]", soft_wrap=True)
            serial, base_url = start_sim(stack, sim)
            settings = on_double(settings, base_url)
        elif device is not None:
            serial = reattach(device, settings.device_grace_s)
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

    def _agent(self, stack: ExitStack, ctrl_c: CtrlC, settings: Settings, serial: str,
               task: str, run_dir: Path, secrets: SecretVault,
               saved: SavedRun | None = None) -> Agent:
        """The run, assembled once with this terminal's hooks (and the mirror's)."""
        from omg_agent.brain.agent import choke_point
        from omg_agent.drivers.dryrun import DryRunDriver
        from omg_agent.drivers.select import choose_driver
        from omg_agent.taskrun import Hooks, RunDevice, open_agent

        router = self._router(stack) if self.devices else None
        driver: Driver = router or choose_driver(serial, self.driver_kind,  # type: ignore[arg-type]
                                                 grace_s=settings.device_grace_s,
                                                 judge=choke_point(settings, serial))
        stack.callback(driver.close)
        if self.dry_run:
            driver = DryRunDriver(driver, on_action=lambda line: self._planned(
                secrets.mask(line)))
        # a dry run's screen never changes: its live view would show only the retries
        view = None if self.as_json or self.dry_run else stack.enter_context(
            LiveView(secrets.mask(task)))
        human = view is not None and sys.stdin.isatty()
        hooks = Hooks(ask=view.ask if view and human else None,
                      confirm=view.confirm_channel() if view and human else None,
                      on_progress=view.update if view else None,
                      on_notice=view.notice if view else None,  # a slow endpoint's retries
                      safe_point=ctrl_c.check, macros=self._macros(driver, settings),
                      route=router.route if router else None,  # each step's device
                      learn=not self.dry_run, use_cache=self.use_cache)
        page = None
        if self.mirror:
            from omg_agent.hitl.attach import attach_mirror, progress_hook

            ask, confirm, page = attach_mirror(stack, driver, hooks.ask, hooks.confirm,
                                               lambda url: err_console.print(
                                                   f"mirror: open {url}", soft_wrap=True,
                                                   highlight=False),
                                               port=self.mirror_port)
            hooks = replace(hooks, ask=ask, confirm=confirm,
                            on_progress=progress_hook(page, hooks.on_progress, secrets.scrub,
                                                      task))
            driver = page.held(driver)  # a takeover on the page pauses the agent
        device = RunDevice(driver, serial, dry=self.dry_run)
        agent = open_agent(stack, settings, device, hooks, task=task, run_dir=run_dir,
                           secrets=secrets, words_from="human", saved=saved)  # typed here
        if page is not None:
            if agent.learned is not None:
                page.learn(agent.learned)
            page.audit_to(agent.recorder)
        return agent

    def _planned(self, line: str) -> None:
        """A dry run's action that was not sent (masked), listed at the end (cli/run.py)."""
        self.planned.append(line.removeprefix("would "))

    def _macros(self, driver: Driver, settings: Settings) -> Any:
        """The macro session (None with --no-macros, --dry-run or several devices)."""
        if not self.use_macros or self.dry_run:
            return None
        from omg_agent.macros import MacroSession, MacroStore

        return MacroSession(driver, store=MacroStore(settings.runs_dir / "macros"))

    def _router(self, stack: ExitStack) -> DeviceRouter:
        """One driver per named device (a vphone started for ``vphone``), as one Driver."""
        from omg_agent.brain.agent import choke_point
        from omg_agent.drivers.desktop.router import DeviceRouter
        from omg_agent.drivers.select import choose_driver

        drivers: dict[str, Driver] = {}
        try:
            for name, target in self.devices.items():
                serial = attached_or_vphone(stack, target, self.settings.device_grace_s)
                self._lease(stack, serial, f"omg-agent run (device {name})")
                drivers[name] = choose_driver(serial, self.driver_kind,  # type: ignore[arg-type]
                                              grace_s=self.settings.device_grace_s,
                                              judge=choke_point(self.settings, serial))
        except BaseException:
            for opened in drivers.values():
                opened.close()
            raise
        return DeviceRouter(drivers)


__all__ = ["RunJob"]
