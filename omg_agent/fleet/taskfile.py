"""TASKS.yaml: what ``omg-agent fleet run`` runs, read within limits and validated.

::

    model: sim                 # optional: sim (the expert double), an endpoint URL, a model
    max_steps: 40              # optional: step budget per task
    tasks:
      - suite: settings.wifi   # a task of the bench suite (on a vphone slot, the double's home)
      - id: wifi-off           # a plain-language task for a phone
        goal: Turn off Wi-Fi
        profile: Pixel 7       # optional: the device model it needs (ro.product.model)
        app: com.android.settings   # optional: an app package the device must have

Read through :mod:`omg_agent.userfiles` (size, depth and alias limits); any error is one
line naming the field and what is accepted.

A goal is the file's words, not the words of the user at the terminal: the permissions it
states ("you may pay in Shop", "可以付款") grant nothing (:mod:`omg_agent.guards.provenance`);
``omg-agent fleet run --allow …`` and the user's config do. The file has no ``allow:``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from omg_agent.errors import ConfigError
from omg_agent.userfiles import Limits, load_file

MAX_TASKS_BYTES = 256 * 1024
MAX_TASKS = 1000
TASKS_LIMITS = Limits(max_bytes=MAX_TASKS_BYTES, max_depth=8, max_nodes=20_000)

Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100,
                                        pattern=r"^[A-Za-z0-9._\- ]+$")]
# a task's id names its trace folder (runs/<id>): one safe path component, never '.', '..'
# or a hidden name
SAFE_ID = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$"
Id = Annotated[str, StringConstraints(strip_whitespace=True, pattern=SAFE_ID)]
ID_ACCEPTED = ("a safe name: 1-100 letters, digits, '.', '_' or '-', starting with a letter "
               "or a digit")


class FleetTask(BaseModel):
    """One entry of ``tasks``: a suite task by id, or a goal in plain language."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: Id | None = None
    suite: Id | None = Field(None, description="A bench suite task id.")
    goal: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1,
                                           max_length=2000)] | None = None
    profile: Name | None = Field(None, description="Device model the task needs.")
    app: Name | None = Field(None, description="App package the device must have.")

    @property
    def key(self) -> str:
        return self.id or self.suite or ""


class TaskFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    model: Annotated[str, StringConstraints(max_length=500)] | None = None
    max_steps: int = Field(40, ge=1, le=1000)
    tasks: list[FleetTask] = Field(min_length=1, max_length=MAX_TASKS)


ACCEPTED = ("accepted: model, max_steps, tasks (each: suite: ID, or id: + goal:, "
            "with optional profile:, app:)")


def parse_tasks(data: Any, where: str) -> TaskFile:
    """Validate a loaded TASKS document; :class:`ConfigError` names the first problem."""
    try:
        parsed = TaskFile.model_validate(data)
    except ValidationError as exc:  # the field's place and the rule, never its value
        error = exc.errors(include_url=False)[0]
        at = ".".join(str(p) for p in error["loc"]) or "the file"
        if error["loc"][-1:] in (("id",), ("suite",)) \
                and error["type"] == "string_pattern_mismatch":
            raise ConfigError(f"{where}: {at}: not {ID_ACCEPTED}") from None
        raise ConfigError(f"{where}: {at}: {error['msg']}; {ACCEPTED}") from None
    for i, task in enumerate(parsed.tasks):
        if (task.suite is None) == (task.goal is None):
            raise ConfigError(f"{where}: tasks.{i}: give either suite: or goal:; {ACCEPTED}")
        if task.goal is not None and task.id is None:
            raise ConfigError(f"{where}: tasks.{i}: a goal task needs an id:; {ACCEPTED}")
    keys = [t.key for t in parsed.tasks]
    twice = next((i for i, k in enumerate(keys) if k in keys[:i]), None)
    if twice is not None:
        raise ConfigError(f"{where}: tasks.{twice}: its id repeats tasks."
                          f"{keys.index(keys[twice])}'s; task ids must be unique")
    return parsed


def load_tasks_file(path: Path) -> TaskFile:
    """Read and validate the TASKS.yaml at ``path``."""
    docs = load_file(path, "tasks file", TASKS_LIMITS)
    if len(docs) != 1:
        raise ConfigError(f"tasks file {path}: expected one YAML document with tasks:, "
                          f"found {len(docs)}")
    return parse_tasks(docs[0], f"tasks file {path}")
