"""Success checks: the checkable part of a plan step's success criteria.

The planner attaches concrete checks to a step (``TaskStep.checks``); the verifier
(:mod:`omg_agent.brain.verify`) evaluates each against the one element it names, the
foreground app or the memory bank — never a screen-wide search for a word, which once let
Bluetooth's "OFF" pass a check about Wi-Fi. Pure data, no I/O.

- :class:`ElementCheck` — an element found by anchor (text / resource_id / desc) is on the
  screen (or, ``present: false``, is not), optionally showing a text, a checked state (a
  switch) or a selected one (a Like button, a tab).
  Text inside edit fields is typed, unsent text: it counts only when ``in_field`` says the
  text is expected there (a note's title in its editor).
- :class:`AppCheck` — an app is in the foreground (package or app name).
- :class:`MemoryCheck` — a memory key holds a value.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from omg_agent.core.actions import AnchorFields, AnchorTarget


class _Check(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ElementCheck(AnchorFields):
    kind: Literal["element"] = Field("element", description="An element on the screen.")
    present: bool = Field(True, description=(
        "false: no such element may be on the screen (then no shows, checked or selected: "
        "an absent element shows nothing)."))
    shows: str | None = Field(
        None, min_length=1,
        description="Text the found element must contain (e.g. a price, 'On').")
    checked: bool | None = Field(
        None, description="The checked state a switch or checkbox must have.")
    selected: bool | None = Field(
        None, description="The selected state the element must have (a Like button, a tab).")
    in_field: bool = Field(
        False, description="true when the text is expected inside an edit field; otherwise "
                           "edit fields (typed, unsent text) are not evidence.")

    @model_validator(mode="after")
    def _state_needs_presence(self) -> ElementCheck:
        if not self.present and (self.shows is not None or self.checked is not None
                                 or self.selected is not None):
            raise ValueError("an absent element (present: false) cannot show text or a state")
        return self

    def anchor(self) -> AnchorTarget:
        return AnchorTarget(text=self.text, resource_id=self.resource_id, desc=self.desc,
                            match=self.match)

    def describe(self) -> str:
        # quoted as written, not Python's repr: a regex's \d would read as "\\d"
        keys = [f'{k}="{getattr(self, k)}"' for k in ("text", "resource_id", "desc")
                if getattr(self, k) is not None]
        how = "" if self.match == "exact" else f" ({self.match})"
        what = "element " + ", ".join(keys) + how
        if not self.present:
            return what + " is absent"
        if self.checked is not None:
            what += " is " + ("checked/on" if self.checked else "unchecked/off")
        if self.selected is not None:
            what += " is " + ("selected" if self.selected else "not selected")
        if self.shows is not None:
            what += f' shows "{self.shows}"'
        if self.in_field:
            what += " (in an edit field)"
        return what


class AppCheck(_Check):
    kind: Literal["app"] = Field("app", description="An app in the foreground.")
    app: str = Field(min_length=1, description="Package (com.android.settings) or app name.")

    def describe(self) -> str:
        return f'app "{self.app}" is in the foreground'


class MemoryCheck(_Check):
    kind: Literal["memory"] = Field("memory", description="A memory key holds a value.")
    key: str = Field(pattern=r"^[A-Za-z_]\w*$", max_length=64,
                     description="The memory key (without $).")

    def describe(self) -> str:
        return f"memory ${self.key} is saved"


StepCheck = Annotated[ElementCheck | AppCheck | MemoryCheck, Field(discriminator="kind")]

__all__ = ["AppCheck", "ElementCheck", "MemoryCheck", "StepCheck"]
