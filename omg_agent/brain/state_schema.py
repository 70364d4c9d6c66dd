"""The shape of ``state.json``: what a saved run must hold before a resume builds on it.

:func:`omg_agent.brain.resume.load_state` reads a run folder's ``state.json`` (written by
:func:`~omg_agent.brain.resume.state_data`), then validates it against :class:`SavedStateFile`
before anything is built from it, so a file that parses but has the wrong shape — ``[]``,
no ``budget``, a ``todo`` that is a string, a negative limit — is one line naming the field
(:func:`first_problem`), never a traceback. The file is read at most :data:`MAX_STATE_BYTES`.

Unknown keys are kept (``extra="allow"``): a newer writer may add fields an older reader
does not know.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from omg_agent.brain.run_state import Phase
from omg_agent.core.contracts import TaskStep
from omg_agent.core.results import FailureKind, PostMortem

MAX_STATE_BYTES = 32 * 1024 * 1024  # a long run's state is a few MB; more is not ours
Count = Annotated[int, Field(ge=0)]


class _Part(BaseModel):
    model_config = ConfigDict(extra="allow")


class _Entry(_Part):
    step: TaskStep
    ticked: bool


class _Budget(_Part):
    limit: Annotated[int, Field(ge=1)]
    used: Count
    counts: dict[str, Count]


class _Dialogue(_Part):
    pending: str | None
    answers: list[tuple[str, str]]
    secret: bool = False  # older files: no question asked for a secret


class _Record(_Part):
    step: int
    summary: str
    screen_hash: str
    failure: tuple[FailureKind, str] | None


class _Held(_Part):
    """The held sensitive action, saved whole (a description alone in older files)."""

    describe: str
    cls: str
    action: dict[str, Any]


class SavedStateFile(_Part):
    """Every key :func:`~omg_agent.brain.resume.load_state` reads, with its type."""

    version: Literal[1]
    task: str
    phase: Phase
    predefined: bool
    goal: str = ""
    todo: list[_Entry]
    budget: _Budget
    dialogue: _Dialogue
    records: list[_Record]
    retried: list[int]
    jumps: dict[int, int]
    checkpoint: str
    outcome: str
    held: str | _Held | None
    refusal: tuple[str, str, str, int] | None = None  # the user's no: words, what, class, turn
    spent: list[tuple[str, str] | None] = []  # payments let through: amount, currency
    plan_repeats: Count
    note: str = ""
    claim: str | None = None
    own_todo: str = ""
    planned: bool = False
    planner_calls: Count = 0
    wait_turns: Count = 0
    pending_pm: PostMortem | None = None
    post_mortems: list[PostMortem]
    memory: dict[str, str]
    session: str | None = ""
    turns: Count
    usage: tuple[Count, Count, Count]
    device: str
    plan_file: str | None = None
    ended: str | None = None
    ended_because: str | None = ""
    dry_run: bool = False  # a --dry-run's state: never carried out for real
    baseline: dict[str, bool] = {}  # each check's value when first seen (brain/honest.py)
    touched: list[dict[str, str]] = []  # the elements actions landed on
    apps: dict[str, str] = {}  # each app's first screen the run kept (its hash)
    seen: list[dict[str, Any]] = []  # those screens' elements (brain/honest.saved_screens)
    passed: list[dict[str, Any]] = []  # what the gate let go (guards/ledger.py)
    kept: dict[str, Any] = {}  # the scans under Kept (brain/kept.py)
    words_grant: bool = False  # the task's words grant (a human's, or allowed by one)


# pydantic names the member of a union it tried in the error's path ("held._Held.cls"):
# our fields are lower_snake, members are classes or type names
_UNION_MEMBER = re.compile(r"_?[A-Z]\w*|str|int|float|bool|dict|list|tuple|none|[a-z-]+\[.*\]")


def first_problem(exc: ValidationError) -> str:
    """The most specific problem of ``exc`` as ``field.path: what is wrong`` (one line):
    of a union's alternatives, the one that got furthest."""
    errors = exc.errors(include_url=False)
    error = max(errors, key=lambda e: len(e["loc"]))
    where = ".".join(str(part) for part in error["loc"]
                     if not (isinstance(part, str) and _UNION_MEMBER.fullmatch(part)))
    more = len(errors) - 1
    return f"{where or 'the file'}: {error['msg']}" + (f" (and {more} more)" if more else "")


__all__ = ["MAX_STATE_BYTES", "SavedStateFile", "first_problem"]
