"""Run one task end to end: a fresh in-process vphone on the real adb server, a model behind
the real openai client (the expert double by default, or a real OpenAI-compatible endpoint),
and the Orchestrator.

Success comes from ``task.check(phone)`` — the app's true state — never from the agent's
claim; an impossible task succeeds only when the run also ends ``infeasible``. With
``trace_dir`` the run leaves a trace folder (and its HTML report) there, and its per-step
observe / model / act times are read back from that trace.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omg_agent.brain.agent import choke_point, open_agent
from omg_agent.config import Settings
from omg_agent.core.secrets import mask_task
from omg_agent.guards.confirmation import ConfirmationRequest, ScriptedChannel
from omg_agent.sim.expert.policy import ExpertPolicy, NoiseProfile
from omg_agent.sim.expert.tasks import Task
from omg_agent.sim.model_double import ModelDouble, Policy, chars_over_4
from omg_agent.vphone import adbhost
from omg_agent.vphone.phone import VirtualPhone

log = logging.getLogger(__name__)

# Time-breakdown part -> the step-timing names that feed it (trace.jsonl, seconds).
TIMING_PARTS = {"observe": ("observe_s", "observe"),
                "model": ("decide_s", "model", "model_s", "decide"),
                "act": ("act_s", "act")}


@dataclass(frozen=True)
class TaskRun:
    """One run's outcome: the truth (``success``) and what it cost.

    ``wall_s`` is the agent's run (plan to finish); ``timings`` sums the operator steps'
    observe / model / act seconds over ``turns`` recorded steps (empty without a trace).
    ``setup_digest`` fingerprints the phone's state after ``task.setup``: equal seeds, equal
    digests.
    """

    goal: str
    success: bool
    status: str
    model_calls: int
    steps: int
    tokens_in: int
    tokens_out: int
    task_id: str = ""
    tags: tuple[str, ...] = ()
    impossible: bool = False
    seed: int = 0
    wall_s: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)
    turns: int = 0
    setup_digest: str = ""
    trace_dir: str | None = None
    report: str | None = None
    answer: str = ""
    error: str = ""
    gate_prompts: int = 0
    confirmations: tuple[tuple[str, str, bool | None], ...] = ()
    probe: dict[str, Any] = field(default_factory=dict)
    planner_calls: int = 0
    wait_turns: int = 0
    tokens_cached: int = 0  # of tokens_in, from the (simulated) provider prompt cache
    confirm_calls: int = 0  # planner calls that confirmed an operator's "done"

    def as_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["tags"] = list(self.tags)
        out["confirmations"] = [list(c) for c in self.confirmations]
        return out


PolicyFactory = Callable[[Task, VirtualPhone, NoiseProfile, int], Policy]


def expert_policy(task: Task, phone: VirtualPhone, noise: NoiseProfile, seed: int) -> Policy:
    """The default double: the expert policy for ``task`` reading ``phone``."""
    return ExpertPolicy(task, phone, noise, seed=seed)


Human = Callable[[ConfirmationRequest], bool | None]


def task_human(task: Task, decide: Human | None = None
               ) -> tuple[ScriptedChannel, list[bool | None]]:
    """The human the gate asks in a simulated run: ``decide`` when given, else the task's
    ``confirm_user(request)`` when it has one, else a yes to everything. The channel records
    the requests; the list the answers, in the same order."""
    decide = decide or getattr(task, "confirm_user", None)
    answers: list[bool | None] = []

    def answer(request: ConfirmationRequest) -> bool | None:
        answers.append(decide(request) if callable(decide) else True)
        return answers[-1]

    return ScriptedChannel(policy=answer), answers


@contextmanager
def vphone_on_adb(seed: int = 0) -> Iterator[tuple[VirtualPhone, str]]:
    """A fresh in-process vphone connected to the adb server; disconnected at exit."""
    phone = VirtualPhone(seed=seed)
    try:
        server = phone.serve()
        serial = adbhost.connect("127.0.0.1", server.port)
        try:
            yield phone, serial
        finally:
            adbhost.disconnect(serial)
    finally:
        phone.close()


def sim_settings(base_url: str, runs_dir: Path, max_steps: int = 40) -> Settings:
    return Settings(base_url=base_url, model="sim", max_steps=max_steps,
                    retry_backoff_s=0.001, retry_backoff_max_s=0.01, timeout_s=20,
                    runs_dir=runs_dir)


def with_overrides(settings: Settings, overrides: Mapping[str, Any]) -> Settings:
    """``settings`` with some fields replaced, validated like any setting (``ValueError``
    names the field)."""
    if not overrides:
        return settings
    values = {name: getattr(settings, name) for name in Settings.model_fields}
    return Settings.model_validate({**values, **overrides})


def setup_digest(phone: VirtualPhone) -> str:
    """A short fingerprint of the phone's whole state (apps, foreground, locale)."""
    text = json.dumps(phone.state(), sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def step_timings(trace_dir: Path) -> tuple[dict[str, float], int]:
    """Summed observe / model / act seconds of a trace's steps, and how many steps."""
    from omg_agent.trace.loader import load_trace

    steps = load_trace(trace_dir).steps
    sums = dict.fromkeys(TIMING_PARTS, 0.0)
    for step in steps:
        for part, names in TIMING_PARTS.items():
            sums[part] += next((step.timings[n] for n in names if n in step.timings), 0.0)
    return {k: round(v, 4) for k, v in sums.items()}, len(steps)


def run_task(task: Task, noise: NoiseProfile, *, seed: int = 0, noise_seed: int | None = None,
             max_steps: int = 40, overrides: Mapping[str, Any] | None = None,
             endpoint: Settings | None = None, trace_dir: Path | None = None,
             policy: PolicyFactory = expert_policy,
             probe: Callable[[VirtualPhone], dict[str, Any]] | None = None,
             human: Human | None = None,
             count_tokens: Callable[[str], int] | None = None,
             host: Callable[[VirtualPhone, str], AbstractContextManager[Any]] | None = None
             ) -> TaskRun:
    """Run ``task`` once on a fresh phone with ``seed``; success read from the phone.

    The double answers with ``policy`` (default the expert; its noise drawn from
    ``noise_seed``, default ``seed``) unless ``endpoint`` names a real model. ``overrides``
    replace Settings fields; ``trace_dir`` (must not exist yet) receives the trace and
    ``report.html``. The gate asks :func:`task_human` (``human`` in place of the task's
    own). ``probe(phone)`` reads the phone before the agent starts and after it ends
    (``TaskRun.probe`` = before/after). ``count_tokens`` is how the double counts the
    tokens it reports (default characters / 4). ``host(phone, serial)`` is entered while
    the phone runs (a fleet publishes it there, see :mod:`omg_agent.fleet.vphone_slot`).
    """
    from omg_agent.drivers.adb import AdbDriver

    with vphone_on_adb(seed) as (phone, serial), ExitStack() as stack:
        if host is not None:
            stack.enter_context(host(phone, serial))
        task.setup(phone)
        digest = setup_digest(phone)
        before = probe(phone) if probe is not None else None
        if endpoint is None:
            double = stack.enter_context(ModelDouble(policy(
                task, phone, noise, seed if noise_seed is None else noise_seed),
                count_tokens=count_tokens or chars_over_4))
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
            settings = sim_settings(double.base_url, tmp, max_steps)
        else:
            settings = with_overrides(endpoint, {"max_steps": max_steps})
        settings = with_overrides(settings, overrides or {})
        driver = AdbDriver(serial, grace_s=settings.device_grace_s,
                           judge=choke_point(settings, serial))
        stack.callback(driver.close)
        ask = getattr(task, "answer_user", None)
        channel, answers = task_human(task, human)
        result = open_agent(stack, driver, settings, task.goal, run_dir=trace_dir,
                            session=f"bench-{seed}", ask_user=ask if callable(ask) else None,
                            confirm=channel).run(task.goal)
        success = task.check(phone) and (result.status == "infeasible" or not task.impossible)
        seen = {"before": before, "after": probe(phone)} if probe is not None else {}
        asked = tuple((r.cls, r.describe, a) for r, a in zip(channel.requests, answers,
                                                             strict=True))
    log.info("%s: %s (agent said %s)", mask_task(task.goal), success, result.status)
    return _task_run(task, seed, digest, result, success, asked, seen, trace_dir)


def _task_run(task: Task, seed: int, digest: str, result: Any, success: bool,
              asked: tuple[Any, ...], seen: dict[str, Any], trace_dir: Path | None) -> TaskRun:
    """One run's record: the outcome, its counts and, with a trace, timings and report."""
    timings: dict[str, float] = {}
    turns, report = 0, None
    if trace_dir is not None:
        from omg_agent.trace.report import render_report

        timings, turns = step_timings(trace_dir)
        report = str(render_report(trace_dir))
    return TaskRun(mask_task(task.goal), success, result.status, result.model_calls,
                   result.steps_used, result.tokens_in, result.tokens_out,
                   task_id=task.id, tags=tuple(task.tags), impossible=task.impossible,
                   seed=seed, wall_s=round(result.wall_s, 4), timings=timings, turns=turns,
                   setup_digest=digest, answer=result.answer,
                   trace_dir=str(trace_dir) if trace_dir is not None else None, report=report,
                   gate_prompts=len(asked), confirmations=asked, probe=seen,
                   planner_calls=result.planner_calls, wait_turns=result.wait_turns,
                   tokens_cached=result.tokens_cached, confirm_calls=result.confirm_calls)
