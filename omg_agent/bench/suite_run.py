"""``omg-agent bench suite``'s runner: every (task, repeat, variant) on its own fresh vphone.

A *job* is one task run under one variant. Jobs run in worker processes (``spawn``: the
parent may hold threads), each with its own in-process vphone on a free port, all on the one
adb server, so ``--parallel`` changes the wall time and nothing else. Each task's seed comes
from (suite seed, task id, repeat index) and is the same for every variant, so variants are
compared on identical phones (their ``setup_digest`` says so) and identical noise draws.
Workers die with the suite (issue 25, :func:`~omg_agent.bench.lifeline.die_with_parent`):
a suite killed through its pid leaves no worker holding its stdout.

A :class:`Variant` (``--config NAME:key=value,…``) may set ``bundling`` (single|multi, the
expert double's replies), ``noise`` (the expert double's noise profile), ``max_steps`` and any
:class:`~omg_agent.config.Settings` field. The model is the expert double (``sim``) or a real
OpenAI-compatible endpoint (:func:`endpoint_for`); success is read from the phone either way.
Results become plain dicts (:func:`run_record`) that :mod:`omg_agent.bench.scorecard` turns
into the table, ``scorecard.json`` and ``scorecard.html``.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import logging
import multiprocessing
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

from omg_agent.bench.lifeline import die_with_parent
from omg_agent.config import Settings
from omg_agent.core.secrets import mask_task
from omg_agent.errors import ConfigError, ModelNotConfigured
from omg_agent.sim.expert.policy import NoiseProfile
from omg_agent.sim.expert.runner import TaskRun, run_task, with_overrides
from omg_agent.sim.expert.tasks import Task

log = logging.getLogger(__name__)

DEFAULT_MAX_STEPS = 40
NOISE_PROFILES = ("none", "moderate")
BUNDLINGS = ("single", "multi")
VARIANT_KEYS = ("bundling", "noise", "max_steps")
# Settings a variant may not change: they say where the model is, not how the agent works.
FIXED_SETTINGS = ("base_url", "api_key", "device", "runs_dir", "memory_db")


@dataclass(frozen=True)
class Variant:
    """One configuration under test; ``None`` fields take the suite's value."""

    name: str
    bundling: str = "multi"
    noise: str | None = None
    max_steps: int | None = None
    settings: tuple[tuple[str, Any], ...] = ()

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"bundling": self.bundling}
        if self.noise is not None:
            out["noise"] = self.noise
        if self.max_steps is not None:
            out["max_steps"] = self.max_steps
        return {**out, **dict(self.settings)}


def parse_variant(text: str) -> Variant:
    """``NAME:key=value[,key=value]`` (or just ``NAME``) → a validated :class:`Variant`."""
    name, _, body = text.partition(":")
    name = name.strip()
    if not name or not all(c.isalnum() or c in "-_." for c in name):
        raise ConfigError(f"--config {text!r}: the variant needs a name of letters, digits, "
                          "'-', '_' or '.' before ':' (e.g. single:bundling=single)")
    known = [*VARIANT_KEYS, *(f for f in Settings.model_fields if f not in FIXED_SETTINGS)]
    fields: dict[str, Any] = {}
    settings: dict[str, Any] = {}
    for pair in filter(None, (p.strip() for p in body.split(","))):
        key, eq, value = (s.strip() for s in pair.partition("="))
        if not eq or not key:
            raise ConfigError(f"--config {text!r}: {pair!r} is not key=value")
        if key not in known:
            raise ConfigError(f"--config {text!r}: unknown key {key!r}; known keys: "
                              + ", ".join(known))
        if key in VARIANT_KEYS:
            fields[key] = value
        else:
            settings[key] = value
    variant = Variant(name, **_checked_fields(text, fields))
    try:
        checked = Settings.model_validate({"model": "check", **settings})
    except ValidationError as exc:
        raise ConfigError(f"--config {text!r}: {_first_error(exc)}") from None
    return dataclasses.replace(variant, settings=tuple(
        (k, getattr(checked, k)) for k in settings))


def _checked_fields(text: str, fields: dict[str, str]) -> dict[str, Any]:
    if fields.get("bundling", "multi") not in BUNDLINGS:
        raise ConfigError(f"--config {text!r}: bundling must be single or multi")
    if fields.get("noise", "none") not in NOISE_PROFILES:
        raise ConfigError(f"--config {text!r}: noise must be " + " or ".join(NOISE_PROFILES))
    out: dict[str, Any] = dict(fields)
    if "max_steps" in fields:
        try:
            out["max_steps"] = int(fields["max_steps"])
        except ValueError:
            raise ConfigError(f"--config {text!r}: max_steps must be a whole number") from None
        if out["max_steps"] < 1:
            raise ConfigError(f"--config {text!r}: max_steps must be at least 1")
    return out


def _first_error(exc: ValidationError) -> str:
    error = exc.errors(include_url=False)[0]
    where = ".".join(str(p) for p in error["loc"]) or "settings"
    return f"{where}: {error['msg']}"


def parse_variants(texts: Sequence[str]) -> tuple[Variant, ...]:
    """Every ``--config``; none given means one variant, ``default``."""
    variants = tuple(parse_variant(t) for t in texts) or (Variant("default"),)
    names = [v.name for v in variants]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ConfigError("--config: variant names must differ; repeated: " + ", ".join(twice))
    return variants


def endpoint_for(model: str | None, env: dict[str, str] | None = None) -> Settings | None:
    """The model the suite talks to: ``None`` for ``sim`` (the expert double); else Settings
    for an endpoint URL, a model name, or what is configured (OMG_BASE_URL, OMG_MODEL…)."""
    if model == "sim":
        return None
    overrides: dict[str, Any] = {}
    if model and model.startswith(("http://", "https://")):
        overrides["base_url"] = model
    elif model:
        overrides["model"] = model
    settings = Settings.load(env=env, overrides=overrides)
    if settings.base_url is not None and not settings.model_for("operator"):
        settings = with_overrides(settings, {"model": _served_model(settings)})
    if not settings.model_configured:
        raise ModelNotConfigured(settings.missing_model_help()
                                 + "\nor run on the expert double: --model sim")
    return settings


def _served_model(settings: Settings) -> str:
    """The first model an endpoint lists (vLLM, SGLang and Ollama serve one or a few)."""
    import openai

    from omg_agent.brain.llm import openai_client

    try:
        with openai_client(settings) as client:
            names = [m.id for m in client.with_options(max_retries=1).models.list()]
    except openai.OpenAIError as exc:
        raise ModelNotConfigured(f"{settings.base_url} lists no models ({exc}); set "
                                 "OMG_MODEL=<model name>") from None
    if not names:
        raise ModelNotConfigured(f"{settings.base_url} lists no models; set OMG_MODEL")
    log.info("%s serves %s; using %s", settings.base_url, names, names[0])
    return names[0]


def task_seed(suite_seed: int, task_id: str, repeat: int) -> int:
    """The phone and noise seed of one task repeat: stable, the same for every variant."""
    digest = hashlib.sha256(f"{suite_seed}/{task_id}/{repeat}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % 1_000_000


@dataclass(frozen=True)
class SuitePlan:
    """What to run: tasks × repeats × variants, on the double (``endpoint None``) or a model."""

    tasks: tuple[Task, ...]
    variants: tuple[Variant, ...] = (Variant("default"),)
    noise: str = "moderate"
    seed: int = 0
    repeat: int = 1
    max_steps: int = DEFAULT_MAX_STEPS
    endpoint: Settings | None = None

    def __post_init__(self) -> None:
        ids = [t.id for t in self.tasks]
        if not all(ids):
            raise ConfigError("every suite task needs an id")
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            raise ConfigError("task ids must be unique; repeated: " + ", ".join(twice))
        if self.noise not in NOISE_PROFILES:
            raise ConfigError(f"unknown noise profile {self.noise!r}: choose "
                              + " or ".join(NOISE_PROFILES))
        if self.repeat < 1:
            raise ConfigError("--repeat must be at least 1")


@dataclass(frozen=True)
class Job:
    """One run: a task repeat under one variant, with everything a worker process needs."""

    index: int
    variant: Variant
    task: Task
    repeat: int
    seed: int
    noise: str
    max_steps: int
    endpoint: Settings | None
    trace_dir: Path


def plan_jobs(plan: SuitePlan, out: Path) -> list[Job]:
    """Jobs in table order: task, then repeat, then variant."""
    jobs: list[Job] = []
    for task in plan.tasks:
        for repeat in range(plan.repeat):
            seed = task_seed(plan.seed, task.id, repeat)
            for v in plan.variants:
                jobs.append(Job(len(jobs), v, task, repeat, seed, v.noise or plan.noise,
                                v.max_steps or plan.max_steps, plan.endpoint,
                                out / "runs" / v.name / f"{task.id}-r{repeat}"))
    return jobs


def run_job(job: Job, host: Callable[..., Any] | None = None) -> TaskRun:
    """Run one job (in a worker process); a crash becomes that run's recorded failure.
    ``host`` is passed to :func:`~omg_agent.sim.expert.runner.run_task`."""
    task = copy.deepcopy(job.task)  # setup may fill in fields (e.g. a password)
    noise = NoiseProfile.named(job.noise, job.variant.bundling)  # type: ignore[arg-type]
    try:
        return run_task(task, noise, seed=job.seed, max_steps=job.max_steps,
                        overrides=dict(job.variant.settings), endpoint=job.endpoint,
                        trace_dir=job.trace_dir, host=host)
    except Exception as exc:  # one run's crash is its own failure, not the suite's
        log.exception("%s (%s) crashed", task.id, job.variant.name)
        return TaskRun(mask_task(task.goal), False, "error", 0, 0, 0, 0, task_id=task.id,
                       tags=tuple(task.tags), impossible=task.impossible, seed=job.seed,
                       error=f"{type(exc).__name__}: {exc}")


def run_record(job: Job, run: TaskRun, out: Path) -> dict[str, Any]:
    """One run as the scorecard's JSON holds it (paths relative to ``out``)."""
    record = {"variant": job.variant.name, "repeat": job.repeat, **run.as_dict()}
    for key in ("trace_dir", "report"):
        if record[key]:
            record[key] = Path(os.path.relpath(record[key], out)).as_posix()
    return record


@dataclass
class SuiteRun:
    """What :func:`run_suite` did: one record per job, in table order, and the wall time."""

    plan: SuitePlan
    out: Path
    records: list[dict[str, Any]] = field(default_factory=list)
    wall_s: float = 0.0
    parallel: int = 1


def run_suite(plan: SuitePlan, out: Path, parallel: int = 1,
              on_run: Callable[[int, int, dict[str, Any]], None] | None = None) -> SuiteRun:
    """Run every job (``parallel`` worker processes; 1 runs them here, in order)."""
    out.mkdir(parents=True, exist_ok=True)
    jobs = plan_jobs(plan, out)
    started = time.perf_counter()
    workers = max(1, min(parallel, len(jobs)))
    records = run_parallel(jobs, run_job, lambda job, run: run_record(job, run, out),
                           workers, on_run)
    return SuiteRun(plan, out, records, round(time.perf_counter() - started, 3), workers)


J = TypeVar("J")
R = TypeVar("R")


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """The suite's worker processes (``spawn``; each dies with this process)."""
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context(
        "spawn"), initializer=die_with_parent, initargs=(os.getpid(),))


def run_parallel(jobs: Sequence[J], work: Callable[[J], R],
                 record: Callable[[J, R], dict[str, Any]], workers: int,
                 on_run: Callable[[int, int, dict[str, Any]], None] | None = None
                 ) -> list[dict[str, Any]]:
    """``work`` on every job (``workers`` processes; 1 runs them here, in order), each
    result turned into a record as it arrives; the records in the jobs' order."""
    done: dict[int, dict[str, Any]] = {}

    def finished(index: int, job: J, result: R) -> None:
        done[index] = record(job, result)
        if on_run is not None:
            on_run(len(done), len(jobs), done[index])

    if workers <= 1:
        for index, job in enumerate(jobs):
            finished(index, job, work(job))
    else:
        with worker_pool(workers) as pool:
            futures = {pool.submit(work, job): (i, job) for i, job in enumerate(jobs)}
            for future in as_completed(futures):
                finished(*futures[future], future.result())
    return [done[i] for i in range(len(jobs))]


def scorecard_of(run: SuiteRun, command: str) -> dict[str, Any]:
    """The scorecard dict (what ``scorecard.json`` holds) of a finished suite run."""
    from omg_agent.bench.scorecard import build_scorecard

    plan = run.plan
    endpoint = plan.endpoint
    meta = {"command": command,
            "model": "sim (expert double)" if endpoint is None else
            f"{endpoint.model_for('operator')} at {endpoint.base_url or 'OpenAI'}",
            "noise": plan.noise if endpoint is None else "n/a (real model)",
            "seed": plan.seed, "repeat": plan.repeat, "max_steps": plan.max_steps,
            "parallel": run.parallel, "wall_s": run.wall_s,
            "started": time.strftime("%Y-%m-%d %H:%M:%S",
                                     time.localtime(time.time() - run.wall_s))}
    variants = [{"name": v.name, "settings": v.describe()} for v in plan.variants]
    return build_scorecard(meta, variants, run.records)
