"""What a macro is: a repeated pattern, generalised and parameterised (DESIGN.md §7).

A :class:`Macro` says, for one app on one screen structure: which list the items repeat in
(``container``), which element of each item is acted on (``target``: resource-id and role,
an anchor relative to the repeating item, never a coordinate), how an item that is already
done looks (``done_text``), where the item's fields lie (``band``), which items qualify
(``where``: field texts every acted item shared while others were skipped), and the step
between screenfuls (scroll the list, finger ``up``). :class:`Stop` is the stop condition —
a count, a text seen, or the end of the list — given when the macro is run. Both are frozen
pydantic models: the store writes them as JSON and the offer shows them to the operator.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

FORMAT_VERSION = 1


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Target(_Frozen):
    """The element acted on in each item, found by its anchor inside the item."""

    resource_id: str = Field(min_length=1)
    role: str = "button"
    action: Literal["tap", "long_press"] = "tap"
    todo_text: str = ""  # its text before the action ("Like"), when the trace showed it
    done_text: str = ""  # its text after ("Liked ♥"): an item showing it is done


class Stop(_Frozen):
    """When a run of the macro ends: after ``count`` items, once ``until_text`` shows, or at
    the end of the list (always)."""

    count: int | None = Field(None, ge=1, le=10_000)
    until_text: str | None = Field(None, min_length=1)

    def describe(self) -> str:
        parts = [f"after {self.count} items"] if self.count else []
        if self.until_text:
            parts.append(f"once {self.until_text!r} shows")
        return " or ".join([*parts, "at the end of the list"])


class Macro(_Frozen):
    """A generalised repetition, ready to compile (see :mod:`omg_agent.macros.compile`)."""

    version: int = FORMAT_VERSION
    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.-]+$")
    app: str = Field(min_length=1, description="The package the pattern lives in.")
    profile: str = Field("", description="The screen it was learned on, WIDTHxHEIGHT.")
    container: str = Field(min_length=1, description="Resource-id of the scrolling list.")
    target: Target
    band: Literal["above", "below"] = "above"
    where: dict[str, str] = Field(default_factory=dict)
    scroll: Literal["up", "down"] = "up"  # finger direction that reveals the next items
    repetitions: int = 0  # how often the trace did it by hand
    examples: tuple[str, ...] = ()  # keys of the items the trace acted on

    def describe(self) -> str:
        """One line for the operator and the CLI."""
        short = self.target.resource_id.rsplit("/", 1)[-1]
        text = f"{self.target.action} '{self.target.todo_text or short}' ({short}) on each " \
               f"item of list {self.container.rsplit('/', 1)[-1]} in {self.app}, top to " \
               "bottom, scrolling on"
        text += "".join(f"; only items whose {k.rsplit('/', 1)[-1]} is {v!r}"
                        for k, v in sorted(self.where.items()))
        if self.target.done_text:
            text += f"; skips items already showing {self.target.done_text!r}"
        return text
