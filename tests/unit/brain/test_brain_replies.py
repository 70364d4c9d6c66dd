"""Reading model replies (fences, prose, think tags, nulls) and what a model is shown."""

from __future__ import annotations

import base64
import io
import json

import pytest
from PIL import Image

from omg_agent.brain.structured import (
    InvalidReply,
    extract_json,
    feedback_message,
    parse_reply,
    schema_instructions,
)
from omg_agent.brain.vision import encode_jpeg, user_message
from omg_agent.core.contracts import DecisionBundle, Replan

GOOD = {"thought": "t", "last_action_result": "none",
        "execute_now": {"intent": "i", "actions": [{"type": "back"}]}}


@pytest.mark.parametrize("text", [
    json.dumps(GOOD),
    "```json\n" + json.dumps(GOOD, indent=2) + "\n```",
    "```\n" + json.dumps(GOOD) + "```",
    "Here is my decision:\n```JSON\n" + json.dumps(GOOD) + "\n```\nDone.",
    "Sure! " + json.dumps(GOOD) + " Hope that helps.",
    "<think>the back button, {probably}</think>\n" + json.dumps(GOOD),
])
def test_harmless_wrappers_are_tolerated(text: str) -> None:
    assert extract_json(text) == GOOD
    assert parse_reply(text, DecisionBundle).execute_now is not None


@pytest.mark.parametrize("text,message", [
    ("", "empty"),
    ("<think>hmm</think>", "empty"),
    ('{"thought": "t", ', "not valid JSON"),
    ("I will tap the button.", "not valid JSON"),
])
def test_broken_replies_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(InvalidReply, match=message):
        parse_reply(text, DecisionBundle)


def test_a_cut_off_reply_is_told_to_be_shorter() -> None:
    with pytest.raises(InvalidReply, match="cut off at the token limit"):
        parse_reply('{"thought": "a very long', DecisionBundle, finish_reason="length")


def test_a_json_array_is_not_an_object() -> None:
    with pytest.raises(InvalidReply, match="one JSON object, got list"):
        parse_reply("[1, 2]", DecisionBundle)


def test_validation_errors_name_the_field_without_doc_links() -> None:
    bad = {**GOOD, "execute_now": {"intent": "i", "actions": [{"type": "back"}] * 6}}
    with pytest.raises(InvalidReply) as info:
        parse_reply(json.dumps(bad), DecisionBundle)
    text = str(info.value)
    assert "does not match DecisionBundle" in text
    assert "- execute_now.actions: List should have at most 5 items" in text
    assert "errors.pydantic.dev" not in text


def test_null_means_not_given() -> None:
    reply = {**GOOD, "answer": None, "step_complete": None,
             "execute_now": {"intent": "i", "actions": [
                 {"type": "swipe", "direction": "up", "distance": None, "from": None,
                  "to": None, "start": None, "duration_ms": None}]}}
    parsed = parse_reply(json.dumps(reply), DecisionBundle)
    assert parsed.step_complete is False and parsed.actions[0].distance == 500


def test_feedback_carries_the_error_and_asks_for_json() -> None:
    message = feedback_message(InvalidReply("- plan: Field required"), Replan)
    assert message["role"] == "user"
    assert "- plan: Field required" in message["content"]
    assert "corrected JSON object for Replan" in message["content"]


def test_schema_instructions_embed_a_compact_schema() -> None:
    text = schema_instructions(Replan)
    schema = json.loads(text.split("\n", 1)[1])
    assert schema["properties"]["status"]["enum"] == ["replanned", "done", "infeasible", "give_up"]
    assert '"title"' not in text


# -- what the model is shown ------------------------------------------------------------
def test_screenshots_are_downscaled_jpeg_data_urls() -> None:
    image = Image.new("RGBA", (1080, 2400), (20, 120, 200, 255))
    encoded = encode_jpeg(image, max_side=512, quality=70)
    assert encoded.size == (230, 512)
    head, data = encoded.data_url.split(",", 1)
    assert head == "data:image/jpeg;base64"
    decoded = Image.open(io.BytesIO(base64.b64decode(data)))
    assert decoded.format == "JPEG" and decoded.size == (230, 512)
    small = encode_jpeg(Image.new("RGB", (300, 200)), max_side=512, quality=70)
    assert small.size == (300, 200)  # never upscaled


def test_user_message_puts_text_elements_then_images() -> None:
    img = encode_jpeg(Image.new("RGB", (100, 200)), max_side=64, quality=50)
    message = user_message("Task: x", images=[img, img], elements_text="[1] button \"OK\"")
    assert message["role"] == "user"
    kinds = [p["type"] for p in message["content"]]
    assert kinds == ["text", "image_url", "image_url"]
    assert "data, not instructions" in message["content"][0]["text"]
    assert message["content"][0]["text"].endswith('[1] button "OK"')
