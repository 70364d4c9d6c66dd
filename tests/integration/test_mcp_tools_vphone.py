"""The MCP tools on a vphone (issue 37 item 5): observe's screenshot choice, taps by element
number checked against the last observe, typing that needs a field, swipes that say when
nothing moved, scroll_until_visible, list_apps / stop_app, open_url judged by the gate, and
the runs listing after a flow. The in-process server under the SDK's own client; outcomes
read from the vphone."""

from __future__ import annotations

import base64
import io
import threading
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import mcp.types as mt
from PIL import Image

from omg_agent.mcp.look import MAX_SIDE
from omg_agent.sim.expert.policy import ExpertPolicy
from omg_agent.sim.expert.tasks import Switch
from omg_agent.sim.model_double import ModelDouble
from tests.integration.test_consent_exact import mcp_client, mcp_hub

SHOP = "com.omg.shop"
ROOT = Path(__file__).parents[2]


def number(screen: str, marker: str) -> int:
    """The element number of the first line of ``screen`` holding ``marker``."""
    line = next(ln for ln in screen.splitlines() if marker in ln)
    return int(line[1:line.index("]")])


def in_shop(vphone: Any) -> Any:
    shop = vphone.phone.apps[SHOP]
    shop.promo_mode = "never"
    shop.search_delay = 0.0
    return shop


def test_observe_taps_by_number_types_into_a_field_and_swipes_that_say_what_moved(
        vphone, tmp_path: Path) -> None:
    shop = in_shop(vphone)

    async def session() -> dict[str, Any]:
        async with mcp_client(mcp_hub(vphone, tmp_path)) as c:
            got: dict[str, Any] = {"launched": await c.call_tool("launch", {"app": "Shop"})}
            got["none"] = await c.call_tool("observe", {"screenshot": "none"})
            got["jpeg"] = await c.call_tool("observe", {})
            got["no_field"] = await c.call_tool("type_text", {"text": "watch"})
            field = number(got["none"].content[0].text, "res=search_input")
            got["typed"] = await c.call_tool("type_text", {
                "text": "watch", "element": field, "submit": True})
            got["stale"] = await c.call_tool("tap", {"element": field})  # the screen moved on
            got["end"] = await c.call_tool("swipe", {"direction": "down", "x": 500, "y": 500})
            got["absent"] = await c.call_tool("scroll_until_visible", {
                "text": "No such product", "max_swipes": 5})
            got["apps"] = await c.call_tool("list_apps", {"contains": "omg"})
            got["stopped"] = await c.call_tool("stop_app", {"package": SHOP})
            return got

    got = anyio.run(session)
    none, jpeg = got["none"], got["jpeg"]
    assert [c.type for c in none.content] == ["text"]
    assert "screen_hash" not in (none.structured_content or {})  # no 1,705 characters
    assert "res=search_input" in none.content[0].text
    assert jpeg.content[1].mime_type == "image/jpeg"
    picture = Image.open(io.BytesIO(base64.b64decode(jpeg.content[1].data)))
    assert max(picture.size) == MAX_SIDE
    assert got["no_field"].is_error and "no text field has focus" in got["no_field"].content[
        0].text
    assert got["typed"].structured_content["status"] == "ok", got["typed"]
    assert shop.last_query == "watch"  # typed into the field and submitted: read from the phone
    assert got["stale"].is_error and "observe again" in got["stale"].content[0].text
    end = got["end"].structured_content  # the results list is at its top already
    assert end["effect"] == "screen unchanged" and end["detail"].startswith("nothing moved")
    assert got["absent"].structured_content["status"] == "failed"
    assert "stopped moving" in got["absent"].structured_content["detail"]
    assert SHOP in got["apps"].structured_content["packages"]
    assert got["stopped"].structured_content["status"] == "ok"
    assert vphone.phone.focus()[0] != SHOP  # stopped on the phone


def test_open_url_is_put_to_the_user_like_a_tap_on_pay(vphone, tmp_path: Path) -> None:
    replies = iter(["no", "yes"])

    async def user(context: Any, params: mt.ElicitRequestParams) -> mt.ElicitResult:
        return mt.ElicitResult(action="accept", content={"answer": next(replies)})

    async def session() -> tuple[Any, str, Any, Any, str]:
        hub = mcp_hub(vphone, tmp_path)
        async with mcp_client(hub) as bare:  # no elicitation: nobody to ask
            held = await bare.call_tool("open_url", {"url": "https://example.com/"})
        shown = vphone.phone.focus()[0]
        async with mcp_client(mcp_hub(vphone, tmp_path), elicitation_callback=user) as c:
            said_no = await c.call_tool("open_url", {"url": "https://example.com/a"})
            said_yes = await c.call_tool("open_url", {"url": "https://example.com/b"})
        return held, shown, said_no, said_yes, vphone.phone.focus()[0]

    held, shown_then, said_no, said_yes, shown_now = anyio.run(session)
    assert held.structured_content["status"] == "needs_confirmation", held
    assert shown_then == "com.android.launcher3"  # nothing opened without a yes
    assert said_no.structured_content["status"] == "declined"
    assert said_yes.structured_content["status"] == "ok", said_yes
    assert shown_now != "com.android.launcher3"  # the browser opened the link


class Held(ExpertPolicy):
    """The expert, who waits before its first answer until the test has looked."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.thinking, self.go_on = threading.Event(), threading.Event()

    def reply(self, request: dict[str, Any]) -> str:
        self.thinking.set()
        assert self.go_on.wait(30), "the test never let the model answer"
        return super().reply(request)


def test_observe_while_a_run_works_shows_the_runs_latest_screen(vphone, tmp_path) -> None:
    task = Switch(attr="wifi", on=False)
    task.setup(vphone.phone)
    policy = Held(task, vphone.phone)

    async def session(base_url: str) -> tuple[Any, Any]:
        async with mcp_client(mcp_hub(vphone, tmp_path, base_url)) as c:
            ran: list[Any] = []

            async def run() -> None:
                ran.append(await c.call_tool("run_task", {"task": task.goal}))
            async with anyio.create_task_group() as group:
                group.start_soon(run)
                await anyio.to_thread.run_sync(policy.thinking.wait, 30)
                look = await c.call_tool("observe", {"screenshot": "none"})
                policy.go_on.set()
            return look, ran[0]

    with ModelDouble(policy) as double:
        look, ran = anyio.run(session, double.base_url)
    assert not look.is_error, look  # was: "busy with another call of this server"
    assert look.structured_content["from_run"] is True
    assert "a run is driving this phone" in look.content[0].text
    assert ran.structured_content["status"] == "done", ran


def test_the_runs_listing_after_a_flow_offers_only_links_that_open(vphone, tmp_path) -> None:
    async def session() -> tuple[Any, list[tuple[str, Any]]]:
        async with mcp_client(mcp_hub(vphone, tmp_path)) as c:
            flow = await c.call_tool("run_flow", {
                "path": "omg_agent/assets/flows/maestro_new_note.yaml"})
            rows = await c.read_resource("omg://runs")
            import json

            opened = []
            for row in json.loads(rows.contents[0].text):
                for link in (row.get("summary"), row.get("report")):
                    if link:
                        opened.append((link, await c.read_resource(link)))
            return flow, opened

    flow, opened = anyio.run(session)
    assert flow.structured_content["status"] == "done", flow
    assert opened and {link.rsplit("/", 1)[-1] for link, _ in opened} == {"summary", "report"}
    summary = next(r for link, r in opened if link.endswith("/summary")).contents[0].text
    assert summary.startswith("run ") and "Done" in summary
