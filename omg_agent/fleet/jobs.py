"""Fleet jobs from what users give: a bench-suite plan, or a TASKS.yaml file.

:func:`suite_on_fleet` is ``bench suite --ray``: the suite's jobs through the fleet
dispatcher, returned as the suite's own :class:`~omg_agent.bench.suite_run.SuiteRun` so the
scorecard is the same table.
"""

from __future__ import annotations

import os
from pathlib import Path

from omg_agent.bench.suite import load_tasks
from omg_agent.bench.suite_run import SuitePlan, SuiteRun, endpoint_for, plan_jobs
from omg_agent.config import Settings
from omg_agent.errors import ConfigError, UnsafeSetting
from omg_agent.fleet.attempt import FleetJob
from omg_agent.fleet.scheduler import Backend, FleetRun, OnRun, run_fleet
from omg_agent.fleet.taskfile import ID_ACCEPTED, TaskFile
from omg_agent.sim.expert.runner import with_overrides
from omg_agent.userfiles import inside


def suite_jobs(plan: SuitePlan, out: Path, start: int = 0) -> list[FleetJob]:
    """The plan's jobs (table order), each for a vphone slot."""
    return [FleetJob(start + i, job.task.id,
                     Path(os.path.relpath(job.trace_dir, out)).as_posix(), suite=job)
            for i, job in enumerate(plan_jobs(plan, out))]


def suite_on_fleet(plan: SuitePlan, out: Path, backend: Backend,
                   on_run: OnRun | None = None) -> tuple[SuiteRun, FleetRun]:
    """Run the suite's jobs on the backend's devices: the suite's run and the fleet's."""
    out.mkdir(parents=True, exist_ok=True)
    fleet = run_fleet(suite_jobs(plan, out), backend, out, on_run)
    slots = sum(1 for d in fleet.devices if d.is_vphone)
    return SuiteRun(plan, out, fleet.records, fleet.wall_s, max(1, slots)), fleet


def file_jobs(tasks: TaskFile, out: Path, model: str | None = None,
              noise: str = "none", seed: int = 0, allow: str | None = None) -> list[FleetJob]:
    """A TASKS.yaml's jobs in its order (``model``, the user's ``--model``, in place of the
    file's). The file's endpoint URL is refused unless it is the one the user configured:
    the user's API key goes nowhere a tasks file names. A goal's words grant nothing (the
    file's author is not the user at this terminal); ``allow`` is the user's ``--allow``,
    added to what their config allows."""
    if model is None and tasks.model is not None:
        own_endpoint(tasks.model)
    endpoint = endpoint_for(model or tasks.model)
    jobs: list[FleetJob] = []
    suite_ids = [t.suite for t in tasks.tasks if t.suite]
    suite = ({t.id: t for t in load_tasks(seed, ",".join(suite_ids))}
             if suite_ids else {})
    for entry in tasks.tasks:
        if entry.suite is not None:
            if entry.suite not in suite:
                raise ConfigError(f"tasks: {entry.key}: suite: not a task id of the suite "
                                  "(see omg-agent bench suite --list)")
            plan = SuitePlan((suite[entry.suite],), noise=noise, seed=seed,
                             max_steps=tasks.max_steps, endpoint=endpoint)
            job = suite_jobs(plan, out, len(jobs))[0]
            jobs.append(FleetJob(job.index, entry.key, job.rel, suite=job.suite,
                                 profile=entry.profile, app=entry.app))
        else:
            if endpoint is None:
                raise ConfigError(f"tasks: {entry.key}: a goal needs a model; 'sim' (the "
                                  "expert double) runs suite: tasks only: give --model NAME "
                                  "or URL (to try one without a key: omg-agent sim serve)")
            overrides: dict[str, object] = {"max_steps": tasks.max_steps}
            if allow:
                overrides["allow"] = ",".join(a for a in (endpoint.allow, allow) if a)
            jobs.append(FleetJob(len(jobs), entry.key, trace_rel(out, entry.key),
                                 goal=entry.goal,
                                 settings=with_overrides(endpoint, overrides),
                                 profile=entry.profile, app=entry.app))
    return jobs


def trace_rel(out: Path, key: str) -> str:
    """``runs/<key>``, the folder of a goal task's trace under ``out``; a key that would
    lead out of ``out/runs`` (resolved, symlinks followed) is refused."""
    if inside(out / "runs", key) is None or not key.strip(" ."):
        raise ConfigError(f"tasks: a task id leads out of {out / 'runs'}: give {ID_ACCEPTED}")
    return f"runs/{key}"


def own_endpoint(model: str) -> None:
    """Refuse a tasks file's endpoint URL unless it is the user's configured one (their
    OMG_BASE_URL, omg.toml or OPENAI_BASE_URL): a file may name a model, not where the
    user's API key is sent."""
    if not model.strip().lower().startswith(("http://", "https://")):
        return
    configured = Settings.load().base_url
    if configured is None or model.strip().rstrip("/") != configured:
        raise UnsafeSetting("tasks file: model: an endpoint URL in a tasks file must be the "
                            "endpoint you configured (OMG_BASE_URL), since your API key is "
                            "sent there; give the URL with --model to use another")
