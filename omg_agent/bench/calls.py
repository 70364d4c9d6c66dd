"""``omg-agent bench calls``: model calls per task in each planning mode, side by side.

For each of the suite's classic multi-step tasks (:data:`CALL_TASKS`: Shop → Notes, switches,
a note, a message, likes, the cart, brightness, sign-in), on a fresh seeded in-process vphone,
the Orchestrator runs once per planning mode (:mod:`omg_agent.brain.modes`) with the same
seed and noise, the expert double answering as the mode's prompt asks; one table shows
success (from the phone's true state), model calls (planner + operator), counted steps and
tokens per task and in total, and each mode's calls against ``flat`` — the peers' loop.
"""

from __future__ import annotations

import copy
import logging
import shlex
from collections.abc import Sequence

from omg_agent.bench.progress import SILENT, Progress
from omg_agent.brain.modes import MODES
from omg_agent.core.secrets import mask_task
from omg_agent.errors import ConfigError
from omg_agent.sim.expert.policy import NoiseProfile
from omg_agent.sim.expert.runner import TaskRun, run_task

log = logging.getLogger(__name__)
CALL_TASKS = ("shop.price_to_notes", "settings.wifi", "settings.bluetooth", "notes.create",
              "messages.send", "feed.like_first", "shop.add_to_cart", "settings.brightness",
              "login.sign_in")
BASELINE = "flat"
# the peers' loop trusts the model's "finish": flat is measured that way (the cheapest flat)
MODE_OVERRIDES = {"flat": {"confirm_done": "never"}}


def call_tasks(seed: int = 0) -> list:
    """The benchmark's tasks from the suite, in table order."""
    from omg_agent.bench.suite import suite_tasks

    by_id = {t.id: t for t in suite_tasks(seed)}
    return [by_id[i] for i in CALL_TASKS]


def parse_modes(text: str) -> tuple[str, ...]:
    """``flat,adaptive`` → the modes, checked; a one-line error names what is accepted."""
    modes = tuple(m.strip() for m in text.split(",") if m.strip())
    bad = [m for m in modes if m not in MODES]
    if bad or not modes:
        raise ConfigError(f"--modes {text!r}: unknown mode(s) {', '.join(bad) or '(none)'}; "
                          f"choose from {', '.join(MODES)}")
    return modes


def compare(tasks: int | None = None, noise: str = "moderate", seed: int = 0,
            modes: Sequence[str] = MODES, progress: Progress = SILENT) -> list[dict[str, TaskRun]]:
    """Per task, its run in each mode."""
    rows = []
    chosen = call_tasks(seed)[:tasks]
    progress.phase("calls", len(chosen) * len(modes))
    for index, task in enumerate(chosen):
        draws = seed * 1000 + index  # each task its own noise stream, same for every mode
        row = {}
        for mode in modes:
            row[mode] = run_task(copy.deepcopy(task), NoiseProfile.named(noise), seed=seed,
                                 noise_seed=draws,
                                 overrides={"planning": mode, **MODE_OVERRIDES.get(mode, {})})
            progress.advance(f"{task.id} · {mode}")
        rows.append(row)
    return rows


def command(noise: str, seed: int, modes: Sequence[str], tasks: int | None = None) -> str:
    """The ``omg-agent bench calls`` command line that makes this table again."""
    words = ["omg-agent", "bench", "calls", "--noise", noise]
    words += ["--seed", str(seed)] if seed else []
    words += ["--modes", ",".join(modes)] if tuple(modes) != MODES else []
    words += ["--tasks", str(tasks)] if tasks is not None else []
    return shlex.join(words)


def _mark(r: TaskRun) -> str:
    return "✔" if r.success else "✘*" if r.status == "done" else "✘"


def _calls(r: TaskRun) -> str:
    return f"{r.model_calls} ({r.planner_calls}+{r.model_calls - r.planner_calls})"


def table(rows: list[dict[str, TaskRun]], noise: str, seed: int,
          tasks: int | None = None) -> str:
    modes = list(rows[0]) if rows else []
    base = BASELINE if BASELINE in modes else None
    head = "| task | " + " | ".join(f"{m}: ok | calls" for m in modes) + " |"
    lines = [f"Model calls per planning mode (expert double, noise {noise!r}, seed {seed}; "
             "calls = planner + operator; success read from the phone's state):", "", head,
             "|---|" + ":-:|---:|" * len(modes)]
    for row in rows:
        first = next(iter(row.values()))
        cells = " | ".join(f"{_mark(row[m])} | {_calls(row[m])}" for m in modes)
        lines.append(f"| {mask_task(first.goal)} | {cells} |")
    n = len(rows)
    totals = {m: sum(r[m].model_calls for r in rows) for m in modes}
    cells = " | ".join(
        f"{sum(r[m].success for r in rows)}/{n} | "
        f"{totals[m]} ({sum(r[m].planner_calls for r in rows)}+"
        f"{totals[m] - sum(r[m].planner_calls for r in rows)})" for m in modes)
    lines.append(f"| **total** | {cells} |")
    lines.append("")
    tokens = ", ".join(f"{m} {sum(r[m].tokens_in for r in rows):,} / "
                       f"{sum(r[m].tokens_out for r in rows):,}" for m in modes)
    lines.append(f"Tokens in / out: {tokens}.")
    if base is not None and totals[base]:
        ratios = ", ".join(f"{m} {totals[m] / totals[base]:.2f}×" for m in modes if m != base)
        lines.append(f"Calls against {base}: {ratios}.")
    lines += ["", "✘* the agent reported done but the phone's state says the task is not "
              "(premature goal_complete noise).", "",
              f"Command: {command(noise, seed, modes, tasks)}"]
    return "\n".join(lines)


def report(tasks: int | None = None, noise: str = "moderate", seed: int = 0,
           modes: Sequence[str] = MODES) -> str:
    return table(compare(tasks, noise, seed, modes), noise, seed, tasks)
