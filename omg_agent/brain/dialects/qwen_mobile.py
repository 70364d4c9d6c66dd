"""``qwen-mobile``: Qwen2.5-VL's ``mobile_use`` function call (QwenLM/Qwen2.5-VL
``cookbooks/utils/agent_function_call.py``, class ``MobileUse``; GUI-Owl uses the same tool).

The tool's description states the screen's resolution — the size of the image after the
processor's ``smart_resize`` (factor 28, min 3,136, max 12,845,056 pixels) — and the model
answers ``<tool_call>{"name": "mobile_use", "arguments": {"action": "click", "coordinate":
[x, y]}}</tool_call>`` in absolute pixels of that image. We send the screenshot at exactly
that size. Actions: key (adb keyevent names), click, long_press (``time`` seconds), swipe
(``coordinate`` → ``coordinate2``), type, system_button (Back, Home, Menu, Enter), open,
wait (``time``), terminate (``status`` success / failure). Its history is the cookbook's:
the task and one line per earlier step in the user message, no earlier images.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, ClassVar

from omg_agent.brain.dialects.base import (
    Dialect,
    DialectTurn,
    Frame,
    act,
    check_inside,
    finish,
    give_up,
    history_lines,
    numbers,
    resized_frame,
)
from omg_agent.brain.structured import InvalidReply
from omg_agent.core.contracts import DecisionBundle

FACTOR, MIN_PIXELS, MAX_PIXELS = 28, 56 * 56, 28 * 28 * 16384
_CALL = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.S)
_BUTTONS = {"back": {"type": "back"}, "home": {"type": "home"},
            "menu": {"type": "key", "key": "menu"}, "enter": {"type": "key", "key": "enter"}}
ACTIONS = ("key", "click", "long_press", "swipe", "type", "system_button", "open", "wait",
           "terminate")


def tool_schema(width: int, height: int) -> dict[str, Any]:
    """The ``mobile_use`` function as the model was trained to read it; the description
    names the resolution its coordinates refer to."""
    description = (
        "Use a touchscreen to interact with a mobile device, and take screenshots.\n"
        "* The device is a phone with a touchscreen: click, type, swipe and so on.\n"
        "* Apps may take a moment to start or load; wait and look again when needed.\n"
        f"* The screen's resolution is {width}x{height}.\n"
        "* Click in the middle of buttons, icons and links, not on their edges.")
    point = {"description": "(x, y): pixels from the left edge and from the top edge.",
             "type": "array"}
    return {"type": "function", "function": {
        "name_for_human": "mobile_use", "name": "mobile_use", "description": description,
        "parameters": {"type": "object", "required": ["action"], "properties": {
            "action": {"type": "string", "enum": list(ACTIONS), "description": (
                "* `key`: an adb keyevent, e.g. \"volume_up\", \"enter\".\n"
                "* `click`: click the point `coordinate`.\n"
                "* `long_press`: press `coordinate` for `time` seconds.\n"
                "* `swipe`: swipe from `coordinate` to `coordinate2`.\n"
                "* `type`: type `text` into the focused input box.\n"
                "* `system_button`: press `button`.\n"
                "* `open`: open the app named `text`.\n"
                "* `wait`: wait `time` seconds.\n"
                "* `terminate`: end the task with `status`.")},
            "coordinate": point, "coordinate2": point,
            "text": {"type": "string",
                     "description": "Required by `action=key`, `action=type` and `action=open`."},
            "time": {"type": "number",
                     "description": "Seconds; required by `action=long_press` and `action=wait`."},
            "button": {"type": "string", "enum": ["Back", "Home", "Menu", "Enter"],
                       "description": "Required by `action=system_button`."},
            "status": {"type": "string", "enum": ["success", "failure"],
                       "description": "Required by `action=terminate`."}}}}}


@dataclass
class QwenMobile(Dialect):
    name: ClassVar[str] = "qwen-mobile"
    multi_turn: ClassVar[bool] = False
    coordinates: ClassVar[str] = (f"absolute pixels on the smart_resize'd image (factor "
                                  f"{FACTOR}, {MIN_PIXELS}–{MAX_PIXELS} pixels), its size "
                                  "written in the tool description")
    max_pixels: int = MAX_PIXELS

    def frame_for(self, size: tuple[int, int]) -> Frame:
        return resized_frame(size, factor=FACTOR, min_pixels=MIN_PIXELS,
                             max_pixels=self.max_pixels)

    def system_prompt(self, turn: DialectTurn, frame: Frame) -> str:
        tool = json.dumps(tool_schema(int(frame.width), int(frame.height)),
                          ensure_ascii=False)
        return ("You are a helpful assistant.\n\n# Tools\n\nYou may call one or more "
                "functions to assist with the user query.\n\nYou are provided with function "
                f"signatures within <tools></tools> XML tags:\n<tools>\n{tool}\n</tools>\n\n"
                "For each function call, return a json object with function name and "
                "arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n"
                '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>')

    def user_text(self, turn: DialectTurn, frame: Frame) -> str:
        steps = "; ".join(f"Step {i}: {reply}" for i, (_, reply) in
                          enumerate(self.turns, start=1))
        extra = history_lines(turn)
        return (f"The user query: {turn.task}\nTask progress (You have done the following "
                f"operation on the current device): {steps or 'none'}"
                + (f"\n{extra}" if extra else ""))

    def feedback_text(self, error: str) -> str:
        return (f"The last function call could not be executed: {error}\nCall mobile_use "
                'again: <tool_call>\n{"name": "mobile_use", "arguments": {"action": ...}}\n'
                "</tool_call>")

    def parse_reply(self, text: str, frame: Frame) -> DecisionBundle:
        found = _CALL.search(text)
        thought = (text[:found.start()] if found else "").strip()
        thought = re.sub(r"</?(think|thinking)>", "", thought).strip()
        raw = found.group(1) if found else text[text.find("{"):] if "{" in text else ""
        try:
            call, _ = json.JSONDecoder().raw_decode(raw.strip())
        except ValueError:
            raise InvalidReply("no <tool_call> with a JSON object found") from None
        if not isinstance(call, dict) or call.get("name") != "mobile_use" or not \
                isinstance(call.get("arguments"), dict):
            raise InvalidReply('the call must be {"name": "mobile_use", "arguments": {...}}')
        return self._action(thought, call["arguments"], frame)

    def _action(self, thought: str, args: dict[str, Any], frame: Frame) -> DecisionBundle:
        action = args.get("action")
        match action:
            case "click":
                return act(thought, {"type": "tap", "target": _point(args, "coordinate",
                                                                     frame)})
            case "long_press":
                seconds = float(args.get("time") or 1.0)
                return act(thought, {"type": "long_press",
                                     "target": _point(args, "coordinate", frame),
                                     "duration_ms": int(min(max(seconds, 0.3), 10) * 1000)})
            case "swipe":
                return act(thought, {"type": "swipe", "from": _point(args, "coordinate", frame),
                                     "to": _point(args, "coordinate2", frame)})
            case "type":
                return act(thought, {"type": "type", "text": str(args.get("text") or "")})
            case "key":
                return act(thought, {"type": "key", "key": str(args.get("text") or "")})
            case "system_button":
                button = str(args.get("button") or "").lower()
                if button not in _BUTTONS:
                    raise InvalidReply("system_button needs button Back, Home, Menu or Enter")
                return act(thought, _BUTTONS[button])
            case "open":
                return act(thought, {"type": "launch", "app": str(args.get("text") or "")})
            case "wait":
                return act(thought, {"type": "wait",
                                     "seconds": min(float(args.get("time") or 1.0), 60.0)})
            case "terminate":
                status = str(args.get("status") or "")
                if status == "success":
                    return finish(thought, thought or "the task is complete")
                if status in ("failure", "fail"):
                    return give_up(thought, thought or "the model could not do the task")
                raise InvalidReply("terminate needs status 'success' or 'failure'")
            case "answer":
                return finish(thought, str(args.get("text") or ""))
        raise InvalidReply(f"unknown action {action!r}: use one of " + ", ".join(ACTIONS))


def _point(args: dict[str, Any], key: str, frame: Frame) -> dict[str, Any]:
    if key not in args:
        raise InvalidReply(f"this action needs {key}: [x, y]")
    x, y = numbers(json.dumps(args[key]), 2, key)
    check_inside(frame, (x, y), key, f"0–{frame.width:g} x 0–{frame.height:g}")
    point = frame.point(x, y)
    return {"kind": "point", "x": point.x, "y": point.y}
