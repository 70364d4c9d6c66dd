"""Run one expert task end to end: a fresh in-process vphone on the real adb server, the model
double with the expert policy behind the real openai client, and the Orchestrator.

Success comes from ``task.check(phone)`` — the app's true state — never from the agent's
claim.
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from omg_agent.bench.expert.policy import ExpertPolicy, NoiseProfile
from omg_agent.bench.expert.tasks import Task
from omg_agent.bench.model_double import ModelDouble
from omg_agent.brain.llm import LLMClient
from omg_agent.brain.memory import MemoryBank
from omg_agent.brain.orchestrator import Orchestrator, RunResult
from omg_agent.config import Settings
from omg_agent.vphone import adbhost
from omg_agent.vphone.phone import VirtualPhone

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TaskRun:
    """One run's outcome: the truth (``success``) and what it cost."""

    goal: str
    success: bool
    status: str
    model_calls: int
    steps: int
    tokens_in: int
    tokens_out: int


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


def run_task(task: Task, noise: NoiseProfile, *, seed: int = 0, noise_seed: int | None = None,
             max_steps: int = 40) -> TaskRun:
    """Run ``task`` once on a fresh phone with ``seed`` (the noise draws from
    ``noise_seed``, default ``seed``); success read from the phone."""
    from omg_agent.drivers.adb import AdbDriver

    with vphone_on_adb(seed) as (phone, serial), tempfile.TemporaryDirectory() as tmp:
        task.setup(phone)
        policy = ExpertPolicy(task, phone, noise, seed=seed if noise_seed is None else noise_seed)
        with ModelDouble(policy) as double, MemoryBank(None, f"bench-{seed}") as memory:
            settings = sim_settings(double.base_url, Path(tmp), max_steps)
            llm = LLMClient(settings, "operator")
            driver = AdbDriver(serial)
            try:
                result: RunResult = Orchestrator(driver, llm, llm, memory, settings).run(
                    task.goal)
            finally:
                driver.close()
                llm.close()
        success = task.check(phone)
    log.info("%s: %s (agent said %s)", task.goal, success, result.status)
    return TaskRun(task.goal, success, result.status, result.model_calls,
                   result.steps_used, result.tokens_in, result.tokens_out)
