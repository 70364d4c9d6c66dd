"""Model doubles that answer in a phone model's own format (issue 18).

:class:`DialectPolicy` is a :class:`~omg_agent.sim.model_double.Policy` for the
OpenAI-compatible :class:`~omg_agent.sim.model_double.ModelDouble`: requests for the
operator model are answered the way AutoGLM-Phone, UI-TARS-1.5 or Qwen2.5-VL's
``mobile_use`` would answer — one action per reply, written in that model's syntax, with
coordinates in that model's convention computed from the screenshot *it was sent* (its
decoded size; for ``qwen-mobile`` the resolution the tool description states). What to do
comes from the expert task's moves (:mod:`omg_agent.sim.expert.tasks`) on the phone's true
screen; a value to carry (the price) is remembered by the double, as a model keeps it in
its context, and typed literally. Requests for any other model name (the planner that
confirms a finished task, in JSON) go to ``judge``.

``bad_first`` makes the first operator reply malformed (as models sometimes are), so a run
also exercises the retry with feedback in the model's own format.
"""

from __future__ import annotations

import base64
import io
import json
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from omg_agent.core.observation import UIElement
from omg_agent.perception import elementlist
from omg_agent.perception.uitree import parse_elements
from omg_agent.sim.expert.screen import Screen
from omg_agent.sim.expert.tasks import MoveContext, Task
from omg_agent.sim.model_double import Policy, Reply

APP_NAMES = {"com.omg.shop": "Shop", "com.omg.notes": "Notes",
             "com.android.settings": "Settings", "com.omg.messages": "Messages"}
_RESOLUTION = re.compile(r"The screen's resolution is (\d+)x(\d+)")
BAD_REPLY = {"autoglm": "<think>I will tap the switch</think>\n<answer>tap the switch</answer>",
             "uitars": "Thought: I will tap the switch.\nclick the switch",
             "qwen-mobile": '<tool_call>\n{"name": "mobile_use", "arguments": {"action": '
                            '"click"}}\n</tool_call>'}


@dataclass
class Sent:
    """One operator request the double answered: what it cost, roughly."""

    text_chars: int
    images: list[tuple[int, int]]
    reply: str


@dataclass
class DialectPolicy:
    task: Task
    phone: Any
    dialect: str
    operator_model: str
    judge: Policy
    bad_first: bool = False
    sent: list[Sent] = field(default_factory=list)
    _memory: dict[str, str] = field(default_factory=dict)
    _queue: list[dict[str, Any]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def reply(self, request: dict[str, Any]) -> Reply:
        if request.get("model") != self.operator_model:
            return self.judge.reply(request)
        with self._lock:
            images = request_images(request)
            if self.bad_first and not self.sent:
                text = BAD_REPLY[self.dialect]
            else:
                text = self._answer(request, images[-1] if images else (1, 1))
            self.sent.append(Sent(request_chars(request), images, text))
            return text

    # -- deciding ----------------------------------------------------------------------
    def _answer(self, request: dict[str, Any], image: tuple[int, int]) -> str:
        frame = self._frame(request, image)
        elements = parse_elements(self.phone.dump_xml())
        size = (self.phone.profile.width, self.phone.profile.height)
        screen = Screen(elementlist.render(elements, size))
        write = _Writer(self.dialect, frame, size, elements, screen)
        if self._queue:
            return self._act(write, self._queue.pop(0))
        if self.task.check(self.phone):
            return write.finish(f"Done: {self.task.goal}")
        known = "\n".join(f'${k} = "{v}"' for k, v in self._memory.items())
        moves = self.task.moves(self.phone, screen, MoveContext(known))
        for move in moves:
            if move["type"] != "mem_save":
                return self._act(write, move)
            self._memory[move["key"]] = write.read(move)
            if self.dialect == "autoglm":  # it records the page with Note
                return write.note()
        return write.wait()

    def _act(self, write: _Writer, move: dict[str, Any]) -> str:
        """One move; a type first focuses its field, a submitted type is followed by the
        dialect's own way to submit."""
        if move["type"] == "type":
            target = move.get("target")
            element = write.element(target) if target else None
            if element is not None and not element.focused:
                self._queue.append({**move, "target": None})
                return write.move({"type": "tap", "target": target}, self._memory)
            if move.get("submit") and self.dialect != "uitars":
                self._queue.append({"type": "submit"})
        return write.move(move, self._memory)

    def _frame(self, request: dict[str, Any], image: tuple[int, int]) -> tuple[float, float]:
        """The space this model answers in, from what it was sent."""
        if self.dialect == "autoglm":
            return 1000.0, 1000.0
        if self.dialect == "qwen-mobile":
            said = _RESOLUTION.search(_all_text(request))
            if said:
                return float(said.group(1)), float(said.group(2))
        return float(image[0]), float(image[1])


@dataclass
class _Writer:
    """Writes one reply in ``dialect`` on the current screen."""

    dialect: str
    frame: tuple[float, float]
    size: tuple[int, int]
    elements: tuple[UIElement, ...]
    screen: Screen

    def element(self, target: dict[str, Any] | None) -> UIElement | None:
        if not target:
            return None
        number = target.get("id") if target.get("kind") == "element" else None
        if number is None:
            found = self.screen.find(text=target.get("text"), res=target.get("resource_id"),
                                     desc=target.get("desc"))
            number = found.id if found else None
        return next((e for e in self.elements if e.id == number), None)

    def read(self, move: dict[str, Any]) -> str:
        source = move.get("from_screen") or {}
        element = self.element(source.get("target"))
        return str(move.get("value") or (element.text if element else ""))

    def _point(self, element: UIElement) -> tuple[int, int]:
        cx, cy = element.bounds.center
        x = cx * self.frame[0] / self.size[0]
        y = cy * self.frame[1] / self.size[1]
        if self.dialect == "autoglm":
            return min(round(x), 999), min(round(y), 999)
        return round(x), round(y)

    def move(self, move: dict[str, Any], memory: dict[str, str]) -> str:
        kind = move["type"]
        if kind == "tap":
            element = self.element(move["target"])
            return self.tap(element) if element is not None else self.wait()
        if kind == "type":
            text = re.sub(r"\$(\w+)", lambda m: memory.get(m.group(1), m.group(0)),
                          move["text"])
            return self.type(text, bool(move.get("submit")))
        if kind == "submit":
            return self.submit()
        if kind == "launch":
            return self.launch(APP_NAMES.get(move["app"], move["app"]))
        if kind == "back":
            return self.say("Go back.", {"autoglm": 'do(action="Back")',
                                         "uitars": "press_back()",
                                         "qwen-mobile": {"action": "system_button",
                                                         "button": "Back"}})
        return self.wait()

    # -- the formats -------------------------------------------------------------------
    def say(self, thought: str, actions: dict[str, Any]) -> str:
        return say(self.dialect, thought, actions[self.dialect])

    def tap(self, element: UIElement) -> str:
        x, y = self._point(element)
        what = element.text or element.desc or element.resource_id.rsplit("/", 1)[-1]
        return tap_reply(self.dialect, x, y, f"Tap {what}.")

    def type(self, text: str, submit: bool) -> str:
        quoted = text.replace("'", "\\'") + ("\\n" if submit else "")
        return self.say(f"Type {text}.", {
            "autoglm": f"do(action=\"Type\", text={json.dumps(text, ensure_ascii=False)})",
            "uitars": f"type(content='{quoted}')",
            "qwen-mobile": {"action": "type", "text": text}})

    def submit(self) -> str:
        search = self.screen.find(res="search")
        if self.dialect == "autoglm":  # no enter key in its action space: the button
            element = self.element({"kind": "element", "id": search.id}) if search else None
            return self.tap(element) if element is not None else self.wait()
        return self.say("Submit.", {"qwen-mobile": {"action": "key", "text": "enter"}})

    def launch(self, app: str) -> str:
        return self.say(f"Open {app}.", {
            "autoglm": f'do(action="Launch", app="{app}")',
            "uitars": f"open_app(app_name='{app}')",
            "qwen-mobile": {"action": "open", "text": app}})

    def wait(self) -> str:
        return self.say("Wait for the screen.", {
            "autoglm": 'do(action="Wait", duration="1 seconds")', "uitars": "wait()",
            "qwen-mobile": {"action": "wait", "time": 1}})

    def note(self) -> str:
        return self.say("Record the price on this page.", {
            "autoglm": 'do(action="Note", message="True")'})

    def finish(self, message: str) -> str:
        return self.say("The task is done.", {
            "autoglm": f"finish(message={json.dumps(message, ensure_ascii=False)})",
            "uitars": f"finished(content='{message}')",
            "qwen-mobile": {"action": "terminate", "status": "success"}})


def say(dialect: str, thought: str, action: str | dict[str, Any]) -> str:
    """One reply: ``thought`` and ``action`` in ``dialect``'s syntax."""
    if dialect == "autoglm":
        return f"<think>{thought}</think>\n<answer>{action}</answer>"
    if dialect == "uitars":
        return f"Thought: {thought}\nAction: {action}"
    call = json.dumps({"name": "mobile_use", "arguments": action}, ensure_ascii=False)
    return f"{thought}\n<tool_call>\n{call}\n</tool_call>"


def tap_reply(dialect: str, x: int, y: int, thought: str) -> str:
    actions: dict[str, str | dict[str, Any]] = {
        "autoglm": f'do(action="Tap", element=[{x},{y}])',
        "uitars": f"click(point='<point>{x} {y}</point>')",
        "qwen-mobile": {"action": "click", "coordinate": [x, y]}}
    return say(dialect, thought, actions[dialect])


@dataclass
class ProbeModel:
    """Answers doctor's pixel probe like ``dialect`` behind a server whose pixel limit is
    ``server_max_pixels`` (``None``: the model's own): it finds the red dot in the image it
    was sent, as the server resized it, and taps it in that space."""

    dialect: str
    server_max_pixels: int | None = None

    def reply(self, request: dict[str, Any]) -> Reply:
        from omg_agent.brain.dialects import smart_resize

        image = request_image(request)
        if image is None:
            return "pong"
        cx, cy = _red_centre(image)
        width, height = image.size
        if self.server_max_pixels is not None:
            height, width = smart_resize(image.height, image.width, min_pixels=3136,
                                         max_pixels=self.server_max_pixels)
        if self.dialect == "autoglm":
            return tap_reply("autoglm", round(cx / image.width * 1000),
                             round(cy / image.height * 1000), "Tap the red dot.")
        return tap_reply(self.dialect, round(cx * width / image.width),
                         round(cy * height / image.height), "Tap the red dot.")


def request_image(request: dict[str, Any]) -> Image.Image | None:
    for message in reversed(request.get("messages", [])):
        content = message.get("content")
        for part in content if isinstance(content, list) else []:
            if part.get("type") == "image_url":
                data = part["image_url"]["url"].split(",", 1)[1]
                return Image.open(io.BytesIO(base64.b64decode(data))).convert("RGB")
    return None


def _red_centre(image: Image.Image) -> tuple[float, float]:
    """The centre of the red pixels (a probe's dot), on a 4-pixel grid."""
    rgb = image.convert("RGB")
    xs, ys = [], []
    for y in range(0, rgb.height, 4):
        for x in range(0, rgb.width, 4):
            r, g, b = rgb.getpixel((x, y))  # type: ignore[misc]
            if r > 180 and g < 90 and b < 90:
                xs.append(x)
                ys.append(y)
    if not xs:
        return image.width / 2, image.height / 2
    return sum(xs) / len(xs), sum(ys) / len(ys)


def request_images(request: dict[str, Any]) -> list[tuple[int, int]]:
    out = []
    for message in request.get("messages", []):
        content = message.get("content")
        for part in content if isinstance(content, list) else []:
            if part.get("type") == "image_url":
                data = part["image_url"]["url"].split(",", 1)[1]
                with Image.open(io.BytesIO(base64.b64decode(data))) as image:
                    out.append(image.size)
    return out


def _all_text(request: dict[str, Any]) -> str:
    texts = []
    for message in request.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
        else:
            texts += [p.get("text", "") for p in content or [] if p.get("type") == "text"]
    return "\n".join(texts)


def request_chars(request: dict[str, Any]) -> int:
    return len(_all_text(request))


def visual_tokens(size: tuple[int, int]) -> int:
    """Image tokens as Qwen2.5-VL-family models count them: one per 28x28 patch."""
    return max(1, round(size[0] / 28) * round(size[1] / 28))


def prompt_tokens(sent: Sent) -> int:
    """A request's prompt tokens, roughly: text characters / 4 plus :func:`visual_tokens`."""
    return sent.text_chars // 4 + sum(visual_tokens(s) for s in sent.images)


OPERATOR_MODELS = {"autoglm": "autoglm-phone-9b", "uitars": "ui-tars-1.5-7b",
                   "qwen-mobile": "qwen2.5-vl-7b-instruct"}
JUDGE_MODEL = "judge"


@dataclass
class DialectRun:
    """One scripted-double run of a task in a dialect: the truth and what it cost."""

    dialect: str
    task: str
    success: bool
    status: str
    calls: int
    prompt_tokens: list[int]
    completion_chars: list[int]
    images: list[tuple[int, int]]
    planner_calls: int = 0
    error: str = ""

    @property
    def tokens_per_call(self) -> int:
        return round(sum(self.prompt_tokens) / len(self.prompt_tokens)) \
            if self.prompt_tokens else 0


def run_in_dialect(task: Task, dialect: str, *, seed: int = 0, bad_first: bool = False,
                   detect: bool = False, max_steps: int = 40) -> DialectRun:
    """Run ``task`` on a fresh vphone with the operator answering in ``dialect`` (through
    the real openai client and the model double), the planner role a JSON judge reading
    the phone. ``detect`` leaves the dialect to the model-name detection."""
    from omg_agent.sim.expert.policy import ExpertPolicy, NoiseProfile
    from omg_agent.sim.expert.runner import run_task

    made: list[DialectPolicy] = []
    model = OPERATOR_MODELS[dialect]

    def factory(task: Task, phone: Any, noise: NoiseProfile, seed: int) -> Policy:
        made.append(DialectPolicy(task, phone, dialect, model, ExpertPolicy(task, phone),
                                  bad_first=bad_first))
        return made[-1]

    overrides: dict[str, Any] = {"operator_model": model, "planner_model": JUDGE_MODEL}
    if not detect:
        overrides["dialect"] = dialect
    run = run_task(task, NoiseProfile.named("none"), seed=seed, max_steps=max_steps,
                   overrides=overrides, policy=factory)
    sent = made[0].sent if made else []
    return DialectRun(dialect, task.goal, run.success, run.status, len(sent),
                      [prompt_tokens(s) for s in sent], [len(s.reply) for s in sent],
                      [size for s in sent for size in s.images], run.planner_calls, run.error)
