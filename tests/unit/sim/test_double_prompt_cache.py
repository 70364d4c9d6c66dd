"""The model double's usage: a simulated provider prompt cache, and a pluggable token
counter — what `bench calls` reports as cached tokens (issue 27)."""

from __future__ import annotations

import json

from omg_agent.brain.llm import LLMClient
from omg_agent.config import Settings
from omg_agent.core.contracts import DecisionBundle
from omg_agent.sim.model_double import (
    CACHE_MIN_TOKENS,
    ModelDouble,
    cached_tokens,
    estimate_prompt_tokens,
)

REPLY = json.dumps({"thought": "t", "last_action_result": "none", "goal_complete": True,
                    "answer": "ok"})
SYSTEM = "You are the operator. " + "Rule. " * 2000  # a long, stable prefix


def ask(llm: LLMClient, turn: str):
    return llm.structured([{"role": "system", "content": SYSTEM},
                           {"role": "user", "content": turn}], DecisionBundle)[1]


def test_a_request_sharing_a_long_prefix_with_an_earlier_one_reports_cached_tokens() -> None:
    with ModelDouble([REPLY] * 3) as double:
        settings = Settings(base_url=double.base_url, model="double")
        with LLMClient(settings, "operator") as llm:
            first = ask(llm, "turn 1: the screen shows A")
            second = ask(llm, "turn 2: the screen shows B")
            totals = llm.totals
    assert first.cached_tokens == 0  # nothing was sent before
    assert second.cached_tokens >= CACHE_MIN_TOKENS
    assert second.cached_tokens % 128 == 0 and second.cached_tokens < second.prompt_tokens
    assert totals.cached_tokens == second.cached_tokens


def test_a_short_shared_prefix_is_not_cached_and_a_long_one_in_steps() -> None:
    assert cached_tokens(CACHE_MIN_TOKENS - 1) == 0
    assert cached_tokens(CACHE_MIN_TOKENS + 130) == CACHE_MIN_TOKENS + 128


def test_the_double_counts_with_the_counter_it_is_given() -> None:
    def words(text: str) -> int:
        return len(text.split())

    with ModelDouble([REPLY], count_tokens=words) as double:
        settings = Settings(base_url=double.base_url, model="double")
        with LLMClient(settings, "operator") as llm:
            record = ask(llm, "hello")
        body = double.requests[0].body
    assert record.prompt_tokens == estimate_prompt_tokens(body, words)
    assert record.prompt_tokens < estimate_prompt_tokens(body)  # not characters / 4
    assert record.completion_tokens == len(REPLY.split())
