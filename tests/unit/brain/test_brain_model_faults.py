"""Model faults the user must see and the run must survive: 429 / 5xx / timeouts retried with
bounded backoff and a notice per retry, and the run's deadline bounding every request, every
retry wait and every turn. The real openai client on ``httpx.MockTransport`` (no socket, no
monkeypatch); time is a fake clock the handler advances."""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel

try:  # the openai SDK's HTTP library: httpx2 in openai 3, httpx before
    import httpx2 as httpx
except ImportError:  # pragma: no cover
    import httpx  # type: ignore[no-redef]

from omg_agent.brain.budget import RunDeadline, StepBudget
from omg_agent.brain.call_record import CallRecord
from omg_agent.brain.llm import LLMClient
from omg_agent.config import Settings
from omg_agent.errors import BudgetExhausted, DeadlinePassed, LLMUnavailable

from .fakes import FakeWorld, Recorder, ScriptedModel, bundle, el, orchestrator, plan, tap

URL = "http://models.test/v1"
Handler = Callable[[Any], Any]


class Ping(BaseModel):
    ok: bool


class Clock:
    """A clock tests move by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _completion(content: str = '{"ok": true}') -> dict[str, Any]:
    return {"id": "c1", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


class Endpoint:
    """Answers requests from a script of responses (an int: that HTTP status; an
    exception class: raised as the transport's failure; "ok": a valid reply)."""

    def __init__(self, *script: Any, on_request: Callable[[Any], None] | None = None) -> None:
        self.script = list(script)
        self.requests: list[Any] = []
        self.on_request = on_request

    def __call__(self, request: Any) -> Any:
        self.requests.append(request)
        if self.on_request is not None:
            self.on_request(request)
        step = self.script.pop(0) if self.script else "ok"
        if step == "ok":
            return httpx.Response(200, json=_completion())
        if isinstance(step, type) and issubclass(step, Exception):
            raise step("the endpoint did not answer", request=request)
        headers = {"retry-after": "3"} if step == 429 else {}
        return httpx.Response(step, headers=headers,
                              json={"error": {"message": f"status {step} from the test"}})

    def timeouts(self) -> list[float | None]:
        return [r.extensions["timeout"]["read"] for r in self.requests]


class Sleeps:
    """The client's sleep: records the delays and moves the fake clock by them."""

    def __init__(self, clock: Clock | None = None) -> None:
        self.delays: list[float] = []
        self.clock = clock

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)
        if self.clock is not None:
            self.clock.now += seconds


def _client(endpoint: Endpoint, sleeps: Sleeps, *, notices: list[str] | None = None,
            records: list[CallRecord] | None = None, rng: random.Random | None = None,
            **settings: Any) -> LLMClient:
    config = Settings(base_url=URL, model="m", **{"max_retries": 4, "retry_backoff_s": 1.0,
                                                  "retry_backoff_max_s": 8.0, **settings})
    http = httpx.Client(transport=httpx.MockTransport(endpoint))
    return LLMClient(config, "operator", http_client=http, sleep=sleeps, rng=rng,
                     on_attempt=records.append if records is not None else None,
                     on_notice=notices.append if notices is not None else None)


class FullJitter(random.Random):
    """Jitter that always picks the top of its range: waits of exactly the backoff."""

    def uniform(self, a: float, b: float) -> float:
        return b


# -- retries and their notices -----------------------------------------------------------
def test_a_429_and_a_503_are_retried_each_with_a_notice_then_the_reply_is_used() -> None:
    endpoint, sleeps = Endpoint(429, 503, "ok"), Sleeps()
    notices: list[str] = []
    records: list[CallRecord] = []
    with _client(endpoint, sleeps, notices=notices, records=records) as llm:
        reply, record = llm.structured([{"role": "user", "content": "ping"}], Ping)
    assert reply.ok and record.ok
    assert len(endpoint.requests) == 3  # ours are the only retries: the SDK adds none
    assert [r.kind for r in records] == ["transport", "transport", "reply"]
    assert [r.http_status for r in records[:2]] == [429, 503]
    assert len(notices) == 2
    assert "rate-limited (HTTP 429)" in notices[0] and "retry 1/4" in notices[0]
    assert "HTTP 503" in notices[1] and "status 503 from the test" in notices[1]
    assert "retry 2/4" in notices[1]
    assert sleeps.delays[0] >= 3.0  # Retry-After is honoured
    assert 0.5 * 2.0 <= sleeps.delays[1] <= 2.0  # second retry: base × 2, jittered
    assert llm.totals.replies == 1 and llm.totals.failed_requests == 2


def test_a_hung_endpoint_is_announced_at_each_timeout_and_given_up_after_the_retries() -> None:
    endpoint, sleeps = Endpoint(*[httpx.ReadTimeout] * 10), Sleeps()
    notices: list[str] = []
    with _client(endpoint, sleeps, notices=notices, timeout_s=20, max_retries=3) as llm, \
            pytest.raises(LLMUnavailable, match=r"after 4 tries"):
        llm.structured([{"role": "user", "content": "ping"}], Ping)
    assert len(endpoint.requests) == 4
    assert notices == [f"operator model timed out after 20 s; retry {n}/3 in {d:.1f} s"
                       for n, d in zip((1, 2, 3), sleeps.delays, strict=True)]
    assert all(d <= 8.0 for d in sleeps.delays)  # retry_backoff_max_s caps every wait


def test_an_unreachable_endpoint_says_so_in_its_notice() -> None:
    endpoint, sleeps = Endpoint(httpx.ConnectError, "ok"), Sleeps()
    notices: list[str] = []
    with _client(endpoint, sleeps, notices=notices) as llm:
        llm.structured([{"role": "user", "content": "ping"}], Ping)
    assert len(notices) == 1 and "operator model is unreachable" in notices[0]
    assert "retry 1/4" in notices[0]


def test_without_a_listener_each_retry_is_a_logged_warning(
        caplog: pytest.LogCaptureFixture) -> None:
    endpoint, sleeps = Endpoint(502, 500, "ok"), Sleeps()
    with caplog.at_level(logging.WARNING, logger="omg_agent.brain.llm"), \
            _client(endpoint, sleeps) as llm:
        llm.chat([{"role": "user", "content": "ping"}])
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warned) == 2
    assert "HTTP 502" in warned[0] and "retry 1/4" in warned[0]
    assert "HTTP 500" in warned[1] and "retry 2/4" in warned[1]


def test_a_client_error_is_not_retried_and_has_no_notice() -> None:
    endpoint, sleeps = Endpoint(401), Sleeps()
    notices: list[str] = []
    with _client(endpoint, sleeps, notices=notices) as llm, pytest.raises(Exception,
                                                                        match="HTTP 401"):
        llm.chat([{"role": "user", "content": "ping"}])
    assert len(endpoint.requests) == 1 and notices == [] and sleeps.delays == []


# -- the deadline in the model client ------------------------------------------------------
def test_a_request_is_given_only_the_time_left_before_the_deadline() -> None:
    clock = Clock()
    endpoint, sleeps = Endpoint("ok", "ok"), Sleeps(clock)
    with _client(endpoint, sleeps, timeout_s=60) as llm:
        llm.chat([{"role": "user", "content": "ping"}])
        llm.deadline = RunDeadline(25, clock=clock)
        clock.now += 20
        llm.chat([{"role": "user", "content": "ping"}])
    assert endpoint.timeouts() == [60, pytest.approx(5)]


def test_a_request_that_runs_into_the_deadline_is_not_retried() -> None:
    clock = Clock()

    def hang(_request: Any) -> None:
        clock.now += 30  # the request took all the time there was

    endpoint, sleeps = Endpoint(httpx.ReadTimeout, on_request=hang), Sleeps(clock)
    notices: list[str] = []
    with _client(endpoint, sleeps, notices=notices) as llm:
        llm.deadline = RunDeadline(30, clock=clock)
        with pytest.raises(DeadlinePassed, match=r"run deadline of 30 s passed"):
            llm.structured([{"role": "user", "content": "ping"}], Ping)
    assert len(endpoint.requests) == 1 and notices == [] and sleeps.delays == []


def test_a_retry_whose_wait_would_pass_the_deadline_is_not_made() -> None:
    clock = Clock()
    endpoint, sleeps = Endpoint(503, 503, "ok"), Sleeps(clock)
    notices: list[str] = []
    with _client(endpoint, sleeps, notices=notices, retry_backoff_s=10,
                 retry_backoff_max_s=10, rng=FullJitter()) as llm:
        llm.deadline = RunDeadline(12, clock=clock)
        with pytest.raises(DeadlinePassed):
            llm.chat([{"role": "user", "content": "ping"}])
    # the first 10 s wait fits in 12 s, the second (10 s more) does not
    assert len(endpoint.requests) == 2 and len(sleeps.delays) == 1 and len(notices) == 1


def test_nothing_is_sent_once_the_deadline_has_passed() -> None:
    clock = Clock()
    endpoint, sleeps = Endpoint("ok"), Sleeps(clock)
    with _client(endpoint, sleeps) as llm:
        llm.deadline = RunDeadline(1, clock=clock)
        clock.now += 1
        with pytest.raises(DeadlinePassed):
            llm.chat([{"role": "user", "content": "ping"}])
    assert endpoint.requests == []


# -- the deadline in the budget ------------------------------------------------------------
def test_the_budget_check_raises_once_the_deadline_passes_and_steps_come_first() -> None:
    clock = Clock()
    budget = StepBudget(2, RunDeadline(10, clock=clock))
    budget.charge("decision")
    clock.now += 10
    with pytest.raises(DeadlinePassed) as raised:
        budget.check()
    assert raised.value.limit_s == 10
    with pytest.raises(DeadlinePassed):
        budget.charge("move")
    assert budget.used == 1  # nothing counted past the deadline
    budget.used = 2
    with pytest.raises(BudgetExhausted):
        budget.check()


def test_start_clock_hands_the_deadline_to_the_clients_and_none_clears_it() -> None:
    endpoint, sleeps = Endpoint(), Sleeps()
    with _client(endpoint, sleeps) as a, _client(endpoint, sleeps) as b:
        budget = StepBudget(5)
        deadline = budget.start_clock(120, [a, b])
        assert deadline is not None and a.deadline is deadline and b.deadline is deadline
        assert 119 < deadline.remaining() <= 120
        assert budget.start_clock(None, [a, b]) is None
        assert a.deadline is None and b.deadline is None and budget.deadline is None


@pytest.mark.parametrize("bad", [0, -5, float("nan")])
def test_a_deadline_must_be_positive(bad: float) -> None:
    with pytest.raises(ValueError, match="positive number of seconds"):
        RunDeadline(bad)


def test_the_run_timeout_setting_is_validated() -> None:
    assert Settings(run_timeout_s=90).run_timeout_s == 90
    assert Settings().run_timeout_s is None
    assert Settings.load(env={"OMG_RUN_TIMEOUT_S": "30"}).run_timeout_s == 30
    with pytest.raises(Exception, match="greater than 0"):
        Settings.load(env={"OMG_RUN_TIMEOUT_S": "0"})


# -- the deadline ends a run ---------------------------------------------------------------
def _world() -> FakeWorld:
    return FakeWorld({"home": ("launcher", [el(1, "Settings"), el(2, "Notes")])},
                     lambda screen, action, element: screen, "home")


def test_a_run_past_its_deadline_stops_failed_at_the_next_turn_saying_why() -> None:
    state: dict[str, Any] = {}

    def policy(contract: str, _text: str, _body: dict[str, Any]) -> Any:
        if contract == "TaskPlan":
            return plan({"description": "open Settings", "checks": [
                {"kind": "app", "app": "com.android.settings"}]})
        deadline = state["orch"].state.budget.deadline
        while not deadline.passed:  # this turn's reply comes after the deadline
            time.sleep(0.01)
        return bundle(tap("Notes"))

    model, recorder, world = ScriptedModel(policy), Recorder(), _world()
    with orchestrator(world, model, recorder=recorder, run_timeout_s=1) as orch:
        state["orch"] = orch
        result = orch.run("open Settings")
    assert result.status == "failed"
    assert "run deadline of 1 s passed" in result.stopped_because
    assert "--timeout" in result.stopped_because
    # the late reply is neither counted nor acted on: the deadline stops the run first
    assert result.steps_used == 0 and world.log == []
    assert model.contracts()[0] == "TaskPlan" and model.contracts().count("DecisionBundle") <= 1
    assert "error" in recorder.kinds()


def test_a_run_within_its_deadline_is_not_touched_by_it() -> None:
    def policy(contract: str, text: str, _body: dict[str, Any]) -> Any:
        if contract == "TaskPlan":
            return plan({"description": "see Settings", "checks": [
                {"kind": "element", "text": "Wi-Fi"}]})
        screen = text.split("Elements on screen", 1)[-1]
        return bundle(step_complete=True) if "Wi-Fi" in screen else bundle(tap("Settings"))

    world = FakeWorld({"home": ("launcher", [el(1, "Settings")]),
                       "settings": ("com.android.settings", [el(1, "Wi-Fi")])},
                      lambda screen, action, element: "settings", "home")
    with orchestrator(world, ScriptedModel(policy), run_timeout_s=3600) as orch:
        result = orch.run("see Settings")
    assert result.status == "done", result.summary()
    assert json.dumps(result.as_dict())  # the result stays plain data


# -- bad numbers in replies: rejected with a message the model can act on --------------------
def _tap_bundle(action: str) -> str:
    return ('{"thought": "t", "last_action_result": "none", "execute_now": {"intent": "i", '
            f'"actions": [{action}]}}}}')


@pytest.mark.parametrize(("action", "path", "message"), [
    ('{"type": "wait", "seconds": NaN}', "wait.seconds", "finite number"),
    ('{"type": "wait", "seconds": Infinity}', "wait.seconds", "finite number"),
    ('{"type": "wait", "seconds": 1e9}', "wait.seconds", "less than or equal to 60"),
    ('{"type": "wait", "seconds": -1}', "wait.seconds", "greater than 0"),
    ('{"type": "tap", "target": {"x": NaN, "y": 5}}', "target.point.x", "finite number"),
    ('{"type": "tap", "target": [1e400, 5]}', "target.point.x", "finite number"),
    ('{"type": "tap", "target": {"x": 1001, "y": 5}}', "target.point.x",
     "less than or equal to 1000"),
    ('{"type": "swipe", "direction": "up", "distance": NaN}', "swipe.distance",
     "finite number"),
    ('{"type": "teleport"}', "actions.0", "does not match any of the expected tags"),
])
def test_bad_numbers_and_unknown_actions_come_back_as_feedback_naming_the_field(
        action: str, path: str, message: str) -> None:
    from omg_agent.brain.structured import InvalidReply, parse_reply
    from omg_agent.core.contracts import DecisionBundle

    with pytest.raises(InvalidReply) as raised:
        parse_reply(_tap_bundle(action), DecisionBundle)
    assert path in str(raised.value) and message in str(raised.value)


def test_an_absurd_wait_is_asked_again_with_the_error_and_never_run() -> None:
    replies = [_tap_bundle('{"type": "wait", "seconds": 1e9}'),
               _tap_bundle('{"type": "wait", "seconds": 0.01}')]

    def policy(contract: str, _text: str, _body: dict[str, Any]) -> Any:
        if contract == "TaskPlan":
            return plan({"description": "open Settings", "checks": [
                {"kind": "app", "app": "com.android.settings"}]})
        return replies.pop(0) if replies else bundle(step_complete=True)

    model, world = ScriptedModel(policy), _world()
    with orchestrator(world, model, max_steps=4) as orch:
        result = orch.run("open Settings")
    feedback = json.dumps(model.requests[2]["messages"][-1], ensure_ascii=False)
    assert "less than or equal to 60" in feedback and "wait.seconds" in feedback
    assert world.log == [("home", "wait")]  # only the corrected wait ran
    assert result.status == "failed" and result.steps_used <= 4
