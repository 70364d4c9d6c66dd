"""The action space: every thing a decision can ask the device (or the user) to do.

One pydantic model per action, joined in :data:`Action`, a union discriminated on ``type``
(DESIGN.md §3). The JSON schema sent to models is generated from these same models, so every
field carries a ``description``. Targets — where a touch lands — are a normalized point,
an element id from the current element list, or an anchor (text / resource-id / desc).
Models are frozen and forbid unknown fields, so a typo in a model's reply comes back as a
validation error naming the field, which the brain feeds back for a retry.

:func:`is_boundary` says whether an action may change the screen unpredictably: the executor
stops a bundle's run on this screen after such an action (a tap on an edit field or a switch
is predictable when the caller knows the element). What may follow a boundary in the same
bundle — only anchored actions, checked on the new screen — is :mod:`omg_agent.drivers.unseen`.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    TypeAdapter,
    field_serializer,
    field_validator,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema

from omg_agent.core.geometry import NORM_MAX
from omg_agent.core.hotkeys import combo_keycode, parse_combo
from omg_agent.core.keys import BOUNDARY_KEYCODES, FOCUS_KEYCODES, KEYCODES, KeyName, key_value
from omg_agent.core.observation import UIElement

# ``$name`` or ``${name}`` in typed text refers to a MemoryBank value.
VAR_PATTERN = re.compile(r"\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))")
Norm = Annotated[int, Field(ge=0, le=NORM_MAX)]


# A field whose meaning the operator prompt gives: the compact schema sent with every request
# leaves its description out (``omg_agent.core.wire_schema.compact_schema``, issue 27).
IN_PROMPT = "in_prompt"
SAID: dict[str, Any] = {"json_schema_extra": {IN_PROMPT: True}}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# -- targets ----------------------------------------------------------------------------
class PointTarget(_Model):
    kind: Literal["point"] = Field("point", description="A point on the screen.")
    # floats: a dialect's pixel point converts exactly (integer 0–1000 would cost > 1 px)
    x: float = Field(**SAID, ge=0, le=NORM_MAX, allow_inf_nan=False,
                     description="Horizontal position, 0 (left edge) to 1000 (right edge).")
    y: float = Field(**SAID, ge=0, le=NORM_MAX, allow_inf_nan=False,
                     description="Vertical position, 0 (top edge) to 1000 (bottom edge).")

    @field_serializer("x", "y")
    def _whole(self, value: float) -> float | int:
        return int(value) if value.is_integer() else value


class ElementTarget(_Model):
    kind: Literal["element"] = Field("element", description="An element of the element list.")
    id: int = Field(**SAID, ge=1,
                    description="The element's number in the current element list.")


class AnchorFields(_Model):
    """How an element is found again on any screen: by its text, resource id or content
    description (shared by anchor targets and success checks)."""

    text: str | None = Field(None, **SAID, min_length=1,
                             description="The element's visible text.")
    resource_id: str | None = Field(None, **SAID, min_length=1,
                                    description="The element's resource-id.")
    desc: str | None = Field(None, **SAID, min_length=1,
                             description="The element's content-description.")
    match: Literal["exact", "contains", "regex"] = Field(
        "exact", **SAID, description="How text, resource_id and desc are compared.")

    @model_validator(mode="after")
    def _one_key(self) -> AnchorFields:
        if self.text is None and self.resource_id is None and self.desc is None:
            raise ValueError(f"an {_noun(self)} needs at least one of text, resource_id, desc")
        if self.match == "regex":
            for name in ("text", "resource_id", "desc"):
                value = getattr(self, name)
                if value is None:
                    continue
                try:
                    re.compile(value)
                except re.error as e:
                    raise ValueError(f"{name}: invalid regex {value!r}: {e}") from None
        return self


def _noun(fields: AnchorFields) -> str:
    return "anchor" if isinstance(fields, AnchorTarget) else "element check"


class AnchorTarget(AnchorFields):
    kind: Literal["anchor"] = Field("anchor",
                                    description="The element found by its text, id or desc.")


_ANCHOR_KEYS = ("text", "resource_id", "desc")


def _coerce_target(value: Any) -> Any:
    """Accept the short forms models write: ``[x, y]``, ``7``, ``"text=Save"``, ``{x, y}``."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return {"kind": "element", "id": value}
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return {"kind": "point", "x": value[0], "y": value[1]}
    if isinstance(value, str):
        key, sep, rest = value.partition("=")
        key = key.strip().replace("-", "_")
        if sep and key in _ANCHOR_KEYS:
            return {"kind": "anchor", key: rest}
        return value
    if isinstance(value, dict) and "kind" not in value:
        if "x" in value and "y" in value:
            return {"kind": "point", **value}
        if "id" in value:
            return {"kind": "element", **value}
        if any(k in value for k in _ANCHOR_KEYS):
            return {"kind": "anchor", **value}
    return value


Target = Annotated[
    PointTarget | ElementTarget | AnchorTarget,
    Field(discriminator="kind", **SAID,
          description="Where to act: a point, an element id, or an anchor."),
    BeforeValidator(_coerce_target),
]


class Region(_Model):
    """A box in normalized units."""

    left: Norm = Field(description="Left edge, 0–1000.")
    top: Norm = Field(description="Top edge, 0–1000.")
    right: Norm = Field(description="Right edge, 0–1000.")
    bottom: Norm = Field(description="Bottom edge, 0–1000.")

    @model_validator(mode="after")
    def _ordered(self) -> Region:
        if self.right <= self.left or self.bottom <= self.top:
            raise ValueError("region needs left < right and top < bottom")
        return self


class FromScreen(_Model):
    target: Target | None = Field(None, description="Save the text of this element.")
    region: Region | None = Field(None, description="Save the text read (OCR) in this box.")

    @model_validator(mode="after")
    def _one_source(self) -> FromScreen:
        if (self.target is None) == (self.region is None):
            raise ValueError("from_screen needs exactly one of target, region")
        return self


# -- actions ----------------------------------------------------------------------------
class Tap(_Model):
    type: Literal["tap"] = Field("tap", description="Tap once.")
    target: Target


class LongPress(_Model):
    type: Literal["long_press"] = Field("long_press", description="Touch and hold.")
    target: Target
    duration_ms: int = Field(800, ge=300, le=10_000, description="How long to hold, in ms.")


class DoubleTap(_Model):
    type: Literal["double_tap"] = Field("double_tap", description="Tap twice quickly.")
    target: Target


class Swipe(_Model):
    type: Literal["swipe"] = Field(
        "swipe", description="Drag a finger: give from and to, or direction (and distance).")
    from_: Target | None = Field(None, **SAID, alias="from",
                                 description="Where the finger goes down.")
    to: Target | None = Field(None, **SAID, description="Where the finger lifts.")
    direction: Literal["up", "down", "left", "right"] | None = Field(
        None, **SAID,
        description="Direction the finger moves; 'up' reveals content further down.")
    distance: int = Field(
        500, **SAID, ge=50, le=NORM_MAX,
        description="With direction: how far the finger travels, in 0–1000 units of that "
                    "axis; all of it, unless the screen edge comes first.")
    start: Target | None = Field(
        None, **SAID, description="With direction: where to start (default: the screen centre, "
                          "moved back so the whole distance fits).")
    duration_ms: int = Field(300, ge=50, le=5_000, description="Swipe duration in ms.")

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    @model_validator(mode="after")
    def _one_form(self) -> Swipe:
        pair = self.from_ is not None or self.to is not None
        if pair and self.direction is not None:
            raise ValueError("swipe takes either from/to or direction, not both")
        if pair and (self.from_ is None or self.to is None):
            raise ValueError("swipe with points needs both from and to")
        if not pair and self.direction is None:
            raise ValueError("swipe needs from and to, or a direction")
        if pair and self.start is not None:
            raise ValueError("start goes with direction, not with from/to")
        return self


class TypeText(_Model):
    type: Literal["type"] = Field("type",
                                  description="Type text into the focused (or given) field.")
    text: str = Field(**SAID, description="The text; $name inserts a saved memory value.")
    target: Target | None = Field(None, description="Field to focus first (optional).")
    clear: bool = Field(False, **SAID, description="Empty the field before typing.")
    submit: bool = Field(False, **SAID, description="Press enter after typing.")

    @model_validator(mode="after")
    def _something(self) -> TypeText:
        if not self.text and not self.clear:
            raise ValueError("text is empty (use clear=true to empty a field)")
        return self

    @property
    def variables(self) -> list[str]:
        """Memory names referenced in ``text``, in order."""
        return [a or b for a, b in VAR_PATTERN.findall(self.text)]


Hotkey = Annotated[str, Field(pattern=r"^[a-z]+(\+[^+]+)+$")]


class Key(_Model):
    type: Literal["key"] = Field("key", description="Press a key.")
    key: KeyName | int | Hotkey = Field(**SAID,
        description="A key name (back, home, enter, …), a keycode, or on a desktop a hotkey "
                    "like ctrl+l.")

    @field_validator("key", mode="before")
    @classmethod
    def _normalise(cls, value: Any) -> Any:
        if isinstance(value, str) and "+" in value.strip().strip("+"):
            return "+".join(parse_combo(value))  # ValueError says what is accepted
        return key_value(value) if isinstance(value, str) else value

    @field_validator("key")
    @classmethod
    def _keycode_range(cls, value: str | int) -> str | int:
        return value if isinstance(value, str) and "+" in value else key_value(value)

    @property
    def combo(self) -> tuple[str, ...] | None:
        """The hotkey's modifiers and key (``("ctrl", "l")``), or ``None`` for one key."""
        if isinstance(self.key, str) and "+" in self.key:
            return tuple(self.key.split("+"))
        return None

    @property
    def keycode(self) -> int:
        """The Android keycode (of a hotkey: its last key, modifiers aside)."""
        if isinstance(self.key, int):
            return self.key
        combo = self.combo
        return KEYCODES[self.key] if combo is None else combo_keycode(combo)


class Launch(_Model):
    type: Literal["launch"] = Field("launch", description="Open an app.")
    app: str = Field(**SAID, min_length=1,
                     description="App name (e.g. 'Settings', '设置') or package.")
    restart: SkipJsonSchema[bool | None] = None  # a flow's launchApp: stopped first (hidden)


class Back(_Model):
    type: Literal["back"] = Field("back", description="Press the system back button.")


class Home(_Model):
    type: Literal["home"] = Field("home", description="Go to the home screen.")


class Wait(_Model):
    type: Literal["wait"] = Field("wait", description="Let the screen settle or load.")
    seconds: float = Field(1.0, **SAID, gt=0, le=60, allow_inf_nan=False,
                           description="How long to wait, in seconds.")


class MemSave(_Model):
    type: Literal["mem_save"] = Field("mem_save", description="Remember a value for later ($key).")
    key: str = Field(**SAID, pattern=r"^[A-Za-z_]\w*$", max_length=64,
                     description="Name to save under (letters, digits, _).")
    value: str | None = Field(None, **SAID, description="The value to save.")
    from_screen: FromScreen | None = Field(None, **SAID,
                                           description="Read the value from the screen.")

    @model_validator(mode="after")
    def _one_source(self) -> MemSave:
        if (self.value is None) == (self.from_screen is None):
            raise ValueError("mem_save needs exactly one of value, from_screen")
        return self


class AskUser(_Model):
    type: Literal["ask_user"] = Field("ask_user",
                                      description="Ask the human and wait for the answer.")
    question: str = Field(**SAID, min_length=1, description="The question to show the user.")
    secret: bool = Field(False, **SAID, description="It asks for a password, PIN or code.")


class Done(_Model):
    type: Literal["done"] = Field("done", description="The task is finished.")
    answer: str = Field("", **SAID, description="The answer or a summary for the user.")


class RunMacro(_Model):
    type: Literal["macro"] = Field("macro", description=(
        "Run the macro the note offers on the next items (no model call per item); only "
        "when a macro is offered, and alone in its bundle."))
    name: str = Field(min_length=1, description="The offered macro's name.")
    count: int | None = Field(None, ge=1, le=10_000,
                              description="How many more items; omit for the end of the list.")
    until_text: str | None = Field(None, min_length=1,
                                   description="Stop once this text shows on the screen.")


class Scan(_Model):
    type: Literal["scan"] = Field("scan", description="Read the whole scrolling list; the "
                                  "next turn lists its items.")
    count: int | None = Field(None, ge=1, le=200, description="Stop after this many items.")
    until_text: str | None = Field(None, min_length=1, max_length=200,
                                   description="Stop once this text shows.")


Action = Annotated[
    Tap | LongPress | DoubleTap | Swipe | TypeText | Key | Launch | Back | Home | Wait
    | MemSave | AskUser | Done | RunMacro | Scan,
    Field(discriminator="type"),
]
ACTION_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action, config=ConfigDict(title="Action"))


def parse_action(data: Any) -> Action:
    """Validate one action from JSON-like data (raises ``pydantic.ValidationError``)."""
    if isinstance(data, (str, bytes)):
        return ACTION_ADAPTER.validate_json(data)
    return ACTION_ADAPTER.validate_python(data)


def action_schema() -> dict[str, Any]:
    """The JSON schema of :data:`Action` (what structured output sends to a model)."""
    return ACTION_ADAPTER.json_schema(by_alias=True)


def dump_action(action: Action) -> dict[str, Any]:
    """An action as JSON-ready data that :func:`parse_action` reads back."""
    return action.model_dump(mode="json", by_alias=True, exclude_none=True)


def stays_on_screen(element: UIElement | None) -> bool:
    """Whether a tap on ``element`` keeps the screen: a field, a switch (not a popup's); not
    a checkbox, chip or radio (a ticked to-do moves into Completed: relay, todo.complete_two)."""
    e = element
    return e is not None and e.enabled and (
        e.editable or e.checkable and e.role == "switch" and e.window != "popup")


def is_boundary(action: Action, element: UIElement | None = None) -> bool:
    """Whether the screen may change unpredictably after ``action`` (DESIGN.md §3);
    ``element``, what a tap lands on if known (:func:`stays_on_screen`)."""
    match action:
        case Tap():
            return not stays_on_screen(element)
        case LongPress() | DoubleTap() | Swipe() | Launch() | Back() | Home() | RunMacro() | Scan():
            return True
        case Key():
            return action.combo is not None or action.keycode in BOUNDARY_KEYCODES
        case TypeText():
            return action.submit
        case _:
            return False


def ends_bundle(action: Action, element: UIElement | None = None) -> bool:
    """Whether nothing after ``action`` should run on the screen the bundle was decided on: a
    boundary, a hand-off, or a key that moves the focus (a key after it acts elsewhere)."""
    return is_boundary(action, element) or isinstance(action, AskUser | Done) or (
        isinstance(action, Key) and action.keycode in FOCUS_KEYCODES)
