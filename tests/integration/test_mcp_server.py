"""``omg-agent mcp`` driven by the MCP SDK's own client over stdio, against a vphone on the
real adb server; the model is the expert double over real HTTP (issue 28).

The server is a real subprocess (``python -m omg_agent.cli mcp``); what the tools did is
read from the vphone's own state, never from what the server says.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp.types as mt
import pytest
from mcp import Client, StdioServerParameters

from omg_agent.sim.expert.policy import ExpertPolicy
from omg_agent.sim.expert.tasks import Switch
from omg_agent.sim.model_double import ModelDouble

ROOT = Path(__file__).parents[2]
SHOP = "com.omg.shop"
BLANK = {"OMG_API_KEY": "", "OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", "OMG_CONFIG": "",
         "OMG_PLANNER_MODEL": "", "OMG_OPERATOR_MODEL": "", "OMG_MODEL": "",
         "OMG_BASE_URL": ""}


def server(serial: str, tmp: Path, base_url: str = "http://127.0.0.1:9/v1"
           ) -> StdioServerParameters:
    env = {**os.environ, **BLANK, "OMG_MODEL": "double", "OMG_BASE_URL": base_url,
           "XDG_RUNTIME_DIR": str(tmp), "PYTHONPATH": str(ROOT)}
    return StdioServerParameters(command=sys.executable, cwd=str(tmp), env=env, args=[
        "-m", "omg_agent.cli", "mcp", "--device", serial, "--runs-dir", str(tmp / "runs")])


def test_a_client_lists_tools_observes_taps_by_text_runs_a_task_and_a_flow(
        vphone, tmp_path: Path) -> None:
    task = Switch(attr="wifi", on=False)
    task.setup(vphone.phone)
    progress: list[tuple[float, float | None, str | None]] = []

    async def noted(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    async def session(base_url: str) -> dict[str, Any]:
        async with Client(server(vphone.serial, tmp_path, base_url)) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            look = await client.call_tool("observe", {})
            tapped = await client.call_tool("tap", {"text": "Settings"})
            foreground = vphone.phone.focus()[0]
            run = await client.call_tool("run_task", {"task": task.goal},
                                         progress_callback=noted)
            runs = await client.read_resource("omg://runs")
            flow = await client.call_tool("run_flow", {"path": "maestro_new_note.yaml"})
            return {"tools": tools, "look": look, "tapped": tapped, "fg": foreground,
                    "run": run, "runs": runs, "flow": flow}

    # run_flow reads flows inside the folder the server started in (tmp_path)
    shutil.copy(ROOT / "omg_agent" / "assets" / "flows" / "maestro_new_note.yaml", tmp_path)
    with ModelDouble(ExpertPolicy(task, vphone.phone)) as double:
        got = anyio.run(session, double.base_url)
    assert {"list_devices", "observe", "tap", "long_press", "type_text", "swipe", "key",
            "launch", "run_task", "answer", "approve", "decline", "run_flow", "list_apps",
            "stop_app", "open_url", "scroll_until_visible"} <= got["tools"]
    kinds = [c.type for c in got["look"].content]
    assert kinds == ["text", "image"] and got["look"].content[1].mime_type == "image/jpeg"
    assert '"Settings"' in got["look"].content[0].text
    assert got["tapped"].structured_content["status"] == "ok"
    assert got["fg"] == "com.android.settings"  # the tap opened Settings on the phone
    out = got["run"].structured_content
    assert out["status"] == "done", out
    assert task.check(vphone.phone)  # Wi-Fi is off: read from the phone
    assert Path(out["report"]).is_file() and out["screen"]["package"]
    assert progress and all(total for _, total, _ in progress)
    assert Path(out["run_dir"]).name in got["runs"].contents[0].text
    assert got["flow"].structured_content["status"] == "done", got["flow"]
    assert [n["title"] for n in vphone.phone.apps["com.omg.notes"].notes] == ["Groceries"]


def at_checkout(vphone) -> Any:
    shop = vphone.phone.apps[SHOP]
    shop.promo_mode = "never"
    shop.cart = {next(iter(shop.prices)): 1}
    return shop


async def to_pay(client: Client) -> None:
    for call in (("launch", {"app": SHOP}), ("tap", {"resource_id": "cart"}),
                 ("tap", {"text": "Checkout"})):
        result = await client.call_tool(*call)
        assert result.structured_content["status"] == "ok", result


@pytest.mark.parametrize("mode", ["auto", "legacy"])  # 2026-07-28, and handshake-era
def test_a_pay_tap_from_a_client_is_held_until_the_user_says_yes(vphone, tmp_path,
                                                                mode: str) -> None:
    shop = at_checkout(vphone)
    asked: list[str] = []
    replies = iter(["sure why not", "yes"])  # unclear first: asked again, nothing paid

    async def human(context: Any, params: mt.ElicitRequestParams) -> mt.ElicitResult:
        asked.append(params.message)
        assert shop.orders == []  # nothing is paid while the user is being asked
        return mt.ElicitResult(action="accept", content={"answer": next(replies)})

    async def session() -> tuple[Any, list[Any], Any]:
        async with Client(server(vphone.serial, tmp_path)) as bare:
            await to_pay(bare)
            refused = await bare.call_tool("tap", {"resource_id": "pay"})
        orders_after_refusal = list(shop.orders)
        async with Client(server(vphone.serial, tmp_path), elicitation_callback=human,
                          mode=mode) as c:
            paid = await c.call_tool("tap", {"resource_id": "pay"})
        return refused, orders_after_refusal, paid

    refused, orders_then, paid = anyio.run(session)
    held = refused.structured_content
    assert held["status"] == "needs_confirmation" and "approve" in held["how_to_approve"]
    assert orders_then == []  # a client without elicitation cannot pay
    assert len(asked) == 2 and "Pay" in asked[0]
    assert paid.structured_content["status"] == "ok", paid
    assert len(shop.orders) == 1  # exactly one order, after the user's yes


def test_a_user_who_says_no_through_the_client_pays_nothing(vphone, tmp_path) -> None:
    shop = at_checkout(vphone)

    async def human(context: Any, params: mt.ElicitRequestParams) -> mt.ElicitResult:
        return mt.ElicitResult(action="decline")

    async def session() -> Any:
        async with Client(server(vphone.serial, tmp_path), elicitation_callback=human) as c:
            await to_pay(c)
            return await c.call_tool("tap", {"resource_id": "pay"})

    result = anyio.run(session)
    assert result.structured_content["status"] == "declined"
    assert shop.orders == []


def test_a_run_held_at_pay_goes_on_with_the_users_yes_and_pays_once(vphone, tmp_path) -> None:
    from tests.integration.test_declined_vphone import TASK, Payer

    shop = at_checkout(vphone)
    payer = Payer(vphone.phone)
    asked: list[str] = []

    async def human(context: Any, params: mt.ElicitRequestParams) -> mt.ElicitResult:
        asked.append(params.message)
        assert shop.orders == []  # the run waits at Pay while the user is asked
        return mt.ElicitResult(action="accept", content={"answer": "yes"})

    async def session(base_url: str) -> tuple[Any, Any]:
        async with Client(server(vphone.serial, tmp_path, base_url)) as bare:
            held = await bare.call_tool("run_task", {"task": TASK})
            said_yes = await bare.call_tool("answer", {"run_dir": held.structured_content[
                "run_dir"], "text": "yes"})
        assert shop.orders == [] and said_yes.is_error  # the client cannot say yes for the user
        async with Client(server(vphone.serial, tmp_path, base_url),
                          elicitation_callback=human) as client:
            approved = await client.call_tool("approve", {
                "run_dir": held.structured_content["run_dir"]})
        return held, approved

    with ModelDouble(payer) as double:
        held, approved = anyio.run(session, double.base_url)
    out = held.structured_content
    assert out["status"] == "needs_confirmation" and "approve" in out["how_to_approve"]
    assert "--answer" not in out["how_to_approve"]  # no recipe a client could run itself
    assert len(asked) == 1 and "Pay" in asked[0]
    assert approved.structured_content["status"] == "done", approved
    assert len(shop.orders) == 1


def test_a_client_declining_a_held_run_ends_it_declined_with_no_order(vphone, tmp_path) -> None:
    from tests.integration.test_declined_vphone import TASK, Payer

    shop = at_checkout(vphone)

    async def session(base_url: str) -> tuple[Any, Any, Any]:
        async with Client(server(vphone.serial, tmp_path, base_url)) as client:
            held = await client.call_tool("run_task", {"task": TASK})
            elsewhere = await client.call_tool("decline", {"run_dir": str(tmp_path)})
            declined = await client.call_tool("decline", {
                "run_dir": held.structured_content["run_dir"]})
        return held, elsewhere, declined

    with ModelDouble(Payer(vphone.phone)) as double:
        held, elsewhere, declined = anyio.run(session, double.base_url)
    assert held.structured_content["status"] == "needs_confirmation"
    assert elsewhere.is_error and "not a run of" in elsewhere.content[0].text
    assert declined.structured_content["status"] == "declined", declined
    assert shop.orders == []
