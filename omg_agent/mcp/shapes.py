"""What the MCP server's tools take and return: the output models, and the input fields
with their descriptions and bounds (issue 37 item 5) — one place, so every tool says the
same about a point, an anchor or a device."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp_types import CallToolResult, InputRequiredResult, ToolAnnotations
from pydantic import BaseModel, Field

MAX_TEXT = 2000  # characters typed in one call
MAX_ANCHOR = 300
Held = CallToolResult | InputRequiredResult

# -- input fields ---------------------------------------------------------------------------
DeviceArg = Annotated[str | None, Field(
    max_length=200, description="The phone's serial (list_devices); default: the server's "
    "phone, or the only one attached.")]
TextArg = Annotated[str | None, Field(
    min_length=1, max_length=MAX_ANCHOR, description="The element's visible text (exact, "
    "as observe shows it in quotes).")]
IdArg = Annotated[str | None, Field(
    min_length=1, max_length=MAX_ANCHOR, description="The element's resource id (observe "
    "shows it as res=…).")]
DescArg = Annotated[str | None, Field(
    min_length=1, max_length=MAX_ANCHOR, description="The element's content description "
    "(observe shows it as desc=…).")]
XArg = Annotated[int | None, Field(ge=0, le=1000, description="Horizontal point, 0 (left "
                                   "edge) to 1000 (right edge); give y with it.")]
YArg = Annotated[int | None, Field(ge=0, le=1000, description="Vertical point, 0 (top "
                                   "edge) to 1000 (bottom edge); give x with it.")]
ElementArg = Annotated[int | None, Field(ge=1, le=5000, description="The element's number "
                                         "[N] in the list the last observe returned.")]
Direction = Literal["up", "down", "left", "right"]
Screenshot = Literal["none", "jpeg", "png"]


# -- tool annotations -----------------------------------------------------------------------
def hints(*, read_only: bool = False, destructive: bool = False, idempotent: bool = False,
          open_world: bool = False) -> ToolAnnotations:
    """A tool's hints for the client (whether it changes the phone, may undo the user's
    things, is safe to repeat, reaches beyond the phone)."""
    return ToolAnnotations(read_only_hint=read_only, destructive_hint=destructive,
                           idempotent_hint=idempotent, open_world_hint=open_world)


READ = hints(read_only=True, idempotent=True)
ACTS = hints(destructive=True)  # an input on a phone may delete, send or pay (then gated)
RUNS = hints(destructive=True, open_world=True)  # a run calls the model and acts


# -- outputs --------------------------------------------------------------------------------
class Device(BaseModel):
    serial: str
    state: str


class Devices(BaseModel):
    devices: list[Device]


class Apps(BaseModel):
    """The apps installed on the phone (package names; launch and stop_app take them)."""

    packages: list[str]


class Acted(BaseModel):
    """An action's outcome: ok, failed, needs_confirmation (a human must approve; see
    how_to_approve) or declined (the human said no). Nothing ran unless ok/failed."""

    status: Literal["ok", "failed", "needs_confirmation", "declined"]
    detail: str
    how_to_approve: str | None = None
    effect: str | None = Field(None, description="What changed on the screen, read before "
                               "and after: 'screen unchanged', 'opened …', 'switch … now off'.")


class Screen(BaseModel):
    package: str
    activity: str
    elements: str = Field(description="the element list read from the phone after the run")


class RunOut(BaseModel):
    """A run's end: status is read from the phone (done only when its checks passed)."""

    status: str
    answer: str
    question: str | None
    summary: str
    run_dir: str
    report: str | None
    steps_used: int
    screen: Screen | None = None
    how_to_approve: str | None = None


class FlowOut(BaseModel):
    status: str
    failed: str
    commands: int
    actions: int
    run_dir: str
