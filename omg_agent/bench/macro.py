"""``omg-agent bench macro``: repetitive Feed work step by step vs with macros (issue 15).

Two tasks on a vphone with the real-device latency profile on — "Like the first 30 posts"
and "Like the first 30 posts by <author>" (the author is given 34 of the first 52 posts,
interleaved with others, so both the count and the filter matter) — each run once per mode,
side by side:

* ``step-by-step`` — the agent as it is: the expert double (which reads the phone's true
  state) deciding every turn, default planning;
* ``one action a call`` (not run by default) — the same, but the double sends one action
  per reply (the peers' loop: a model call and a screenshot per repeated step); the default
  planning gives its one plan step a bounded number of tries, so on 30 posts this mode
  times out and ends in a loop stop — it is there to measure that, not as the baseline;
* ``macros`` — the same agent and double with a :class:`~omg_agent.macros.MacroSession`:
  after two repetitions the operator is offered the macro, the double accepts when it fits
  the task, and the compiled macro runs the rest as batched shell calls with checkpoints.

Columns: model calls (planner + operator replies), screenshots (``screencap`` calls),
device shell calls (every adb round trip: observations, inputs, queries), wall time of the
run, and correctness read from the phone: the liked set is exactly the wanted posts and no
post was toggled twice (``like_log``). *flow replay* replays the flow made from the
step-by-step run's trace (:mod:`omg_agent.flows`, no model) on a fresh phone; *replay cache*
is the second ``run`` of the task, which finds the flow the first one cached.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
import tempfile
from collections import Counter
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from PIL import Image

from omg_agent.bench.observe import LatencyPhone
from omg_agent.bench.suite.social_tasks import LikeSet
from omg_agent.brain.agent import open_agent
from omg_agent.brain.run_state import RunResult
from omg_agent.drivers.adb import AdbDriver
from omg_agent.macros.session import MacroSession
from omg_agent.sim.expert.policy import ExpertPolicy, NoiseProfile
from omg_agent.sim.expert.runner import sim_settings, task_human
from omg_agent.sim.macro_policy import MacroAwarePolicy
from omg_agent.sim.model_double import ModelDouble

log = logging.getLogger(__name__)

FEED = "com.omg.feed"
COUNT = 30
STEP, SINGLE, MACROS = "step-by-step", "one action a call", "macros"
FLOW, CACHE = "flow replay", "replay cache"
MODES = (STEP, SINGLE, MACROS, FLOW, CACHE)
DEFAULT_MODES = (STEP, MACROS, FLOW, CACHE)
AFTER_STEP = (FLOW, CACHE)  # replay what the step-by-step run left (its trace, its cache)
AUTHOR = "Emma"


@dataclass
class LikeFirstBy(LikeSet):
    """"Like the first ``count`` posts by ``author``": the author gets ``len(posts)`` + a
    few of the first posts (the rest by others), and only the first ``count`` of theirs are
    wanted."""

    count: int = COUNT
    spare: list[int] = dataclasses.field(default_factory=list)  # the author's later posts

    def _goal(self) -> str:
        return f"Like the first {self.count} posts by {self.author} in Feed"

    def setup(self, phone: Any) -> None:
        app = phone.apps[FEED]
        others = [a for a in dict.fromkeys(p["author"] for p in app.posts) if a != self.author]
        mine = set(self.posts) | set(self.spare)
        for post in app.posts:
            if post["id"] in mine:
                post["author"] = self.author
            elif post["author"] == self.author:
                post["author"] = others[post["id"] % len(others)]
        app.posts[max(self.posts) - 1]["likes"] = self.marker


def tasks() -> list[LikeSet]:
    """The two benchmark tasks."""
    first = LikeSet(posts=list(range(1, COUNT + 1)), marker=1500)
    mine = [n for n in range(1, 53) if n % 3 != 2]  # 35 posts; 2, 5, 8, … are others'
    by = LikeFirstBy(posts=mine[:COUNT], marker=1600, author=AUTHOR, spare=mine[COUNT:])
    return [first, by]


@dataclass(frozen=True)
class MacroRow:
    task: str
    mode: str
    correct: bool
    right: int  # wanted posts liked
    wrong: int  # posts liked that were not wanted
    twice: int  # posts toggled more than once
    model_calls: int
    screenshots: int
    shell_calls: int
    wall_s: float
    status: str
    macros: tuple[str, ...] = ()  # the macro reports of the run
    macro_s: float = 0.0  # of wall_s, the time macros ran (chunks and checkpoints)

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


class CountingAdbDriver(AdbDriver):
    """The ADB driver, counting the screenshots it takes (the bench's measurement)."""

    screenshots = 0

    def screenshot(self) -> tuple[Image.Image, bytes]:
        self.screenshots += 1
        return super().screenshot()


def run_one(task: LikeSet, mode: str, *, seed: int = 0, latency: bool = True,
            trace_dir: Path | None = None, max_steps: int = 200,
            work: Path | None = None) -> MacroRow:
    """``task`` once on a fresh vphone in ``mode`` (one of :data:`MODES`). ``work`` is the
    task's folder shared by its modes: the step-by-step run leaves its trace (``step/``)
    and the replay cache's entry there, which the flow replay and the replay cache use."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; choose from: {', '.join(MODES)}")
    if mode in AFTER_STEP and (work is None or not (work / "step").is_dir()):
        raise ValueError(f"{mode} replays the step-by-step run: run that first")
    with LatencyPhone(latency=latency, seed=seed) as lp, ExitStack() as stack:
        phone = lp.phone
        task.setup(phone)
        bundling: Literal["single", "multi"] = "single" if mode == SINGLE else "multi"
        expert = ExpertPolicy(task, phone, NoiseProfile.named("none", bundling), seed=seed)
        policy = MacroAwarePolicy(expert) if mode == MACROS else expert
        double = stack.enter_context(ModelDouble(policy))
        root = work or Path(stack.enter_context(tempfile.TemporaryDirectory()))
        settings = sim_settings(double.base_url, root, max_steps)
        driver = CountingAdbDriver(lp.serial)
        stack.callback(driver.close)
        session = MacroSession(driver) if mode == MACROS else None
        human, _ = task_human(task)
        if mode == FLOW:
            from omg_agent.flows.fromtrace import flow_from_trace
            from omg_agent.flows.session import replay

            flow = flow_from_trace(root / "step")
            replayed = replay(driver, flow, settings, trace_dir or root / "flow",
                              confirm=human, report=False)
            result = RunResult(replayed.status, "", replayed.commands, 0, 0, 0,
                               replayed.wall_s, [], replayed.failed, "")
        else:
            from omg_agent.flows.cache import run_cached

            run_dir = trace_dir or (root / ("step" if mode == STEP else mode.replace(" ", "-"))
                                    if work is not None else None)
            agent = open_agent(stack, driver, settings, task.goal, run_dir=run_dir,
                               session=f"bench-macro-{seed}", confirm=human, macros=session)
            # the step-by-step run fills the replay cache; the cache's run replays it
            result = run_cached(agent.run, agent.ports, task.goal,
                                runs_dir=agent.settings.runs_dir, enabled=mode in (STEP, CACHE))
        app: Any = phone.apps[FEED]
        want = set(task.posts)
        toggles: Counter[int] = Counter(app.like_log)
        right, wrong = len(app.liked & want), len(app.liked - want)
        twice = sum(1 for n in toggles.values() if n > 1)
        return MacroRow(
            task=task.goal, mode=mode, correct=app.liked == want and twice == 0,
            right=right, wrong=wrong, twice=twice, model_calls=result.model_calls,
            screenshots=driver.screenshots, shell_calls=driver.io.calls,
            wall_s=round(result.wall_s, 2), status=result.status,
            macros=tuple(r.summary() for r in (session.reports if session else ())),
            macro_s=round(sum(r.seconds for r in (session.reports if session else ())), 2))


def run_bench(*, seed: int = 0, latency: bool = True, modes: tuple[str, ...] = DEFAULT_MODES,
              progress: Callable[[MacroRow], None] | None = None) -> list[MacroRow]:
    """Every task in every mode of ``modes``, one run each, in order."""
    unknown = [m for m in modes if m not in MODES]
    if unknown:
        raise ValueError(f"unknown mode {', '.join(unknown)}; choose from: "
                         + ", ".join(MODES))
    if any(m in AFTER_STEP for m in modes) and STEP not in modes:
        raise ValueError(f"{' and '.join(m for m in modes if m in AFTER_STEP)} replay the "
                         f"{STEP} run: add it to the modes")
    rows: list[MacroRow] = []
    for task in tasks():
        with tempfile.TemporaryDirectory() as work:
            for mode in sorted(modes, key=lambda m: m in AFTER_STEP):  # step-by-step first
                row = run_one(copy.deepcopy(task), mode, seed=seed, latency=latency,
                              work=Path(work))
                rows.append(row)
                if progress is not None:
                    progress(row)
    return rows


def table(rows: list[MacroRow]) -> str:
    """The side-by-side table (markdown), one block per task, with the ratios of each
    step-by-step mode to macros."""
    lines: list[str] = []
    for goal in dict.fromkeys(r.task for r in rows):
        by = {r.mode: r for r in rows if r.task == goal}
        modes = [m for m in MODES if m in by]
        bases = [m for m in (STEP, SINGLE) if m in by] if MACROS in by else []
        lines += [f"**{goal}** (vphone, latency profile on)", "",
                  "| | " + " | ".join(modes) + "".join(f" | {b} ÷ macros" for b in bases)
                  + " |", "|---|" + "---:|" * (len(modes) + len(bases))]
        metrics: list[tuple[str, Callable[[MacroRow], float] | None,
                            Callable[[MacroRow], str]]] = [
            ("model calls", lambda r: r.model_calls, lambda r: str(r.model_calls)),
            ("screenshots", lambda r: r.screenshots, lambda r: str(r.screenshots)),
            ("device shell calls", lambda r: r.shell_calls, lambda r: str(r.shell_calls)),
            ("wall time (s)", lambda r: r.wall_s, lambda r: f"{r.wall_s:.1f}"),
            ("… of it in macros (s)", None, lambda r: f"{r.macro_s:.1f}" if r.macros else "–"),
            ("correct", None, _correct)]
        for name, value, fmt in metrics:
            cells = [fmt(by[m]) if m in by else "n/a" for m in modes]
            for base in bases:
                den = value(by[MACROS]) if value is not None else 0
                cells.append("" if value is None else
                             f"{value(by[base]) / den:.1f}×" if den else "∞")
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def _correct(r: MacroRow) -> str:
    if r.correct:
        return f"{r.right}/{COUNT} ✓"
    return f"{r.right}/{COUNT} ✗ ({r.wrong} extra, {r.twice} twice)"
