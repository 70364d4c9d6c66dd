"""What went wrong, typed from the driver to the post-mortem (STYLE.md #14).

A :class:`Failure` is a :class:`FailureKind` plus the message a person reads; it is made
where the failure happens (the operator maps a driver's exception type to its kind, the
verifier names the check that failed) and travels unchanged to the post-mortem and the
planner — nothing downstream re-reads the message to find out what happened.

:class:`PostMortem` is the failed step's report to the planner (and the trace), with the
recovery the reason suggests. Pure data, no I/O.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict

# How a run ended: the documented statuses (docs/guide/reliability.md), and only them. Every
# result.json is written through TraceRecorder.finish, which refuses any other word.
Status = Literal["done", "failed", "ask_user", "infeasible", "needs_confirmation",
                 "declined", "interrupted", "unverified"]
STATUSES: tuple[str, ...] = get_args(Status)


class FailureKind(enum.StrEnum):
    """Why a turn or a step failed. The post-mortem reasons are a subset (see RECOVERY)."""

    ELEMENT_NOT_FOUND = "ELEMENT_NOT_FOUND"  # a target matched nothing on the screen
    CLICK_MISSED = "CLICK_MISSED"  # the action ran but the screen did not react
    LOOP = "LOOP"  # the same actions or screens keep coming back
    APP_NOT_RESPONDING = "APP_NOT_RESPONDING"
    UNEXPECTED_DIALOG = "UNEXPECTED_DIALOG"
    TIMEOUT = "TIMEOUT"  # the step ran out of tries or time
    BUDGET = "BUDGET"  # the run's step budget is spent
    NOT_VERIFIED = "NOT_VERIFIED"  # the model claimed success; the checks disagree
    NO_DECISION = "NO_DECISION"  # no valid reply from the model within the attempts
    DEVICE_ERROR = "DEVICE_ERROR"  # the device refused or dropped a command
    MISSING_VALUE = "MISSING_VALUE"  # a $var that nobody saved
    MODEL_REPORTED = "MODEL_REPORTED"  # the model judged its last actions failed
    DECLINED = "DECLINED"  # the user said no to a sensitive action


@dataclass(frozen=True)
class Failure:
    kind: FailureKind
    message: str

    def __str__(self) -> str:
        return self.message


# What the planner is told to try next, per post-mortem reason.
RECOVERY: dict[FailureKind, str] = {
    FailureKind.ELEMENT_NOT_FOUND: "scroll or search for the element, or reach it by "
                                   "another path",
    FailureKind.CLICK_MISSED: "tap the element by id or anchor instead of a point, or wait "
                              "for loading",
    FailureKind.LOOP: "stop repeating the same actions: go back and take a different route",
    FailureKind.APP_NOT_RESPONDING: "wait, then close and relaunch the app",
    FailureKind.UNEXPECTED_DIALOG: "dismiss the dialog (close / no thanks / back) and "
                                   "continue",
    FailureKind.TIMEOUT: "split the step into smaller steps or give it more time",
    FailureKind.BUDGET: "run again with a larger --max-steps",
    FailureKind.NOT_VERIFIED: "check what the screen really shows; redo the part the "
                              "checks did not find, or go where it shows (checks are "
                              "judged on one screen)",
    FailureKind.NO_DECISION: "simplify the step so the model can answer it",
    FailureKind.DEVICE_ERROR: "check the device connection, then retry the step",
    FailureKind.MISSING_VALUE: "save the value with mem_save before using it",
    FailureKind.MODEL_REPORTED: "try another target or route",
    FailureKind.DECLINED: "the user refused this action: find another way or stop",
}


class PostMortem(BaseModel):
    """A failed step's report: what was tried, the last screen, why, what to try next."""

    model_config = ConfigDict(frozen=True)

    step: int
    description: str
    reason: FailureKind
    last_screen: str
    strategies_tried: tuple[str, ...]
    last_error: str
    suggested_recovery: str

    def for_prompt(self) -> dict[str, object]:
        return self.model_dump(mode="json")


__all__ = ["RECOVERY", "STATUSES", "Failure", "FailureKind", "PostMortem", "Status"]
