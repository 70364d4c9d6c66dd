"""An assistant's session over MCP, as a client drives it (issue 37, Done means): (a) Wi-Fi
off, (b) the cheapest item into the Shop cart, (c) a purchase the user declines — every
look an ``observe(screenshot="none")``, the characters of each observe counted.

The in-process server (``build_server``) under the ``mcp`` SDK's own client, on a vphone
behind the real adb server; the client reads only what the tools return (the element
list) and decides from it, as an assistant would. What happened is read from the phone:
Wi-Fi's switch, the Shop cart, the Shop orders.

Run with ``-s`` to see the characters per observe (docs/guide/mcp.md has the table).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import anyio
import mcp.types as mt

from omg_agent.sim.expert.tasks import Switch
from tests.integration.test_consent_exact import mcp_client, mcp_hub

SHOP = "com.omg.shop"
ROW = re.compile(r'item "¥([\d,]+\.\d\d)" desc="([^"]+)" res=product_item')
MAX_TEXT_OBSERVE = 4000  # characters: an element list, no picture, no hash


class Session:
    """The client's side: each call's result, and the size of every observe."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.sizes: dict[str, list[int]] = {"none": [], "jpeg": [], "png": []}

    async def look(self, screenshot: str = "none") -> str:
        result = await self.client.call_tool("observe", {"screenshot": screenshot})
        assert not result.is_error, result
        size = len(result.model_dump_json(by_alias=True, exclude_none=True))
        self.sizes[screenshot].append(size)
        print(f"observe(screenshot={screenshot!r}): {size} characters")
        return str(result.content[0].text)

    async def do(self, tool: str, **args: Any) -> dict[str, Any]:
        result = await self.client.call_tool(tool, args)
        assert not result.is_error, (tool, args, result)
        return dict(result.structured_content or {})


async def wifi_off(s: Session) -> None:
    await s.do("launch", app="Settings")
    screen = await s.look()
    switch = next(line for line in screen.splitlines() if "res=wifi_switch" in line)
    if "checked" in switch:
        await s.do("tap", resource_id="wifi_switch")
    after = await s.look()
    assert "checked" not in next(ln for ln in after.splitlines() if "res=wifi_switch" in ln)


async def cheapest_to_cart(s: Session) -> str:
    await s.do("launch", app="Shop")
    if "No thanks" in await s.look():  # the promotion popup
        await s.do("tap", text="No thanks")
    await s.do("tap", resource_id="all_products")
    prices: dict[str, float] = {}
    for _ in range(10):  # read the whole list: swipe until nothing moves
        prices.update({name: float(p.replace(",", "")) for p, name in ROW.findall(
            await s.look())})
        moved = await s.do("swipe", direction="up", distance=700)
        if moved.get("effect") == "screen unchanged":
            break
    cheapest = min(prices, key=prices.__getitem__)
    await s.do("scroll_until_visible", desc=cheapest, direction="down")
    await s.do("tap", desc=cheapest)
    assert cheapest in await s.look()
    await s.do("tap", resource_id="add_to_cart")
    return cheapest


async def declined_purchase(s: Session) -> dict[str, Any]:
    await s.do("tap", resource_id="view_cart")
    await s.look()
    await s.do("tap", resource_id="checkout")
    assert "Pay" in await s.look()
    return await s.do("tap", resource_id="pay")  # the user is asked: they say no


def test_an_assistant_turns_wifi_off_carts_the_cheapest_item_and_the_user_declines_paying(
        vphone, tmp_path: Path) -> None:
    Switch(attr="wifi", on=False).setup(vphone.phone)  # Wi-Fi on: the session turns it off
    shop = vphone.phone.apps[SHOP]
    shop.search_delay = 0.0  # the list shows at once (no spinner to wait out)
    asked: list[str] = []

    async def user(context: Any, params: mt.ElicitRequestParams) -> mt.ElicitResult:
        asked.append(params.message)
        return mt.ElicitResult(action="accept", content={"answer": "no"})

    async def session() -> tuple[Session, str, dict[str, Any]]:
        async with mcp_client(mcp_hub(vphone, tmp_path), elicitation_callback=user) as c:
            s = Session(c)
            await wifi_off(s)
            cheapest = await cheapest_to_cart(s)
            paid = await declined_purchase(s)
            await s.look("jpeg")  # for the table: the default, and the lossless one
            await s.look("png")
            return s, cheapest, paid

    s, cheapest, paid = anyio.run(session)
    # (a) Wi-Fi is off on the phone
    assert Switch(attr="wifi", on=False).check(vphone.phone)
    # (b) the cheapest product is the one in the cart
    pid = min(shop.prices, key=shop.prices.__getitem__)
    assert cheapest in {p.name for p in _catalog() if p.pid == pid}, cheapest
    assert shop.cart == {pid: 1}
    # (c) asked once, said no: declined, and no order on the phone
    assert paid["status"] == "declined" and len(asked) == 1 and "Pay" in asked[0]
    assert shop.orders == []
    none = s.sizes["none"]
    print(f"\ncharacters per observe: none {sum(none) // len(none)} on average "
          f"(max {max(none)}, {len(none)} observes); jpeg {s.sizes['jpeg'][0]}; "
          f"png {s.sizes['png'][0]}")
    assert max(none) < MAX_TEXT_OBSERVE
    assert s.sizes["jpeg"][0] < s.sizes["png"][0]


def _catalog() -> list[Any]:
    from omg_agent.vphone.apps.shop_catalog import search

    return search("")
