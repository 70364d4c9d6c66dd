"""Doubles for fast loop tests: a FakeDriver over scripted screens, and the real openai
client on ``httpx.MockTransport`` answering from a policy (no socket, no monkeypatch).

A :class:`FakeWorld` is a set of named screens (element lists) and a ``move`` function
``(screen, action, element) -> next screen name`` — the app's behaviour. The driver runs
bundles through the real executor (segments, targets, the gate's review, waits on a fake
clock) over a :class:`FakePort`: a touch lands on what is under its point, one "device
call" per batch. Screen hashes are the screen names.
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
from omg_agent.core.actions import Action, Wait
from omg_agent.core.geometry import Bounds, Point, ScreenGeometry
from omg_agent.core.observation import Observation, UIElement
from omg_agent.drivers.base import DeviceInfo, ExecResult
from omg_agent.drivers.executor import BundleExecutor
from omg_agent.drivers.ports import ImmediatePort, Planned, Reviewer
from omg_agent.guards.confirmation import ConfirmationChannel
from omg_agent.perception.anchor import Anchorer

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


class FakeClock:
    """Time that passes only when something sleeps (the executor's waits)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


class FakePort(ImmediatePort):
    """The executor's port over a :class:`FakeWorld`: a touch lands on the element the
    executor planned it on (the fake screens stack elements on one row, where a point could
    not tell them apart), else on what is under its point; each action moves the world
    once."""

    def __init__(self, world: FakeWorld) -> None:
        super().__init__()
        self.world = world
        self.actions: Sequence[Action] = ()  # the bundle being run (the verbs name points)
        self.round_trips = 0
        self.planned: dict[int, UIElement | None] = {}  # index -> the element planned on
        self._pending: tuple[int, UIElement | None] | None = None

    @property
    def calls(self) -> int:
        return self.round_trips

    def begin(self, index: int) -> None:
        self._move()
        super().begin(index)
        self._pending = (index, None)

    def _touch(self, p: Point) -> None:
        assert self._pending is not None
        index = self._pending[0]
        element = self.planned.get(index) or self.world.observation().element_at(p)
        self._pending = (index, element)

    def tap(self, p: Point) -> None:
        self._touch(p)

    def double_tap(self, p: Point) -> None:
        self._touch(p)

    def long_press(self, p: Point, duration_ms: int) -> None:
        self._touch(p)

    def swipe(self, start: Point, end: Point, duration_ms: int) -> None:
        pass

    def key(self, code: int) -> None:
        pass

    def type(self, text: str, *, clear: bool, field: UIElement | None,
             after_tap: bool) -> str:
        assert self._pending is not None
        self._pending = (self._pending[0], field or self._pending[1])
        return f"typed {len(text)} characters"

    def start(self, package: str) -> None:
        pass

    def batch(self) -> list[int]:
        self._move()
        self.round_trips += 1
        return super().batch()

    def discard(self) -> None:
        super().discard()
        self._pending = None

    def packages(self) -> list[str]:
        return sorted({s[0] for s in self.world.screens.values() if not callable(s)})

    def _move(self) -> None:
        if self._pending is None:
            return
        index, element = self._pending
        self._pending = None
        action, world = self.actions[index], self.world
        world.log.append((world.current, action.type))
        world.current = world.move(world.current, action, element)


class _Seen:
    """The caller's reviewer, telling the port which element each action was planned on."""

    def __init__(self, port: FakePort, inner: Reviewer | None) -> None:
        self.port, self.inner = port, inner
        self.unseen = inner is not None and inner.unseen

    def review(self, planned: Sequence[Planned], screen: Observation | None) -> int | None:
        self.port.planned = {p.index: p.element for p in planned}
        return self.inner.review(planned, screen) if self.inner is not None else None

    def stopped(self, why: str, screen: Observation | None) -> None:
        assert self.inner is not None
        self.inner.stopped(why, screen)


class FakeDriver:
    """The Driver protocol over a :class:`FakeWorld`: bundles run through the real
    :class:`~omg_agent.drivers.executor.BundleExecutor` over a :class:`FakePort`."""

    serial = "fake"

    def __init__(self, world: FakeWorld) -> None:
        self.world = world
        self.observations = 0
        self.last_observation: Observation | None = None
        self.geometry = ScreenGeometry(W, H)
        self.anchorer = Anchorer(self.geometry, density=420)
        self.clock = FakeClock()
        self.port = FakePort(world)
        self.executor = BundleExecutor(self, self.port, clock=self.clock,
                                       sleep=self.clock.sleep)

    def info(self) -> DeviceInfo:
        return DeviceInfo("fake", W, H, 420)

    def observe(self, *, ocr: bool = False) -> Observation:
        self.observations += 1
        self.last_observation = self.world.observation()
        return self.last_observation

    def execute(self, actions: Sequence[Action], observation: Observation | None = None, *,
                review: Reviewer | None = None) -> ExecResult:
        self.port.actions, self.port.planned = list(actions), {}
        result = self.executor.run(list(actions), observation, _Seen(self.port, review))
        # a wait passes on the host, not through the port: the world's log still shows it
        self.world.log += [(self.world.current, o.action.type) for o in result.outcomes
                           if o.ok and isinstance(o.action, Wait)]
        return result

    def wait_settled(self, timeout: float | None = None, *, previous: str = "") -> bool:
        return True

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
                 secrets: Any = None, **settings: Any) -> Iterator[Orchestrator]:
    # the transitions under test involve the planner: adaptive unless a test picks a mode
    config = Settings(base_url="http://model.test/v1", model="scripted",
                      max_steps=max_steps, retry_backoff_s=0.001, retry_backoff_max_s=0.001,
                      **{"planning": "adaptive", **settings})
    http = httpx.Client(transport=httpx.MockTransport(model.handler))
    attempt = None if safe_point is None else (lambda record: safe_point())
    with LLMClient(config, "operator", http_client=http, on_attempt=attempt,
                   secrets=secrets) as llm, \
            MemoryBank(None, "unit") as memory:
        saver = None if checkpoint is None else RunCheckpoint(checkpoint, "fake", memory,
                                                               recorder)
        yield Orchestrator(FakeDriver(world), llm, llm, memory, config, recorder, ask_user,
                           gatekeeper=gatekeeper(config, task, confirm), checkpoint=saver,
                           before_turn=safe_point, secrets=secrets)


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
