"""scripts/peers/relay_tokens.py counts a relay round's input tokens the same way for any agent:
images by OpenAI's high-detail tiles, the response schema in its own column, each request
named by its task (issue 27, relay model)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from PIL import Image

SCRIPT = Path(__file__).parents[3] / "scripts" / "peers" / "relay_tokens.py"
SCHEMA = {"type": "json_schema", "json_schema": {"name": "DecisionBundle", "schema": {
    "type": "object", "properties": {"thought": {"type": "string"}}}}}


def relay_request(root: Path, n: int, user: str, image: tuple[int, int] | None = None,
                  schema: bool = True) -> None:
    folder = root / f"req_{n:03d}"
    folder.mkdir(parents=True)
    content: list[dict] = [{"type": "text", "text": user}]
    if image:
        png = folder / "img_1.png"
        Image.new("RGB", image).save(png)
        content.append({"type": "image_url", "image_url": {"url": str(png)}})
    req: dict = {"model": "relay", "messages": [
        {"role": "system", "content": "You work a phone."}, {"role": "user", "content": content}]}
    if schema:
        req["response_format"] = SCHEMA
    (folder / "request.json").write_text(json.dumps(req))


def run(*args: str) -> list[dict]:
    out = subprocess.run([sys.executable, str(SCRIPT), *args, "--json"], check=True,
                         capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def test_a_screenshot_costs_openai_high_detail_tiles(tmp_path: Path) -> None:
    relay_request(tmp_path, 1, "Task: Like post 9 in Feed", image=(461, 1024))
    relay_request(tmp_path, 2, "Task: Like post 9 in Feed", image=(1080, 2400))
    small, full = run(str(tmp_path))
    assert (small["images"], small["image_tokens"]) == (1, 85 + 170 * 2)  # 1×2 tiles
    assert full["image_tokens"] == 85 + 170 * 8  # 2048 fit, 768 short side: 768×1707, 2×4


def test_the_schema_is_its_own_column_and_in_the_total(tmp_path: Path) -> None:
    relay_request(tmp_path, 1, "Task: Reply hi to Bob", schema=True)
    relay_request(tmp_path, 2, "Task: Reply hi to Bob", schema=False)
    with_schema, without = run(str(tmp_path))
    assert with_schema["schema"] > 0 and without["schema"] == 0
    assert with_schema["text"] == without["text"]
    assert with_schema["total"] == with_schema["text"] + with_schema["schema"]


def test_requests_are_named_by_task_from_their_goal_the_one_before_or_a_label(
        tmp_path: Path) -> None:
    omg, peer = tmp_path / "omg", tmp_path / "peer"
    relay_request(omg, 1, "Task: Like post 9 in Feed\n\nPlan: …")
    relay_request(peer, 1, "**Current Request:**\nLike post 9 in Feed\n\nmore", schema=False)
    relay_request(peer, 2, "Which package opens 'Feed'?", schema=False)  # mobilerun's app pick
    card = tmp_path / "scorecard.json"
    card.write_text(json.dumps({"runs": [{"goal": "Like post 9 in Feed",
                                          "task_id": "feed.like_post"}]}))
    rows = run(str(omg), str(peer), "--scorecard", str(card))
    assert [r["task"] for r in rows] == ["feed.like_post"] * 3
    assert [r["task"] for r in run(f"{peer}:2-2")] == ["?"]
    assert [r["task"] for r in run(f"{peer}:2-2=feed.like_post")] == ["feed.like_post"]
