"""The MCP server's tools as a client sees them (issue 37 item 5): hints, described and
bounded fields, every rejected call a one-line tool error in MCP words, observe while a run
works, and run listings that offer only what can be read. No phone: the server is built on
a hub whose serial nothing answers, and these calls are refused before a phone is needed."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
from mcp import Client
from PIL import Image

from omg_agent.config import Settings
from omg_agent.errors import AnchorNotFound
from omg_agent.guards.confirmation import ConfirmationRequest
from omg_agent.mcp import words
from omg_agent.mcp.look import MAX_SIDE, encode, look
from omg_agent.mcp.resources import listing
from omg_agent.mcp.server import Hub, build_server
from omg_agent.phone import ActionHeld

SERIAL = "emulator-5554"


def hub(tmp_path: Path) -> Hub:
    return Hub(Settings(runs_dir=tmp_path / "runs"), device=SERIAL)


def tools(tmp_path: Path) -> dict[str, Any]:
    async def listed() -> dict[str, Any]:
        return {t.name: t for t in await build_server(hub(tmp_path)).list_tools()}
    return anyio.run(listed)


def call(tmp_path: Path, name: str, args: dict[str, Any]) -> Any:
    async def called() -> Any:
        async with Client(build_server(hub(tmp_path))) as client:
            return await client.call_tool(name, args)
    return anyio.run(called)


def test_every_tool_says_whether_it_changes_the_phone(tmp_path: Path) -> None:
    found = tools(tmp_path)
    for name in ("list_devices", "observe", "list_apps"):
        assert found[name].annotations.read_only_hint is True, name
    for name in ("tap", "type_text", "swipe", "key", "launch", "stop_app", "open_url",
                 "scroll_until_visible", "run_task", "run_flow"):
        hints = found[name].annotations
        assert hints.read_only_hint is False and hints.destructive_hint is True, name
    assert found["open_url"].annotations.open_world_hint is True


def test_every_argument_is_described_points_are_bounded_and_keys_listed(tmp_path: Path) -> None:
    found = tools(tmp_path)
    for tool in found.values():
        for name, field in tool.input_schema.get("properties", {}).items():
            assert field.get("description"), f"{tool.name}.{name} has no description"
    x = found["tap"].input_schema["properties"]["x"]["anyOf"][0]
    assert (x["minimum"], x["maximum"]) == (0, 1000)
    assert {"back", "home", "enter"} <= set(found["key"].input_schema["properties"]["name"][
        "enum"])
    shot = found["observe"].input_schema["properties"]["screenshot"]
    assert shot["enum"] == ["none", "jpeg", "png"] and shot["default"] == "jpeg"
    assert f"{MAX_SIDE} px" in shot["description"]  # the cap is said where it is chosen
    assert {"element", "text", "x", "y"} <= set(found["tap"].input_schema["properties"])
    assert {"clear", "submit"} <= set(found["type_text"].input_schema["properties"])


def test_rejected_calls_are_tool_errors_with_their_message(tmp_path: Path) -> None:
    half_point = call(tmp_path, "tap", {"x": 500})
    assert half_point.is_error and half_point.content[0].text == (
        "tap: a point needs both x and y (0–1000): y is missing")
    off = call(tmp_path, "tap", {"x": 5000, "y": 3})
    assert off.is_error and off.content[0].text.startswith("tap: x: ")
    assert "1000" in off.content[0].text and "\n" not in off.content[0].text
    unknown = call(tmp_path, "key", {"name": "foo"})  # was "Error executing tool key"
    assert unknown.is_error and "'back'" in unknown.content[0].text
    assert "Error executing" not in unknown.content[0].text
    empty = call(tmp_path, "type_text", {"text": ""})
    assert empty.is_error and "clear=true" in empty.content[0].text
    two = call(tmp_path, "tap", {"text": "OK", "element": 3})
    assert two.is_error and "exactly one of" in two.content[0].text


def test_mcp_messages_name_what_mcp_offers() -> None:
    pay = ConfirmationRequest("payment", 'tap "Pay ¥1,179.00"', "it pays")
    held = words.error(ActionHeld(pay))
    assert "confirm=" not in held and "allow=" not in held and "only the user" in held
    missing = words.error(AnchorNotFound("anchor text='Nope'", "tree (8 elements); "
                                         "next: pick a cell of the labelled grid"))
    assert "grid" not in missing and "tap an element by its number" in missing


def test_observe_while_a_run_drives_the_phone_returns_the_runs_latest_screen(
        tmp_path: Path) -> None:
    h = hub(tmp_path)
    shot = Image.new("RGB", (1080, 2400), "white")
    latest = SimpleNamespace(package="com.omg.shop", activity=".Main", size=(1080, 2400),
                             timestamp=0.0, screenshot=shot)
    h.phones[SERIAL] = SimpleNamespace(serial=SERIAL, driver=SimpleNamespace(
        last_observation=latest), elements=lambda obs: '[1] button "Pay"')  # type: ignore[assignment]
    lock = h.busy.setdefault(SERIAL, threading.Lock())
    with lock:  # a run_task holds the phone
        out = look(h, None, "none")
    text = out.content[0].text
    assert "a run is driving this phone" in text and '"Pay"' in text
    assert out.structured_content["from_run"] is True and len(out.content) == 1
    assert SERIAL not in h.seen  # its numbers are the run's, not for tap element=N


def test_screenshots_are_capped_and_jpeg_is_the_small_one() -> None:
    import base64
    import io

    shot = Image.effect_noise((1080, 2400), 40).convert("RGB")
    jpeg, mime = encode(shot, "jpeg")
    png, _ = encode(shot, "png")
    assert mime == "image/jpeg" and len(jpeg) < len(png)
    assert max(Image.open(io.BytesIO(base64.b64decode(jpeg))).size) == MAX_SIDE


def test_the_runs_listing_offers_only_what_can_be_read(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    flow, run = root / "20261129-1200-flow-note", root / "20261129-1300-buy"
    for folder in (flow, run):
        folder.mkdir(parents=True)
        (folder / "trace.jsonl").write_text("")
    (run / "report.html").write_text("<html></html>")
    (run / "result.json").write_text(json.dumps({"status": "done", "task": "buy"}))
    rows = {r["run"]: r for r in listing(root)}
    assert "report" not in rows[flow.name]  # no report written: none offered
    assert rows[run.name]["report"] == f"omg://runs/{run.name}/report"
    assert rows[flow.name]["summary"] == f"omg://runs/{flow.name}/summary"
    h = hub(tmp_path)
    assert h.run_dir(flow.name, holds="trace.jsonl") == flow.resolve()  # a flow's is read
