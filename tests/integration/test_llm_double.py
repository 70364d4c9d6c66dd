"""LLMClient through the real openai client, over real HTTP, against the model double.

Nothing is monkeypatched: the double is an HTTP server on 127.0.0.1, the client is
``openai.OpenAI``. Backoff is made tiny through the settings, never by patching sleep.
"""

from __future__ import annotations

import base64
import io
import json
import socket
from collections.abc import Iterator
from typing import Any

import openai
import pytest
from PIL import Image, ImageChops

from omg_agent.brain.call_record import CallRecord
from omg_agent.brain.llm import LLMClient
from omg_agent.config import Settings
from omg_agent.core.contracts import DecisionBundle, Replan
from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import Observation, UIElement
from omg_agent.errors import (
    LLMReplyError,
    LLMRequestError,
    LLMUnavailable,
    ModelNotConfigured,
)
from omg_agent.sim.model_double import (
    IMAGE_TOKENS,
    ModelDouble,
    ScriptedPolicy,
    contract_name,
)

VALID = json.dumps({"thought": "The Shop icon is on the home screen.",
                    "last_action_result": "none",
                    "execute_now": {"intent": "open Shop",
                                    "actions": [{"type": "launch", "app": "Shop"}]}})
SIX_ACTIONS = json.dumps({"thought": "t", "last_action_result": "none",
                          "execute_now": {"intent": "i", "actions": [{"type": "back"}] * 6}})
MESSAGES = [{"role": "system", "content": "You are the operator."},
            {"role": "user", "content": "Task: open Shop."}]


def settings_for(double: ModelDouble, **kw: Any) -> Settings:
    base = {"base_url": double.base_url, "model": "double", "retry_backoff_s": 0.001,
            "retry_backoff_max_s": 0.01, "max_retries": 3, "timeout_s": 10}
    return Settings(**{**base, **kw})


@pytest.fixture
def records() -> list[CallRecord]:
    return []


def client_for(double: ModelDouble, records: list[CallRecord], **kw: Any) -> LLMClient:
    return LLMClient(settings_for(double, **kw), on_attempt=records.append)


@pytest.fixture
def run(records: list[CallRecord]) -> Iterator[Any]:
    """run(script, **double_kw) -> (double, client); both closed after the test."""
    opened: list[Any] = []

    def start(script: Any, *, settings: dict[str, Any] | None = None,
              **double_kw: Any) -> tuple[ModelDouble, LLMClient]:
        double = ModelDouble(script, **double_kw)
        opened.append(double)
        client = client_for(double, records, **(settings or {}))
        opened.append(client)
        return double, client

    yield start
    for thing in reversed(opened):
        thing.close()


def test_a_valid_reply_parses_and_is_accounted(run: Any, records: list[CallRecord]) -> None:
    double, client = run([VALID])
    parsed, record = client.structured(MESSAGES, DecisionBundle)
    assert parsed.actions[0].type == "launch"
    assert [r.ok for r in records] == [True] and record is records[0]
    assert record.kind == "reply" and record.counts_as_step and record.attempt == 1
    assert record.model == "double" and record.prompt_tokens > 0 and record.latency_s > 0
    assert record.response_format == "json_schema"
    (request,) = double.requests
    assert request.model == "double"
    fmt = request.response_format
    assert fmt is not None and fmt["type"] == "json_schema"
    assert fmt["json_schema"]["name"] == "DecisionBundle"
    assert "execute_now" in fmt["json_schema"]["schema"]["properties"]
    assert client.totals.replies == 1
    assert client.totals.prompt_tokens == record.prompt_tokens


def test_an_invalid_reply_is_retried_with_the_error_fed_back(
        run: Any, records: list[CallRecord]) -> None:
    double, client = run(["{not json", SIX_ACTIONS, VALID])
    parsed, record = client.structured(MESSAGES, DecisionBundle)
    assert parsed.execute_now is not None and record.attempt == 3
    assert [(r.attempt, r.ok) for r in records] == [(1, False), (2, False), (3, True)]
    assert [r.counts_as_step for r in records] == [False, False, True]  # issue 40
    second, third = double.requests[1].messages, double.requests[2].messages
    assert second[-2] == {"role": "assistant", "content": "{not json"}
    assert "not valid JSON" in second[-1]["content"]
    assert third[-2]["content"] == SIX_ACTIONS
    assert "execute_now.actions: List should have at most 5 items" in third[-1]["content"]
    assert records[1].error is not None and "at most 5" in records[1].error


def test_three_bad_replies_make_three_records_then_a_clear_error(
        run: Any, records: list[CallRecord]) -> None:
    double, client = run(["nope", "still nope", SIX_ACTIONS, VALID])
    with pytest.raises(LLMReplyError, match="no valid reply in 3 attempt") as info:
        client.structured(MESSAGES, DecisionBundle)
    assert [r.ok for r in records] == [False, False, False]
    assert info.value.attempts == 3 and info.value.last_reply == SIX_ACTIONS
    assert "at most 5" in str(info.value)
    assert len(double.requests) == 3  # the valid fourth reply was never asked for


def test_a_callback_can_stop_the_call_when_the_budget_is_spent(run: Any) -> None:
    class BudgetSpent(Exception):
        pass

    steps: list[CallRecord] = []

    def count(record: CallRecord) -> None:
        steps.append(record)
        if len(steps) >= 2 and not record.ok:
            raise BudgetSpent

    double, client = run(["bad", "bad again", VALID])
    with pytest.raises(BudgetSpent):
        client.structured(MESSAGES, DecisionBundle, on_attempt=count)
    assert len(steps) == 2 and len(double.requests) == 2


def test_attempts_can_be_capped_per_call(run: Any, records: list[CallRecord]) -> None:
    _, client = run(["bad", VALID])
    with pytest.raises(LLMReplyError):
        client.structured(MESSAGES, DecisionBundle, attempts=1)
    assert len(records) == 1


def test_rate_limits_and_server_errors_are_retried(run: Any,
                                                  records: list[CallRecord]) -> None:
    script = [{"status": 429, "headers": {"Retry-After": "0"}}, {"status": 503}, VALID]
    double, client = run(script)
    parsed, record = client.structured(MESSAGES, DecisionBundle)
    assert parsed.execute_now is not None
    assert [(r.kind, r.http_status) for r in records] == [
        ("transport", 429), ("transport", 503), ("reply", 200)]
    assert [r.counts_as_step for r in records] == [False, False, True]
    assert len(double.requests) == 3 and record.attempt == 1
    assert client.totals.failed_requests == 2 and client.totals.replies == 1


def test_retries_are_bounded(run: Any, records: list[CallRecord]) -> None:
    double, client = run([{"status": 500}] * 10, settings={"max_retries": 2})
    with pytest.raises(LLMUnavailable, match="HTTP 500.*after 3 tries"):
        client.structured(MESSAGES, DecisionBundle)
    assert len(double.requests) == 3 and len(records) == 3


def test_client_errors_are_not_retried(run: Any, records: list[CallRecord]) -> None:
    body = {"error": {"message": "Incorrect API key provided", "code": "invalid_api_key"}}
    double, client = run([{"status": 401, "body": body}, VALID])
    with pytest.raises(LLMRequestError, match="HTTP 401: Incorrect API key") as info:
        client.structured(MESSAGES, DecisionBundle)
    assert info.value.status == 401 and len(double.requests) == 1


def test_an_exhausted_quota_is_not_waited_for(run: Any) -> None:
    body = {"error": {"message": "You exceeded your quota", "code": "insufficient_quota"}}
    double, client = run([{"status": 429, "body": body}, VALID])
    with pytest.raises(LLMRequestError, match="quota"):
        client.structured(MESSAGES, DecisionBundle)
    assert len(double.requests) == 1


def test_a_dead_endpoint_is_unavailable_after_the_retries(records: list[CallRecord]) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings = Settings(base_url=f"http://127.0.0.1:{port}/v1", model="m", max_retries=1,
                        retry_backoff_s=0.001, timeout_s=5)
    with LLMClient(settings, on_attempt=records.append) as client, \
            pytest.raises(LLMUnavailable, match="Connection"):
        client.structured(MESSAGES, DecisionBundle)
    assert [r.kind for r in records] == ["transport", "transport"]


def test_json_schema_refused_falls_back_and_is_remembered(run: Any) -> None:
    double, client = run([VALID, VALID], supports_json_schema=False)
    client.structured(MESSAGES, DecisionBundle)
    first, second = double.requests
    assert first.status == 400 and first.response_format["type"] == "json_schema"
    assert second.status == 200 and second.response_format == {"type": "json_object"}
    system = second.messages[0]["content"]
    assert system.startswith("You are the operator.") and "JSON schema" in system
    assert '"execute_now"' in system
    assert client.format_mode == "json_object"
    assert contract_name(first.body) == contract_name(second.body) == "DecisionBundle"
    client.structured(MESSAGES, DecisionBundle)
    assert double.requests[2].response_format == {"type": "json_object"}
    assert len(double.requests) == 3


def test_no_response_format_at_all_is_the_last_resort(run: Any) -> None:
    double, client = run([VALID], supports_json_schema=False, supports_json_object=False)
    client.structured([{"role": "user", "content": "go"}], DecisionBundle)
    assert [r.status for r in double.requests] == [400, 400, 200]
    last = double.requests[-1]
    assert last.response_format is None
    assert last.messages[0]["role"] == "system" and "JSON schema" in last.messages[0]["content"]
    assert client.format_mode == "none"


def test_a_400_that_is_not_about_the_format_is_raised_as_is(run: Any) -> None:
    body = {"error": {"message": "context length exceeded"}}
    double, client = run([{"status": 400, "body": body}] * 3)
    with pytest.raises(LLMRequestError, match="context length"):
        client.structured(MESSAGES, Replan)
    assert client.format_mode == "json_schema"


def test_strict_mode_sends_the_strict_schema(run: Any) -> None:
    reply = json.dumps({"status": "done", "plan": None, "response": "It is 9."})
    double, client = run([reply], settings={"strict_schema": True})
    parsed, _ = client.structured(MESSAGES, Replan)
    assert parsed.response == "It is 9."
    fmt = double.requests[0].response_format["json_schema"]
    assert fmt["strict"] is True
    assert fmt["schema"]["required"] == ["status", "plan", "response", "evidence"]


def test_vision_messages_carry_downscaled_jpeg_data_urls(run: Any) -> None:
    double, client = run([VALID], settings={"image_max_side": 512, "jpeg_quality": 60})
    screen = Image.new("RGBA", (1080, 2400), (250, 250, 250, 255))
    marks = Image.new("RGB", (1080, 2400), (0, 0, 0))
    message = client.vision_message("Task: open Shop.", screenshot=screen, marks=marks,
                                    elements_text='[1] button "Shop" @500,500 {clickable}')
    _, record = client.structured([MESSAGES[0], message], DecisionBundle)
    (request,) = double.requests
    content = request.messages[1]["content"]
    assert [p["type"] for p in content] == ["text", "image_url", "image_url"]
    assert '[1] button "Shop"' in content[0]["text"]
    for url in request.images:
        head, data = url.split(",", 1)
        assert head == "data:image/jpeg;base64"
        image = Image.open(io.BytesIO(base64.b64decode(data)))
        assert image.format == "JPEG" and image.size == (230, 512)
    assert record.prompt_tokens >= 2 * IMAGE_TOKENS


def test_an_observation_is_shown_with_its_elements_and_marks(run: Any) -> None:
    double, client = run([VALID], settings={"image_max_side": 400})
    shop = UIElement(id=1, cls="android.widget.TextView", role="button", text="Shop",
                     bounds=Bounds(100, 200, 300, 300), clickable=True)
    obs = Observation(screenshot=Image.new("RGB", (1000, 2000), "white"), elements=(shop,))
    message = client.observation_message("Task: open Shop.", obs, marks=True)
    client.structured([MESSAGES[0], message], DecisionBundle)
    (request,) = double.requests
    assert '[1] button "Shop" @200,125 {clickable}' in request.text()
    shot, marked = (Image.open(io.BytesIO(base64.b64decode(u.split(",", 1)[1])))
                    for u in request.images)
    assert shot.size == marked.size == (200, 400)
    drawn = ImageChops.difference(shot.convert("RGB"), marked.convert("RGB")).getbbox()
    assert drawn is not None and Bounds(*drawn).intersection(Bounds(20, 40, 60, 60))


def test_plain_chat_and_the_models_endpoint(run: Any, records: list[CallRecord]) -> None:
    double, client = run(["hello"], models=("double", "other"))
    text, record = client.chat([{"role": "user", "content": "hi"}])
    assert text == "hello" and record.ok and records == [record]
    assert double.requests[0].response_format is None
    with openai.OpenAI(base_url=double.base_url, api_key="x", max_retries=0) as raw:
        assert [m.id for m in raw.models.list()] == ["double", "other"]


def test_the_double_answers_callables_and_reports_an_empty_script(run: Any) -> None:
    def policy(request: dict[str, Any]) -> str:
        return VALID if request["model"] == "double" else "wrong model"

    double, client = run(ScriptedPolicy([policy]))
    assert client.structured(MESSAGES, DecisionBundle)[0].execute_now is not None
    with pytest.raises(LLMUnavailable, match="script exhausted"):
        client.structured(MESSAGES, DecisionBundle)


def test_no_model_configured_refuses_to_build_a_client() -> None:
    with pytest.raises(ModelNotConfigured, match="OMG_MODEL"):
        LLMClient(Settings(base_url="http://127.0.0.1:9/v1"))
