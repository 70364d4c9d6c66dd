"""``omg-agent bench calls``: model calls with one action per reply vs semantic bundles.

For each of the suite's classic multi-step tasks (:data:`CALL_TASKS`: Shop → Notes, switches,
a note, a message, likes, the cart, brightness, sign-in), on a fresh seeded in-process vphone,
the Orchestrator runs twice with the same seed and noise — the expert double answering one
action per reply, then bundles up
to the first boundary — and one table shows both side by side: success (from the phone's
true state), model calls, counted steps and tokens, per task and in total.
"""

from __future__ import annotations

import copy
import logging

from omg_agent.core.secrets import mask_task
from omg_agent.sim.expert.policy import NoiseProfile
from omg_agent.sim.expert.runner import TaskRun, run_task

log = logging.getLogger(__name__)
CALL_TASKS = ("shop.price_to_notes", "settings.wifi", "settings.bluetooth", "notes.create",
              "messages.send", "feed.like_first", "shop.add_to_cart", "settings.brightness",
              "login.sign_in")


def call_tasks(seed: int = 0) -> list:
    """The benchmark's tasks from the suite, in table order."""
    from omg_agent.bench.suite import suite_tasks

    by_id = {t.id: t for t in suite_tasks(seed)}
    return [by_id[i] for i in CALL_TASKS]


def compare(tasks: int | None = None, noise: str = "moderate",
            seed: int = 0) -> list[tuple[TaskRun, TaskRun]]:
    """(single, multi) runs per task."""
    rows = []
    for index, task in enumerate(call_tasks(seed)[:tasks]):
        draws = seed * 1000 + index  # each task its own noise stream, same for both sides
        single = run_task(copy.deepcopy(task), NoiseProfile.named(noise, "single"), seed=seed,
                          noise_seed=draws)
        multi = run_task(copy.deepcopy(task), NoiseProfile.named(noise, "multi"), seed=seed,
                         noise_seed=draws)
        rows.append((single, multi))
    return rows


def _cells(r: TaskRun) -> str:
    ok = "✔" if r.success else "✘*" if r.status == "done" else "✘"
    return (f"{ok} | {r.model_calls} | {r.steps} | "
            f"{r.tokens_in:,} / {r.tokens_out:,}")


def table(rows: list[tuple[TaskRun, TaskRun]], noise: str, seed: int) -> str:
    lines = [f"Model calls, one action per reply vs bundles (expert double, noise "
             f"{noise!r}, seed {seed}; success read from the phone's state):", "",
             "| task | single: ok | calls | steps | tokens in / out "
             "| bundles: ok | calls | steps | tokens in / out | fewer calls |",
             "|---|:-:|---:|---:|---:|:-:|---:|---:|---:|---:|"]
    for s, m in rows:
        fewer = 1 - m.model_calls / s.model_calls if s.model_calls else 0.0
        lines.append(f"| {mask_task(s.goal)} | {_cells(s)} | {_cells(m)} | {fewer:.0%} |")
    total = {k: [sum(getattr(r[i], k) for r in rows) for i in (0, 1)]
             for k in ("success", "model_calls", "steps", "tokens_in", "tokens_out")}
    n = len(rows)
    calls = total["model_calls"]
    fewer = 1 - calls[1] / calls[0] if calls[0] else 0.0
    lines.append(
        f"| **total** | {total['success'][0]}/{n} | {calls[0]} | {total['steps'][0]} | "
        f"{total['tokens_in'][0]:,} / {total['tokens_out'][0]:,} | "
        f"{total['success'][1]}/{n} | {calls[1]} | {total['steps'][1]} | "
        f"{total['tokens_in'][1]:,} / {total['tokens_out'][1]:,} | **{fewer:.0%}** |")
    lines += ["", "✘* the agent reported done but the phone's state says the task is not "
              "(premature goal_complete noise).", "",
              "Command: omg-agent bench calls --noise " + noise + (
                  f" --seed {seed}" if seed else "")]
    return "\n".join(lines)


def report(tasks: int | None = None, noise: str = "moderate", seed: int = 0) -> str:
    return table(compare(tasks, noise, seed), noise, seed)
