"""A yes approves exactly what the question showed; a no stands (issues 34 and 35, item 2).

Runs go in-process through the Python API (:class:`omg_agent.phone.Phone`) on a vphone
behind the real adb server, with a model double over real HTTP that taps Pay whenever it
shows (:class:`~tests.integration.test_declined_vphone.Payer`). While the question is open
the Shop cart is refilled (twice the items, twice the total): the yes was given to the old
amount. Every outcome is read from the vphone's Shop orders.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from omg_agent.config import Settings
from omg_agent.guards.confirmation import TerminalChannel
from omg_agent.phone import Phone
from omg_agent.sim.model_double import ModelDouble
from omg_agent.vphone.apps.shop_catalog import format_price
from tests.integration import vphone_scenes as scenes
from tests.integration.test_declined_vphone import TASK, Payer

SHOP = "com.omg.shop"


def at_checkout(phone: Any) -> Any:
    """Shop open at Checkout with one item in the cart (no promo popup)."""
    return scenes.at_checkout(phone, next(iter(phone.apps[SHOP].prices)))


def refill(phone: Any) -> str:
    """The cart doubles while the question is open; the new total as the screen shows it."""
    shop = phone.apps[SHOP]
    with phone.lock:
        shop.cart = {k: n * 2 for k, n in shop.cart.items()}
        phone.changed()
    return format_price(shop.cart_total())


def settings(base_url: str, tmp: Path) -> Settings:
    return Settings(base_url=base_url, model="double", max_steps=12, retry_backoff_s=0.001,
                    retry_backoff_max_s=0.01, timeout_s=20, runs_dir=tmp / "runs",
                    planning="adaptive")


def test_terminal_yes_while_the_cart_changed_asks_again_with_the_new_amount(vphone, tmp_path):
    shop = at_checkout(vphone.phone)
    shown: list[str] = []
    replies = iter(["yes", None])  # a yes to the first question; then nobody answers
    new_total: list[str] = []

    def read(prompt: str) -> str | None:
        if not new_total:
            new_total.append(refill(vphone.phone))
        return next(replies)

    with ModelDouble(Payer(vphone.phone)) as double, \
            Phone(vphone.serial, settings=settings(double.base_url, tmp_path),
                  driver="adb") as phone:
        result = phone.run(TASK, confirm=TerminalChannel(read, shown.append),
                           use_cache=False)
    assert shop.orders == []  # neither the old nor the new amount was paid
    asked = [t for t in shown if "wants to" in t]
    assert len(asked) == 2 and new_total[0] in asked[1] and new_total[0] not in asked[0]
    assert result.status == "needs_confirmation", result


def test_resume_yes_after_the_cart_changed_pays_nothing_and_asks_the_new_amount(vphone,
                                                                                tmp_path):
    shop = at_checkout(vphone.phone)
    with ModelDouble(Payer(vphone.phone)) as double, \
            Phone(vphone.serial, settings=settings(double.base_url, tmp_path),
                  driver="adb") as phone:
        held = phone.run(TASK, use_cache=False)
        assert held.status == "needs_confirmation" and shop.orders == []
        total = refill(vphone.phone)
        again = phone.resume(held.run_dir, "yes")
    assert shop.orders == []
    assert again.status == "needs_confirmation" and total in (again.question or ""), again


def test_mirror_yes_while_the_cart_changed_asks_again_over_its_http_api(vphone, tmp_path):
    from omg_agent.hitl.server import Mirror
    from tests.unit.mirror_doubles import Client

    shop = at_checkout(vphone.phone)
    texts: list[str] = []
    with ModelDouble(Payer(vphone.phone)) as double, \
            Phone(vphone.serial, settings=settings(double.base_url, tmp_path),
                  driver="adb") as phone, Mirror(phone.driver, video=False) as mirror:
        tab = Client(mirror)
        assert tab.sign_in().status == 200

        def human() -> None:
            for answer in (True, False):
                page = mirror.channel
                version = page.changes.version
                while not page.pending():
                    version = page.changes.wait(version, 10)
                [request] = page.pending()
                texts.append(request["text"])
                if answer:
                    refill(vphone.phone)
                reply = tab.post("/api/answer", {"id": request["id"], "answer": answer})
                assert reply.status == 200, reply.data

        thread = threading.Thread(target=human, daemon=True)
        thread.start()
        result = phone.run(TASK, confirm=mirror.channel, use_cache=False)
        thread.join(10)
    assert shop.orders == []
    assert len(texts) == 2 and "changed" in texts[1] and texts[0] != texts[1]
    assert result.status == "declined", result


# -- MCP: the in-process server, the SDK's own client over its in-memory transport ------------
def mcp_hub(vphone: Any, tmp: Path, base_url: str = "http://127.0.0.1:9/v1",
            approve_on: str = "elicitation", runs: Path | None = None) -> Any:
    from omg_agent.mcp.server import Hub

    config = settings(base_url, tmp).model_copy(update={"runs_dir": runs or tmp / "runs"})
    return Hub(config, vphone.serial, approve_on=approve_on)  # type: ignore[arg-type]


def mcp_client(hub: Any, **kw: Any) -> Any:
    from mcp import Client

    from omg_agent.mcp.server import build_server

    return Client(build_server(hub), **kw)


def back_at_checkout(phone: Any) -> None:
    """The cart refilled and the Checkout open again (what a client would arrange)."""
    at_checkout(phone)


def texts(result: Any) -> str:
    import json

    parts = [c.text for c in getattr(result, "content", []) if getattr(c, "text", None)]
    return "\n".join(parts) + json.dumps(getattr(result, "structured_content", None) or {})


def test_mcp_a_replayed_request_state_is_refused_and_pays_nothing_more(vphone, tmp_path):
    import anyio
    import mcp.types as mt

    shop = at_checkout(vphone.phone)
    hub = mcp_hub(vphone, tmp_path)
    yes = {"confirm": mt.ElicitResult(action="accept", content={"answer": "yes"})}

    async def session() -> tuple[Any, Any, Any]:
        async with mcp_client(hub, elicitation_callback=_never) as client:
            asked = await client.session.call_tool("tap", {"resource_id": "pay"},
                                                   allow_input_required=True)
            assert isinstance(asked, mt.InputRequiredResult), asked
            paid = await client.call_tool("tap", {"resource_id": "pay"}, input_responses=yes,
                                          request_state=asked.request_state)
            back_at_checkout(vphone.phone)
            replayed = await client.call_tool("tap", {"resource_id": "pay"},
                                              input_responses=yes,
                                              request_state=asked.request_state)
            return asked, paid, replayed

    try:
        asked, paid, replayed = anyio.run(session)
    finally:
        hub.close()
    schema = asked.input_requests["confirm"].params.requested_schema
    assert schema["properties"]["answer"]["enum"] == ["yes", "no"]  # a yes/no question
    assert vphone.serial in asked.input_requests["confirm"].params.message  # names the phone
    assert paid.structured_content["status"] == "ok" and len(shop.orders) == 1
    assert replayed.is_error and "used" in texts(replayed)
    assert len(shop.orders) == 1  # the replayed yes paid nothing


async def _never(context: Any, params: Any) -> Any:
    raise AssertionError(f"the client was asked: {params.message}")


def test_mcp_a_no_stands_after_a_failed_resume_and_is_not_asked_again(vphone, tmp_path):
    import anyio
    import mcp.types as mt

    from omg_agent.errors import ConfigError

    shop = at_checkout(vphone.phone)
    asked: list[str] = []
    with ModelDouble(Payer(vphone.phone)) as double:
        hub = mcp_hub(vphone, tmp_path, double.base_url)

        async def human(context: Any, params: mt.ElicitRequestParams) -> mt.ElicitResult:
            asked.append(params.message)
            hub.busy[vphone.serial].acquire()  # the resume after this no will fail: busy
            return mt.ElicitResult(action="decline")

        async def session() -> tuple[Any, Any, Any]:
            async with mcp_client(hub, elicitation_callback=human) as client:
                failed = await client.call_tool("run_task", {"task": TASK})
                hub.busy[vphone.serial].release()
                [run_dir] = [p for p in hub.settings.runs_dir.iterdir()
                             if (p / "state.json").is_file()]
                again = await client.call_tool("approve", {"run_dir": run_dir.name})
                return failed, run_dir, again

        try:
            failed, run_dir, again = anyio.run(session)
        finally:
            hub.close()
        assert failed.is_error and "busy" in texts(failed)  # the resume after the no failed
        try:
            with Phone(vphone.serial, settings=settings(double.base_url, tmp_path),
                       driver="adb") as phone:
                phone.resume(run_dir, "yes")  # what a shell's --resume --answer yes does
            resumed = "resumed"
        except ConfigError as exc:
            resumed = str(exc)
    assert len(asked) == 1  # the retry (approve) of the refused action was not asked again
    assert again.structured_content is not None, texts(again)
    assert again.structured_content["status"] == "declined", again
    assert "said no" in resumed or "ended" in resumed, resumed
    assert shop.orders == []


def test_mcp_approve_on_mirror_a_clients_own_answer_pays_nothing(vphone, tmp_path):
    import json

    import anyio
    import mcp.types as mt
    from mcp.shared.exceptions import MCPError

    from tests.unit.mirror_doubles import Client as Tab

    shop = at_checkout(vphone.phone)
    hub = mcp_hub(vphone, tmp_path, approve_on="mirror")
    hub.open_mirror()
    tab = Tab(hub.mirror)
    assert tab.sign_in().status == 200
    page: list[str] = []

    def human() -> None:  # the user on the mirror page says no
        channel = hub.mirror.channel
        version = channel.changes.version
        while not channel.pending():
            version = channel.changes.wait(version, 10)
        [request] = channel.pending()
        page.append(request["text"])
        assert tab.post("/api/answer", {"id": request["id"], "answer": False}).status == 200

    async def yes_man(context: Any, params: Any) -> mt.ElicitResult:  # the client itself
        return mt.ElicitResult(action="accept", content={"answer": "yes"})

    async def session() -> tuple[Any, Any]:
        async with mcp_client(hub, elicitation_callback=yes_man) as client:
            thread = threading.Thread(target=human, daemon=True)
            thread.start()
            refused = await client.call_tool("tap", {"resource_id": "pay"})
            thread.join(10)
            forged = json.dumps({"describe": "x", "question": "x", "fingerprint": "x",
                                 "ticket": "forged"})
            try:  # an answer the client makes up itself, with a state of its own
                selfmade: Any = await client.call_tool(
                    "tap", {"resource_id": "pay"}, request_state=forged, input_responses={
                        "confirm": mt.ElicitResult(action="accept",
                                                   content={"answer": "yes"})})
            except MCPError as exc:
                selfmade = exc
            return refused, selfmade

    try:
        refused, selfmade = anyio.run(session)
    finally:
        hub.close()
    assert page and vphone.serial in page[0]  # asked on the page, naming the phone
    assert refused.structured_content["status"] == "declined", refused
    assert isinstance(selfmade, MCPError) or selfmade.is_error, selfmade
    assert shop.orders == []


def test_mcp_run_dir_names_work_in_every_tool_and_no_result_holds_a_recipe(
        vphone, tmp_path, monkeypatch):
    import anyio

    monkeypatch.chdir(tmp_path)  # a relative runs dir, as `--runs-dir runs` gives
    shop = at_checkout(vphone.phone)
    flow = tmp_path / "pay.yaml"
    flow.write_text(f"appId: {SHOP}\n---\n- tapOn:\n    id: pay\n", encoding="utf-8")
    with ModelDouble(Payer(vphone.phone)) as double:
        hub = mcp_hub(vphone, tmp_path, double.base_url, runs=Path("runs"))

        async def session() -> list[Any]:
            async with mcp_client(hub) as client:  # no elicitation: nothing can be asked
                out = [await client.call_tool("tap", {"resource_id": "pay"})]
                out.append(await client.call_tool("run_task", {"task": TASK}))
                name = out[-1].structured_content["run_dir"]
                assert "/" not in name
                out.append(await client.call_tool("answer", {"run_dir": name,
                                                             "text": "yes"}))
                out.append(await client.call_tool("approve",
                                                  {"run_dir": f"runs/{name}"}))
                out.append(await client.read_resource(f"omg://runs/{name}/report"))
                out.append(await client.call_tool("decline", {"run_dir": name}))
                out.append(await client.call_tool("decline", {"run_dir": name}))
                back_at_checkout(vphone.phone)
                out.append(await client.call_tool("run_flow", {"path": flow.name}))
                return out

        try:
            results = anyio.run(session)
        finally:
            hub.close()
    tap, held, said_yes, approve, report, declined, again, flowed = results
    assert held.structured_content["status"] == "needs_confirmation"
    assert said_yes.is_error  # the client cannot say yes for the user
    assert approve.structured_content["status"] == "needs_confirmation", approve
    assert report.contents and "html" in report.contents[0].text.lower()
    assert declined.structured_content["status"] == "declined", declined
    assert flowed.structured_content["status"] != "done", flowed
    assert shop.orders == []
    for result in (tap, held, said_yes, approve, declined, again, flowed):
        shown = texts(result)
        assert "--answer" not in shown and "--allow" not in shown, shown
