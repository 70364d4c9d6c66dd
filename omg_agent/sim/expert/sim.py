"""``omg-agent run --model sim``: the expert double behind a real HTTP endpoint, driving an
in-process vphone, for demos and smoke tests without a model.

:func:`start_sim` enters everything into the caller's ``ExitStack`` and returns the serial
of the vphone (connected to the adb server) and the double's base URL; :func:`start_double`
serves the expert for a phone the caller already has, and :func:`on_double` points settings
at it.
"""

from __future__ import annotations

import logging
from contextlib import ExitStack

from omg_agent.config import Settings
from omg_agent.sim.expert.goals import known_goals, task_for_goal
from omg_agent.sim.expert.policy import ExpertPolicy, NoiseProfile
from omg_agent.sim.expert.runner import vphone_on_adb, with_overrides
from omg_agent.sim.expert.tasks import Task
from omg_agent.sim.model_double import ModelDouble

log = logging.getLogger(__name__)

NOTICE = ("Using a SIMULATED model (--model sim): the bench's expert double answers from the "
          "vphone's true state; no real model is called. To use a real model set OMG_MODEL "
          "and OMG_BASE_URL (and OMG_API_KEY if the endpoint needs one); see "
          "`omg-agent config show`.")


def unknown_goal_message(goal: str) -> str:
    return (f"--model sim: the expert policy knows no task like {goal!r}. Known sim tasks:\n"
            + "\n".join(f"  - {g}" for g in known_goals())
            + "\nOr configure a real model: OMG_MODEL and OMG_BASE_URL "
              "(see `omg-agent config show`).")


def sim_task(goal: str) -> Task | None:
    return task_for_goal(goal)


def start_double(stack: ExitStack, task: Task, phone: object, seed: int = 0,
                 noise: str = "none") -> str:
    """Serve the expert for ``task`` on ``phone`` (set up already); returns the base URL."""
    policy = ExpertPolicy(task, phone, NoiseProfile.named(noise), seed=seed)
    double = stack.enter_context(ModelDouble(policy, models=("sim",)))
    return double.base_url


def start_sim(stack: ExitStack, task: Task, seed: int = 0,
              noise: str = "none") -> tuple[str, str]:
    """Start a vphone and the expert double; returns (serial, base_url)."""
    phone, serial = stack.enter_context(vphone_on_adb(seed))
    task.setup(phone)
    base_url = start_double(stack, task, phone, seed, noise)
    log.info("sim: %s on %s, double at %s", task.goal, serial, base_url)
    return serial, base_url


def on_double(settings: Settings, base_url: str) -> Settings:
    """``settings`` pointed at the expert double: its URL, its model name, no key."""
    return with_overrides(settings, {"base_url": base_url, "model": "sim", "api_key": None,
                                     "planner_model": None, "operator_model": None})
