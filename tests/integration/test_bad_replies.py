"""400+ generated bad model replies through the whole agent (1,000+ before the suite outgrew
its 15 minutes): never an uncaught exception, never a run marked done that the phone does
not show done, never a step past the budget.

Hypothesis draws each model reply at the moment the agent asks for it (refusals, prose,
truncated JSON, wrong types, NaN / infinite / huge coordinates, unknown actions, element ids
not on the screen, absurd waits, garbage claims of completion, HTTP errors, and valid but
pointless actions). The replies reach the real openai client over ``httpx.MockTransport``,
and the real Orchestrator / Operator drive one vphone over the real adb server (reset
between examples). The task is "Turn off Wi-Fi"; the phone's Settings app is the judge.

Not generated: a *valid* plan whose steps carry only prose criteria. Such steps are
confirmed by the planner looking at the screenshot (DESIGN.md §3), so a planner that lies
about them is believed by design; every plan here is either invalid or the sound one, whose
step has a check the phone decides.
"""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

try:  # the openai SDK's HTTP library: httpx2 in openai 3, httpx before
    import httpx2 as httpx
except ImportError:  # pragma: no cover
    import httpx  # type: ignore[no-redef]

from omg_agent.brain.agent import gatekeeper
from omg_agent.brain.llm import LLMClient
from omg_agent.brain.memory import MemoryBank
from omg_agent.brain.orchestrator import Orchestrator
from omg_agent.config import Settings
from omg_agent.core.secrets import SecretVault
from omg_agent.drivers.adb import AdbDriver
from omg_agent.errors import AdbNotFound
from omg_agent.sim.expert.tasks import Switch
from omg_agent.trace.recorder import TraceRecorder
from omg_agent.vphone import adbhost
from omg_agent.vphone.phone import VirtualPhone

REPLIES_WANTED = 400  # 1,000 until the suite outgrew its 15 minutes
EXAMPLES = 40  # runs; each asks for ~13 replies (1,091 bad ones in 85 runs)
MAX_STEPS = 16
PARSE_ATTEMPTS = 4
TASK = Switch(attr="wifi", on=False)
GOOD_PLAN = {"goal": TASK.goal, "steps": [{
    "description": "Turn off Wi-Fi in Settings", "success_criteria": TASK.criteria,
    "complexity": 1, "on_fail": "replan",  # failed turns soon reach the planner's replies
    "checks": [{"kind": "element", "resource_id": "wifi_switch", "checked": False}]}]}
KNOWN_TYPES = {"tap", "long_press", "double_tap", "swipe", "type", "key", "launch", "back",
               "home", "wait", "mem_save", "ask_user", "done"}
SAFE_KEYS = ["back", "home", "enter", "delete", "tab", "escape", "dpad_down", 4, 66]
APPS = ["Settings", "Shop", "Notes", "com.omg.feed", "no.such.app", "设置"]


@dataclass(frozen=True)
class Reply:
    """One answer of the endpoint: a kind (for the tally) and what goes on the wire."""

    kind: str
    content: str | None = None
    refusal: str | None = None
    finish_reason: str = "stop"
    status: int = 200

    @property
    def bad(self) -> bool:
        return self.kind != "good_plan"


# -- strategies ----------------------------------------------------------------------------
def wire(value: Any) -> str:
    return json.dumps(value, allow_nan=True, ensure_ascii=False)  # NaN / Infinity literals


text = st.text(max_size=40)
word = st.text(min_size=1, max_size=15)
norm = st.integers(0, 1000)
junk = st.recursive(st.none() | st.booleans() | st.integers(-10**30, 10**30) | st.floats()
                    | text, lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(text, inner, max_size=3), max_leaves=6)
bad_number = st.sampled_from([float("nan"), float("inf"), float("-inf"), 1e300, -1e300,
                              10**40, -1, 1001, 1000.5, "500", None, True, [1, 2]])
absurd_wait = st.sampled_from([1e9, 1e300, float("inf"), float("nan"), -1, 0, 61, "forever",
                               None, 10**30])

valid_action = st.one_of(
    st.builds(lambda x, y: {"type": "tap", "target": {"kind": "point", "x": x, "y": y}},
              norm, norm),
    st.builds(lambda i: {"type": "tap", "target": {"kind": "element", "id": i}},
              st.integers(1, 10**12)),  # mostly ids the screen does not have
    st.builds(lambda t: {"type": "tap", "target": {"kind": "anchor", "text": t}}, word),
    st.builds(lambda i: {"type": "long_press", "target": i, "duration_ms": 300},
              st.integers(1, 30)),
    st.just({"type": "back"}), st.just({"type": "home"}),
    st.builds(lambda s: {"type": "wait", "seconds": s}, st.floats(0.01, 0.2)),
    st.builds(lambda t, c: {"type": "type", "text": t, "clear": c}, word, st.booleans()),
    st.builds(lambda a: {"type": "launch", "app": a}, st.sampled_from(APPS) | word),
    st.builds(lambda k: {"type": "key", "key": k}, st.sampled_from(SAFE_KEYS)),
    st.builds(lambda d: {"type": "swipe", "direction": d, "duration_ms": 60},
              st.sampled_from(["up", "down", "left", "right"])),
    st.builds(lambda k, v: {"type": "mem_save", "key": k, "value": v},
              st.from_regex(r"[a-z_]\w{0,8}", fullmatch=True), text),
)
bad_action = st.one_of(
    st.builds(lambda x, y: {"type": "tap", "target": {"kind": "point", "x": x, "y": y}},
              bad_number, norm | bad_number),
    st.builds(lambda x, y: {"type": "tap", "target": [x, y]}, bad_number, norm),
    st.builds(lambda i: {"type": "tap", "target": {"kind": "element", "id": i}},
              st.sampled_from([0, -3, 1e30, float("nan"), "seven", 2.5, None])),
    st.builds(lambda t, extra: {"type": t, **extra},
              word.filter(lambda t: t not in KNOWN_TYPES), st.dictionaries(word, junk,
                                                                          max_size=2)),
    st.builds(lambda s: {"type": "wait", "seconds": s}, absurd_wait),
    st.builds(lambda d: {"type": "swipe", "direction": "up", "distance": d}, bad_number),
    st.builds(lambda d: {"type": "long_press", "target": 3, "duration_ms": d},
              st.sampled_from([1e12, -5, float("nan"), 10**20])),
    st.builds(lambda k: {"type": "key", "key": k},
              st.sampled_from([0, 400, -1, 10**30, "hyperspace", 1.5, None])),
    st.builds(lambda a: {"type": "launch", "app": a}, st.sampled_from(["", None, 7, []])),
    st.just({"type": "mem_save", "key": "1 bad key", "value": "x"}),
    st.just({"type": "done", "answer": "finished"}),  # a hand-off that is not last
)


def decision(actions: list[Any], **flags: Any) -> dict[str, Any]:
    return {"thought": "looking at the screen", "last_action_result": "none",
            "execute_now": {"intent": "try something", "actions": actions}, **flags}


wrong_bundle = st.lists(valid_action, max_size=2).flatmap(
    lambda before: st.builds(lambda bad, after: decision([*before, bad, *after]),
                             bad_action, st.lists(valid_action, max_size=2)))
pointless_bundle = st.builds(decision, st.lists(valid_action, min_size=1, max_size=5))
claim = st.one_of(
    st.builds(lambda a, k: {"thought": "all done", "last_action_result": "success",
                            k: True, "answer": a},
              text, st.sampled_from(["goal_complete", "step_complete"])),
    st.builds(lambda a: decision([{"type": "done", "answer": a}]), text),
    st.builds(lambda a: decision([{"type": "tap", "target": 3}], goal_complete=True,
                                 answer=a), text),  # a claim with work still to do
    st.just({"thought": "x", "last_action_result": "success", "goal_complete": True,
             "goal_infeasible": True}),
    st.builds(lambda a: {"thought": "done", "last_action_result": "success",
                         "goal_complete": a}, junk),
)


@st.composite
def retyped(draw: st.DrawFn, base: st.SearchStrategy[dict[str, Any]]) -> dict[str, Any]:
    """A reply with one field's value replaced by a value of some other type."""
    body = dict(draw(base))
    body[draw(st.sampled_from(sorted(body) + ["extra_field"]))] = draw(junk)
    return body


def as_reply(kind: str, value: st.SearchStrategy[Any]) -> st.SearchStrategy[Reply]:
    return value.map(lambda v: Reply(kind, v if isinstance(v, str) else wire(v)))


@st.composite
def truncated(draw: st.DrawFn, base: st.SearchStrategy[Any]) -> Reply:
    whole = wire(draw(base))
    cut = draw(st.integers(0, len(whole) - 1))
    return Reply("truncated", whole[:cut], finish_reason=draw(st.sampled_from(["length",
                                                                               "stop"])))


REFUSALS = ["I'm sorry, but I can't help with that.", "I cannot operate a phone.",
            "As an AI, I won't do that.", "抱歉，我无法完成这个请求。"]
common = st.one_of(
    as_reply("random_text", st.text(max_size=200)),
    as_reply("refusal", st.sampled_from(REFUSALS)),
    st.sampled_from(REFUSALS).map(lambda r: Reply("sdk_refusal", None, refusal=r)),
    as_reply("json_junk", junk.map(wire)),
    st.builds(lambda p, body: Reply("prose", f"{p}\n```json\n{body}"), text,
              junk.map(wire)),
    st.sampled_from([429, 500, 503]).map(lambda s: Reply("http_error", status=s)),
)
operator_reply = st.one_of(
    common,
    truncated(pointless_bundle | claim),
    as_reply("wrong_types", retyped(pointless_bundle)),
    as_reply("bad_action", wrong_bundle),
    as_reply("garbage_claim", claim),
    as_reply("pointless_actions", pointless_bundle),
    st.builds(lambda p, b: Reply("prose_around_bundle", f"{p} {wire(b)} {p}"), text,
              pointless_bundle),
)
bad_plan = st.one_of(
    st.just({"goal": "g", "steps": []}),
    st.builds(lambda v: {"goal": "g", "steps": [{**GOOD_PLAN["steps"][0], "complexity": v}]},
              bad_number),
    st.builds(lambda v: {"goal": "g", "steps": [{**GOOD_PLAN["steps"][0], "timeout_s": v}]},
              bad_number),
    st.just({"goal": "g", "steps": [{**GOOD_PLAN["steps"][0], "on_fail": "jump_to:99"}]}),
    retyped(st.just(GOOD_PLAN)),
)
# the first plan is mostly sound, so that most runs reach the operator's bad replies
plan_reply = st.integers(0, 9).flatmap(lambda n: st.just(Reply("good_plan", wire(GOOD_PLAN)))
                                       if n > 1 else st.one_of(
    common, truncated(st.just(GOOD_PLAN)), as_reply("bad_plan", bad_plan)))
replan_reply = st.one_of(
    common,
    as_reply("garbage_claim", st.builds(lambda r: {"status": "done", "response": r}, word)),
    as_reply("give_up", st.builds(lambda s, r: {"status": s, "response": r},
                                  st.sampled_from(["give_up", "infeasible"]), word)),
    as_reply("bad_replan", st.sampled_from([
        {"status": "replanned"}, {"status": "done"}, {"status": "finished", "response": "x"},
        {"status": "done", "response": "ok", "plan": GOOD_PLAN}])),
    as_reply("bad_plan", bad_plan.map(lambda p: {"status": "replanned", "plan": p})),
    truncated(st.just({"status": "replanned", "plan": GOOD_PLAN})),
)
STRATEGIES = {"TaskPlan": plan_reply, "DecisionBundle": operator_reply,
              "Replan": replan_reply}


# -- the endpoint and the phone ------------------------------------------------------------
@dataclass
class Tally:
    replies: Counter[str] = field(default_factory=Counter)  # bad replies served, by kind
    runs: Counter[str] = field(default_factory=Counter)  # runs, by status
    reasons: Counter[str] = field(default_factory=Counter)  # why they stopped, in short
    contracts: Counter[str] = field(default_factory=Counter)  # bad replies, by contract

    @property
    def bad(self) -> int:
        return sum(n for k, n in self.replies.items() if k != "good_plan")


class Endpoint:
    """The model: each request gets the next reply hypothesis draws for its contract."""

    def __init__(self, data: st.DataObject, tally: Tally) -> None:
        self.data, self.tally = data, tally
        self.counted = 0  # replies to requests that count steps (all but the first plan)

    def __call__(self, request: Any) -> Any:
        body = json.loads(request.content)
        name = (body.get("response_format") or {}).get("json_schema", {}).get("name", "?")
        reply = self.data.draw(STRATEGIES[name], label=name)
        self.tally.replies[reply.kind] += 1
        self.tally.contracts[name] += reply.bad
        if reply.status != 200:
            return httpx.Response(reply.status, json={"error": {"message": "overloaded"}})
        self.counted += name != "TaskPlan"
        message = {"role": "assistant", "content": reply.content, "refusal": reply.refusal}
        return httpx.Response(200, json={
            "id": "c", "object": "chat.completion", "created": 0, "model": "fuzz",
            "choices": [{"index": 0, "finish_reason": reply.finish_reason,
                         "message": message}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}})


@dataclass
class Phone:
    phone: VirtualPhone
    serial: str
    driver: AdbDriver

    def reset(self) -> None:
        """Every app back to its first state, the launcher in front, Wi-Fi on."""
        for package in list(self.phone.apps):
            self.phone.clear_app(package)
        self.phone.go_home()
        TASK.setup(self.phone)


@pytest.fixture(scope="module")
def phone() -> Iterator[Phone]:
    try:
        adbhost.adb_path()
    except AdbNotFound as exc:
        pytest.skip(str(exc))
    vphone = VirtualPhone("compact")  # fewer pixels to capture, hash and encode
    server = vphone.serve()
    serial = adbhost.connect("127.0.0.1", server.port)
    driver = AdbDriver(serial)
    try:
        yield Phone(vphone, serial, driver)
    finally:
        driver.close()
        adbhost.disconnect(serial)
        vphone.close()


def run_once(phone: Phone, endpoint: Endpoint, run_dir: Path, *, traced: bool) -> Any:
    """One run of the task against ``endpoint``; ``traced`` runs write a real trace (the
    garbage goes through the recorder too; every run doing so would double the time)."""
    config = Settings(base_url="http://fuzz.test/v1", model="fuzz", max_steps=MAX_STEPS,
                      parse_attempts=PARSE_ATTEMPTS, max_retries=2, loop_guard=False,
                      retry_backoff_s=0.001, retry_backoff_max_s=0.001, timeout_s=10,
                      runs_dir=run_dir.parent, run_timeout_s=120, image_max_side=256,
                      planning="adaptive")  # plans and replans are fuzzed too
    vault = SecretVault()
    http = httpx.Client(transport=httpx.MockTransport(endpoint))
    with ExitStack() as stack:
        planner = stack.enter_context(LLMClient(config, "planner", http_client=http,
                                                secrets=vault))
        operator = stack.enter_context(LLMClient(config, "operator", http_client=http,
                                                 secrets=vault))
        memory = stack.enter_context(MemoryBank(None, "fuzz"))
        recorder = stack.enter_context(TraceRecorder(run_dir, task=TASK.goal, secrets=vault)) \
            if traced else None
        orchestrator = Orchestrator(phone.driver, planner, operator, memory, config, recorder,
                                    gatekeeper=gatekeeper(config, TASK.goal, None),
                                    secrets=vault)
        return orchestrator.run(TASK.goal)


@pytest.mark.slow  # ~1-2 min on an idle two-core machine
@pytest.mark.timeout(1200)  # a loaded machine: minutes more, never a hang (each run ≤ 120 s)
def test_bad_model_replies_never_crash_never_fake_success_never_pass_the_budget(
        phone: Phone, tmp_path_factory: pytest.TempPathFactory) -> None:
    tally = Tally()
    base = tmp_path_factory.mktemp("bad-replies")
    numbers = itertools.count()  # a fresh trace folder for every run, replays included

    @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(st.data())
    def one_run(data: st.DataObject) -> None:
        phone.reset()
        endpoint = Endpoint(data, tally)
        number = next(numbers)
        result = run_once(phone, endpoint, base / f"run-{number:04d}",
                          traced=number % 4 == 0)
        tally.runs[result.status] += 1
        tally.reasons[re.sub(r"\W+", " ", result.stopped_because)[:50].strip()] += 1
        done_on_phone = TASK.check(phone.phone)
        assert result.status != "done" or done_on_phone, (
            f"marked done while Wi-Fi is still on: {result.summary()}")
        assert result.steps_used <= MAX_STEPS
        # each call costs a step, whether a valid reply ended it or its last refused one
        # (issue 40: the refused replies before it are free): no call past the budget
        assert endpoint.counted <= MAX_STEPS * PARSE_ATTEMPTS
        if result.status != "done":
            assert result.stopped_because.strip(), "a stopped run must say why"

    one_run()
    print(f"\nbad replies served: {tally.bad} by contract {dict(tally.contracts)}, by kind "
          f"{dict(tally.replies)}; "
          f"runs by status {dict(tally.runs)}; stop reasons {tally.reasons.most_common(8)}")
    assert tally.bad >= REPLIES_WANTED
