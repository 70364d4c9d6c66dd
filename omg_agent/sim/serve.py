"""``omg-agent sim serve``: the simulated (expert) model as an OpenAI-compatible endpoint.

The same :class:`~omg_agent.sim.model_double.ModelDouble` the tests and ``--model sim`` use,
on a port of the user's choosing, in front of a vphone this process starts and connects to
the adb server. The expert reads that phone's true state, so it can drive that phone only;
which task it plays is read from each request's ``Task:`` line (the sentences
:func:`~omg_agent.sim.expert.goals.known_goals` lists), so ``OMG_BASE_URL`` setups,
``doctor``, ``run --resume`` and fleets can be tried without a key:

    omg-agent sim serve --port 8765
    OMG_BASE_URL=http://127.0.0.1:8765/v1 OMG_MODEL=sim omg-agent run "Turn off Wi-Fi" \\
        --device <the serial it printed>

or, the same, ``omg-agent run --model sim "Turn off Wi-Fi" --device <that serial>``: a
record of each running ``sim serve`` (:func:`served_for`) names the phone it drives.

A request of no agent contract (a ping such as ``doctor --model``'s) gets ``{"ok": true}``;
a task the expert does not know gets HTTP 400 naming the tasks it knows.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omg_agent.sim.expert.goals import known_goals, task_for_goal
from omg_agent.sim.expert.policy import ExpertPolicy, NoiseProfile
from omg_agent.sim.expert.runner import vphone_on_adb
from omg_agent.sim.expert.screen import task_of
from omg_agent.sim.model_double import ModelDouble, Reply, contract_name

log = logging.getLogger(__name__)
MODEL_NAME = "sim"


class GoalExpert:
    """The expert for whichever known task a request names, on one phone.

    Each new task is set up on the phone once (as a benchmark run sets it up on a fresh
    phone) and keeps its policy: a resumed run, or the same task again, goes on from the
    phone's state as it is.
    """

    def __init__(self, phone: Any, noise: NoiseProfile | None = None, seed: int = 0) -> None:
        self.phone = phone
        self.noise = noise or NoiseProfile()
        self.seed = seed
        self._experts: dict[str, ExpertPolicy] = {}
        self._lock = threading.Lock()

    def reply(self, request: dict[str, Any]) -> Reply:
        goal = task_of(request)
        if self.phone is None:
            return _refusal("the simulated phone is still starting")
        if not goal:
            if contract_name(request) is None:  # a ping, not the agent
                return json.dumps({"ok": True})
            return _refusal("the request names no task (no 'Task:' line)")
        with self._lock:
            expert = self._experts.get(goal)
            if expert is None:
                task = task_for_goal(goal)
                if task is None:
                    return _refusal(f"the simulated model knows no task like {goal!r}; it "
                                    "knows: " + "; ".join(known_goals()))
                task.setup(self.phone)
                expert = self._experts[goal] = ExpertPolicy(task, self.phone, self.noise,
                                                            seed=self.seed)
                log.info("sim serve: playing %r", goal)
        return expert.reply(request)


def _refusal(message: str) -> dict[str, Any]:
    return {"status": 400, "body": {"error": {"message": message, "type": "unknown_task"}}}


@dataclass(frozen=True)
class ServedSim:
    """A running ``sim serve``: the endpoint and the phone it drives."""

    base_url: str
    serial: str
    phone: Any
    double: ModelDouble


@contextmanager
def serve_sim(host: str = "127.0.0.1", port: int = 0, seed: int = 0,
              noise: str = "none") -> Iterator[ServedSim]:
    """A vphone on the adb server and the expert serving it at ``host:port`` (0: any free
    port); both stop at exit. ``OSError`` when the port is taken."""
    expert = GoalExpert(None, NoiseProfile.named(noise), seed)
    # the port first: a taken one fails before a phone is started
    with ModelDouble(expert, models=(MODEL_NAME,), host=host, port=port) as double, \
            vphone_on_adb(seed) as (phone, serial):
        expert.phone = phone
        log.info("sim serve: %s for %s", double.base_url, serial)
        record = _records() / f"{double.port}.json"  # `run --model sim --device SERIAL`
        record.write_text(json.dumps({"serial": serial, "base_url": double.base_url,
                                      "pid": os.getpid()}))
        try:
            yield ServedSim(double.base_url, serial, phone, double)
        finally:
            record.unlink(missing_ok=True)


def _records() -> Path:
    from omg_agent.vphone.daemon import run_dir

    folder = run_dir().parent / "sim"  # beside the vphones' records, not among them
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def served_for(serial: str) -> str | None:
    """The endpoint of the running ``sim serve`` that drives ``serial``, if one does."""
    for path in _records().glob("*.json"):
        try:
            record = json.loads(path.read_text())
            os.kill(int(record["pid"]), 0)  # still running
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if record.get("serial") == serial:
            return str(record["base_url"])
    return None


__all__ = ["MODEL_NAME", "GoalExpert", "ServedSim", "serve_sim", "served_for"]
