"""Doubles for fast loop tests: a FakeDriver over scripted screens, and the real openai
client on ``httpx.MockTransport`` answering from a policy (no socket, no monkeypatch).

A :class:`FakeWorld` is a set of named screens (element lists) and a ``move`` function
``(screen, action, element) -> next screen name`` — the app's behaviour. The driver runs
bundles the way the real ones do: actions in order, stopping after the first semantic
boundary, one "device call" per bundle. Screen hashes are the screen names.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image

try:  # the openai SDK's HTTP library: httpx2 in openai 3, httpx before
    import httpx2 as httpx
except ImportError:  # pragma: no cover
    import httpx  # type: ignore[no-redef]

from omg_agent.brain.agent import gatekeeper
from omg_agent.brain.llm import LLMClient
from omg_agent.brain.memory import MemoryBank
from omg_agent.brain.orchestrator import Orchestrator
from omg_agent.brain.resume import RunCheckpoint
from omg_agent.config import Settings
from omg_agent.core.actions import Action, ends_bundle
from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import Observation, UIElement
from omg_agent.drivers.base import ActionOutcome, DeviceInfo, ExecResult
from omg_agent.errors import AnchorNotFound
from omg_agent.guards.confirmation import ConfirmationChannel
from omg_agent.perception.reading import element_for

W, H = 1000, 2000
_IMAGE = Image.new("RGB", (W, H), "white")


def el(id_: int, text: str = "", *, res: str = "", desc: str = "", role: str = "button",
       clickable: bool = True, checkable: bool = False, checked: bool = False,
       editable: bool = False, row: int | None = None, password: bool = False,
       package: str = "") -> UIElement:
    """An element on row ``row`` (default: its id) of a 1000×2000 screen."""
    top = 100 * (row if row is not None else id_)
    cls = ("android.widget.EditText" if editable else
           "android.widget.Switch" if checkable else "android.widget.Button")
    return UIElement(id_, cls, "switch" if checkable else "field" if editable else role,
                     Bounds(0, top, W if not checkable else W, top + 90), text=text,
                     desc=desc, resource_id=res, package=package, clickable=clickable,
                     checkable=checkable, checked=checked, editable=editable,
                     password=password)


Move = Callable[[str, Action, UIElement | None], str]


Screen = tuple[str, Sequence[UIElement]]  # (package, elements)


@dataclass
class FakeWorld:
    """Named screens (or functions drawing them from the world's state) and their moves."""

    screens: dict[str, Screen | Callable[[], Screen]]
    move: Move
    current: str
    log: list[tuple[str, str]] = field(default_factory=list)  # (screen, action type)

    def observation(self) -> Observation:
        screen = self.screens[self.current]
        package, elements = screen() if callable(screen) else screen
        return Observation(_IMAGE, tuple(elements), package=package,
                           screen_hash=self.current)


class FakeDriver:
    """The Driver protocol over a :class:`FakeWorld`."""

    def __init__(self, world: FakeWorld) -> None:
        self.world = world
        self.observations = 0

    def info(self) -> DeviceInfo:
        return DeviceInfo("fake", W, H, 420)

    def observe(self, *, ocr: bool = False) -> Observation:
        self.observations += 1
        return self.world.observation()

    def execute(self, actions: Sequence[Action],
                observation: Observation | None = None) -> ExecResult:
        outcomes: list[ActionOutcome] = []
        for index, action in enumerate(actions):
            obs = self.world.observation()
            target = getattr(action, "target", None)
            element = element_for(target, obs) if target is not None else None
            if target is not None and element is None:
                error = AnchorNotFound(str(target), "the fake screen")
                outcomes.append(ActionOutcome(index, action, False, str(error), error=error))
                break
            self.world.log.append((self.world.current, action.type))
            self.world.current = self.world.move(self.world.current, action, element)
            outcomes.append(ActionOutcome(index, action, True, action.type, element=element))
            if ends_bundle(action, element):
                break
        return ExecResult(tuple(outcomes), len(actions) - len(outcomes), 1)

    def launch(self, app: str) -> None:
        raise NotImplementedError

    def current_app(self) -> tuple[str, str]:
        return self.world.observation().package, ""

    def close(self) -> None:
        pass


# -- the model, through the real openai client ---------------------------------------------
Policy = Callable[[str, str, dict[str, Any]], Any]  # (contract, user text, request) -> reply


def contract(body: dict[str, Any]) -> str:
    fmt = body.get("response_format") or {}
    return fmt.get("json_schema", {}).get("name", "?")


def user_text(body: dict[str, Any]) -> str:
    content = body["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return "\n".join(p.get("text", "") for p in content if p.get("type") == "text")


@dataclass
class ScriptedModel:
    """Answers each request from ``policy``; a dict/list reply is sent as JSON."""

    policy: Policy
    requests: list[dict[str, Any]] = field(default_factory=list)
    cached: int = 0  # prompt tokens each reply reports as served from a prompt cache

    def handler(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.requests.append(body)
        reply = self.policy(contract(body), user_text(body), body)
        text = reply if isinstance(reply, str) else json.dumps(reply)
        return httpx.Response(200, json={
            "id": f"c{len(self.requests)}", "object": "chat.completion", "created": 0,
            "model": "scripted", "choices": [{"index": 0, "finish_reason": "stop",
                                              "message": {"role": "assistant",
                                                          "content": text}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110,
                      "prompt_tokens_details": {"cached_tokens": self.cached}}})

    def contracts(self) -> list[str]:
        return [contract(b) for b in self.requests]

    def texts(self) -> str:
        return json.dumps(self.requests, ensure_ascii=False)


@contextmanager
def orchestrator(world: FakeWorld, model: ScriptedModel, *, max_steps: int = 30,
                 ask_user: Callable[[str], str | None] | None = None,
                 recorder: Any = None, task: str = "the task",
                 confirm: ConfirmationChannel | None = None,
                 checkpoint: Path | None = None, safe_point: Callable[[], None] | None = None,
                 **settings: Any) -> Iterator[Orchestrator]:
    # the transitions under test involve the planner: adaptive unless a test picks a mode
    config = Settings(base_url="http://model.test/v1", model="scripted",
                      max_steps=max_steps, retry_backoff_s=0.001, retry_backoff_max_s=0.001,
                      **{"planning": "adaptive", **settings})
    http = httpx.Client(transport=httpx.MockTransport(model.handler))
    attempt = None if safe_point is None else (lambda record: safe_point())
    with LLMClient(config, "operator", http_client=http, on_attempt=attempt) as llm, \
            MemoryBank(None, "unit") as memory:
        saver = None if checkpoint is None else RunCheckpoint(checkpoint, "fake", memory,
                                                               recorder)
        yield Orchestrator(FakeDriver(world), llm, llm, memory, config, recorder, ask_user,
                           gatekeeper=gatekeeper(config, task, confirm), checkpoint=saver,
                           before_turn=safe_point)


def bundle(*actions: dict[str, Any], result: str = "success", **flags: Any) -> dict[str, Any]:
    return {"thought": "t", "last_action_result": result,
            "execute_now": {"intent": "act", "actions": list(actions)} if actions else None,
            **flags}


def plan(*steps: dict[str, Any]) -> dict[str, Any]:
    return {"goal": "the task", "steps": [{"success_criteria": "done", "complexity": 1, **s}
                                          for s in steps]}


def tap(text: str) -> dict[str, Any]:
    return {"type": "tap", "target": {"kind": "anchor", "text": text}}


class Recorder:
    """The TraceRecorder interface, in memory."""

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.finished: tuple[str, str] | None = None

    def record_step(self, step: int, **data: Any) -> None:
        pass

    def record_event(self, kind: str, **data: Any) -> None:
        self.events.append((kind, data))

    def finish(self, status: str, answer: str, summary: Any = None) -> None:
        self.finished = (status, answer)

    def kinds(self) -> list[str]:
        return [k for k, _ in self.events]
