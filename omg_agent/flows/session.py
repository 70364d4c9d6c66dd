"""One flow replay wired like a run: secrets, the gate, a trace folder and its report.

:func:`replay` is what ``omg-agent flow run`` (and the benchmark) calls: the run's
:class:`~omg_agent.core.secrets.SecretVault` from the settings (so ``{{secret:NAME}}`` is
typed but never written), the driver wrapped to type secrets, the sensitive-action gate
with the settings' ``allow`` and the caller's confirmation channel, a
:class:`~omg_agent.trace.recorder.TraceRecorder` in ``run_dir`` and, at the end, the same
HTML report a run gets.
"""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

from omg_agent.brain.agent import gatekeeper, run_secrets
from omg_agent.config import Settings
from omg_agent.drivers.base import Driver
from omg_agent.drivers.secret_typing import SecretTyping
from omg_agent.flows.model import Flow, FlowResult
from omg_agent.flows.replay import FlowRunner
from omg_agent.guards.choke import bind
from omg_agent.guards.confirmation import ConfirmationChannel
from omg_agent.trace.logmask import masking_logs
from omg_agent.trace.recorder import TraceRecorder
from omg_agent.trace.report import render_report


def replay(driver: Driver, flow: Flow, settings: Settings, run_dir: Path, *,
           variables: dict[str, str] | None = None,
           confirm: ConfirmationChannel | None = None, report: bool = True) -> FlowResult:
    """Run ``flow`` on ``driver`` with a trace in ``run_dir`` (must not hold one yet)."""
    label = f"flow: {flow.name or Path(flow.source).name or 'flow'}"
    vault = run_secrets("", settings)
    with ExitStack() as stack:
        stack.enter_context(masking_logs(vault))
        recorder = stack.enter_context(TraceRecorder(run_dir, task=label, secrets=vault))
        gate = gatekeeper(settings, "", confirm, driver.observe)
        stack.enter_context(bind(driver, gate, vault.mask))  # the choke point asks it too
        runner = FlowRunner(SecretTyping(driver, vault), recorder=recorder, gate=gate,
                            variables=variables)
        result = runner.run(flow)
        result.failed = vault.mask(result.failed)  # it quotes the screen: secrets masked
        recorder.finish(result.status, result.failed or "flow finished", {
            "model_calls": 0, "prompt_tokens": 0, "completion_tokens": 0,
            "steps_used": result.commands, "actions": result.actions,
            "stop_report": result.failed or "every step and check passed"})
    if report:
        render_report(run_dir)
    return result
