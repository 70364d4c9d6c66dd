"""``omg-agent bench calls``: model calls and tokens per task, planning mode and vision.

For each of the suite's classic multi-step tasks (:data:`CALL_TASKS`: Shop → Notes, switches,
a note, a message, likes, the cart, brightness, sign-in), on a fresh seeded in-process vphone,
the Orchestrator runs once per planning mode (:mod:`omg_agent.brain.modes`) and vision
setting (:mod:`omg_agent.brain.looking`: screenshot always / auto / never) with the same
seed and noise, the expert double answering as the mode's prompt asks; one table shows
success (from the phone's true state), model calls (planner + operator, and how many of the
planner's confirmed a "done"), and tokens in / out / cached per task and in total, each
mode's calls against ``flat`` — the peers' loop — and each vision's input tokens against
``always``. Tokens are counted by :func:`omg_agent.bench.tokens.token_counter` (a real
tokenizer when installed); cached tokens come from the double's simulated prompt cache.
"""

from __future__ import annotations

import copy
import logging
import shlex
from collections.abc import Sequence

from omg_agent.bench.progress import SILENT, Progress
from omg_agent.bench.tokens import token_counter
from omg_agent.brain.looking import VISION_MODES
from omg_agent.brain.modes import MODES
from omg_agent.core.secrets import mask_task
from omg_agent.errors import ConfigError
from omg_agent.sim.expert.policy import NoiseProfile
from omg_agent.sim.expert.runner import TaskRun, run_task
from omg_agent.sim.model_double import CACHE_MIN_TOKENS, CACHE_STEP_TOKENS, IMAGE_TOKENS

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


def parse_visions(text: str) -> tuple[str, ...]:
    """``always,never`` → the vision settings, checked (one-line error naming the choices)."""
    chosen = tuple(v.strip() for v in text.split(",") if v.strip())
    bad = [v for v in chosen if v not in VISION_MODES]
    if bad or not chosen:
        raise ConfigError(f"--vision {text!r}: unknown setting(s) {', '.join(bad) or '(none)'};"
                          f" choose from {', '.join(VISION_MODES)}")
    return chosen


def parse_modes(text: str) -> tuple[str, ...]:
    """``flat,adaptive`` → the modes, checked; a one-line error names what is accepted."""
    modes = tuple(m.strip() for m in text.split(",") if m.strip())
    bad = [m for m in modes if m not in MODES]
    if bad or not modes:
        raise ConfigError(f"--modes {text!r}: unknown mode(s) {', '.join(bad) or '(none)'}; "
                          f"choose from {', '.join(MODES)}")
    return modes


Variant = tuple[str, str]  # (planning mode, vision)
VISIONS = ("always", "auto", "never")
VISION_BASE = "always"


def compare(tasks: int | None = None, noise: str = "moderate", seed: int = 0,
            modes: Sequence[str] = MODES, progress: Progress = SILENT,
            visions: Sequence[str] = VISIONS) -> list[dict[Variant, TaskRun]]:
    """Per task, its run in each mode and vision."""
    rows = []
    chosen = call_tasks(seed)[:tasks]
    count, _ = token_counter()
    progress.phase("calls", len(chosen) * len(modes) * len(visions))
    for index, task in enumerate(chosen):
        draws = seed * 1000 + index  # each task its own noise stream, same for every mode
        row = {}
        for mode in modes:
            for vision in visions:
                row[mode, vision] = run_task(
                    copy.deepcopy(task), NoiseProfile.named(noise), seed=seed,
                    noise_seed=draws, count_tokens=count,
                    overrides={"planning": mode, "vision": vision,
                               **MODE_OVERRIDES.get(mode, {})})
                progress.advance(f"{task.id} · {mode} · {vision}")
        rows.append(row)
    return rows


def command(noise: str, seed: int, modes: Sequence[str], tasks: int | None = None,
            visions: Sequence[str] = VISIONS) -> str:
    """The ``omg-agent bench calls`` command line that makes this table again."""
    words = ["omg-agent", "bench", "calls", "--noise", noise]
    words += ["--seed", str(seed)] if seed else []
    words += ["--modes", ",".join(modes)] if tuple(modes) != MODES else []
    words += ["--vision", ",".join(visions)] if tuple(visions) != VISIONS else []
    words += ["--tasks", str(tasks)] if tasks is not None else []
    return shlex.join(words)


def _mark(r: TaskRun) -> str:
    return "✔" if r.success else "✘*" if r.status == "done" else "✘"


def _calls(runs: Sequence[TaskRun]) -> str:
    calls = sum(r.model_calls for r in runs)
    planner = sum(r.planner_calls for r in runs)
    confirms = sum(r.confirm_calls for r in runs)
    return f"{calls} ({planner}+{calls - planner})" + (f", {confirms} conf." if confirms else "")


def _k(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


def _tokens(runs: Sequence[TaskRun]) -> str:
    return " / ".join(_k(sum(getattr(r, f) for r in runs))
                      for f in ("tokens_in", "tokens_out", "tokens_cached"))


def table(rows: list[dict[Variant, TaskRun]], noise: str, seed: int,
          tasks: int | None = None, counted_with: str | None = None) -> str:
    variants = list(rows[0]) if rows else []
    modes = list(dict.fromkeys(m for m, _ in variants))
    visions = list(dict.fromkeys(v for _, v in variants))
    counted_with = counted_with or token_counter()[1]
    head = "| task | mode | " + " | ".join(f"{v}: ok | calls | tokens in / out / cached"
                                          for v in visions) + " |"
    lines = [f"Model calls and tokens per planning mode and vision (expert double, noise "
             f"{noise!r}, seed {seed}; calls = planner + operator, conf. = planner calls "
             "that confirmed a done; success read from the phone's state):", "", head,
             "|---|---|" + ":-:|---:|---:|" * len(visions)]
    for row in rows:
        first = next(iter(row.values()))
        for mode in modes:
            cells = " | ".join(f"{_mark(row[mode, v])} | {_calls([row[mode, v]])} | "
                               f"{_tokens([row[mode, v]])}" for v in visions)
            lines.append(f"| {mask_task(first.goal)} | {mode} | {cells} |")
    n = len(rows)
    for mode in modes:
        cells = " | ".join(
            f"{sum(r[mode, v].success for r in rows)}/{n} | "
            f"{_calls([r[mode, v] for r in rows])} | {_tokens([r[mode, v] for r in rows])}"
            for v in visions)
        lines.append(f"| **total** | {mode} | {cells} |")
    lines.append("")
    lines += _ratios(rows, modes, visions)
    lines += ["", "✘* the agent reported done but the phone's state says the task is not "
              "(premature goal_complete noise).",
              f"Tokens counted with {counted_with}; each screenshot {IMAGE_TOKENS} tokens (a "
              "high-detail 1024 px image at OpenAI); cached = the prefix a request shares "
              f"with an earlier one, from {CACHE_MIN_TOKENS} tokens in steps of "
              f"{CACHE_STEP_TOKENS} (OpenAI's rule), simulated by the double.", "",
              f"Command: {command(noise, seed, modes, tasks, visions)}"]
    return "\n".join(lines)


def _ratios(rows: list[dict[Variant, TaskRun]], modes: list[str],
            visions: list[str]) -> list[str]:
    """Calls against flat (per vision) and input tokens against vision ``always``."""
    out = []

    def total(mode: str, vision: str, field: str) -> int:
        return sum(getattr(r[mode, vision], field) for r in rows)

    if BASELINE in modes:
        for vision in visions:
            base = total(BASELINE, vision, "model_calls")
            if base and len(modes) > 1:
                out.append(f"Calls against {BASELINE} (vision {vision}): " + ", ".join(
                    f"{m} {total(m, vision, 'model_calls') / base:.2f}×"
                    for m in modes if m != BASELINE) + ".")
    if VISION_BASE in visions and len(visions) > 1:
        for mode in modes:
            base = total(mode, VISION_BASE, "tokens_in")
            if base:
                out.append(f"Input tokens against vision {VISION_BASE} ({mode}): " + ", ".join(
                    f"{v} {total(mode, v, 'tokens_in') / base:.2f}×"
                    for v in visions if v != VISION_BASE) + ".")
    return out


def report(tasks: int | None = None, noise: str = "moderate", seed: int = 0,
           modes: Sequence[str] = MODES, visions: Sequence[str] = VISIONS) -> str:
    return table(compare(tasks, noise, seed, modes, visions=visions), noise, seed, tasks)
