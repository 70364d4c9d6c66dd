"""The MCP server's tools that act on the phone (issues 28 and 37): each goes through the
gate (:func:`omg_agent.mcp.gated.gated`) and answers with what the screen shows changed
(:mod:`.acting`)."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from pydantic import Field

from omg_agent.core.keys import KeyName
from omg_agent.errors import ConfigError
from omg_agent.mcp import acting
from omg_agent.mcp.server import Hub, tool
from omg_agent.mcp.shapes import (
    ACTS,
    MAX_TEXT,
    Acted,
    DescArg,
    DeviceArg,
    Direction,
    ElementArg,
    IdArg,
    TextArg,
    XArg,
    YArg,
    hints,
)

Distance = Annotated[int, Field(ge=50, le=1000, description="How far the finger travels, in "
                                "0–1000 units of the screen along that axis.")]
App = Annotated[str, Field(min_length=1, max_length=200, description=(
    "An app's name as its icon says (Settings, 设置) or its package (com.omg.shop)."))]
Package = Annotated[str, Field(min_length=1, max_length=200, pattern=r"^[\w.]+$",
                               description="The app's package (list_apps).")]
Url = Annotated[str, Field(min_length=3, max_length=2000, pattern=r"^[A-Za-z][A-Za-z0-9+.-]*:\S+$",
                           description="A URL or deep link (https://…, market://…, an app's "
                           "scheme).")]
FINGER = ("The finger's direction: up scrolls further down a list (as a thumb does), left "
          "goes to the next page.")


def target(element: int | None = None, text: str | None = None,
           resource_id: str | None = None, desc: str | None = None, x: int | None = None,
           y: int | None = None) -> dict[str, Any]:
    """An action target from exactly one of: an element number, an anchor, or a point."""
    if (x is None) != (y is None):
        raise ConfigError(f"a point needs both x and y (0–1000): {'y' if y is None else 'x'} "
                          "is missing")
    given: dict[str, Any] = {k: v for k, v in (
        ("element", element), ("text", text), ("resource_id", resource_id), ("desc", desc))
        if v is not None}
    if x is not None:
        given["x and y"] = {"kind": "point", "x": x, "y": y}
    if len(given) != 1:
        named = ", ".join(given) or "none"
        raise ConfigError("give exactly one of element, text, resource_id, desc, or x and y "
                          f"(given: {named})")
    (kind, value), = given.items()
    if kind == "element":
        return {"kind": "element", "id": value}
    return value if kind == "x and y" else {"kind": "anchor", kind: value}


def register_acts(server: MCPServer, hub: Hub) -> None:
    """Add the acting tools to ``server``."""
    from omg_agent.mcp.gated import gated

    async def go(ctx: Context, device: str | None, action: acting.Op) -> Any:
        return await gated(hub, ctx, device, action)

    @tool(server, ACTS)
    async def tap(ctx: Context, element: ElementArg = None, text: TextArg = None,
                  resource_id: IdArg = None, desc: DescArg = None, x: XArg = None,
                  y: YArg = None, device: DeviceArg = None) -> Acted:
        """Tap one target: element=N from the last observe, an anchor (text, resource_id,
        desc), or a point x,y in 0–1000. A tap on Pay, Send, Delete… waits for the user's
        yes."""
        return await go(ctx, device, {"type": "tap", "target": target(
            element, text, resource_id, desc, x, y)})

    @tool(server, ACTS)
    async def long_press(ctx: Context, element: ElementArg = None, text: TextArg = None,
                         resource_id: IdArg = None, desc: DescArg = None, x: XArg = None,
                         y: YArg = None, device: DeviceArg = None) -> Acted:
        """Touch and hold one target, given as for tap."""
        return await go(ctx, device, {"type": "long_press", "target": target(
            element, text, resource_id, desc, x, y)})

    @tool(server, ACTS)
    async def type_text(ctx: Context, text: Annotated[str, Field(
            max_length=MAX_TEXT, description="What to type (may be empty with clear).")],
            clear: Annotated[bool, Field(description="Empty the field first.")] = False,
            submit: Annotated[bool, Field(description="Press enter after typing (a search, "
                                          "a send: judged as the field's submit).")] = False,
            element: ElementArg = None, device: DeviceArg = None) -> Acted:
        """Type into the focused text field, or into element=N (tapped first). Refused
        when no field has focus."""
        if not text and not clear:
            raise ConfigError("text is empty: give the text, or clear=true to empty the field")
        action: dict[str, Any] = {"type": "type", "text": text, "clear": clear,
                                  "submit": submit}
        if element is not None:
            action["target"] = target(element)
        return await go(ctx, device, action)

    _move_tools(server, go)
    _app_tools(server, go)


def _move_tools(server: MCPServer, go: Any) -> None:
    @tool(server, ACTS)
    async def swipe(ctx: Context, direction: Annotated[Direction, Field(description=FINGER)],
                    distance: Distance = 500, x: XArg = None, y: YArg = None,
                    device: DeviceArg = None) -> Acted:
        """Swipe in a direction, from the point x,y (0–1000) or the screen's centre. Says
        'nothing moved' when the screen did not change (the end of a list)."""
        action: dict[str, Any] = {"type": "swipe", "direction": direction,
                                  "distance": distance}
        if x is not None or y is not None:
            action["start"] = target(x=x, y=y)
        return await go(ctx, device, action)

    @tool(server, ACTS)
    async def scroll_until_visible(
            ctx: Context, text: TextArg = None, resource_id: IdArg = None,
            desc: DescArg = None, direction: Annotated[Direction, Field(
                description=FINGER)] = "up",
            max_swipes: Annotated[int, Field(ge=1, le=acting.MAX_SWIPES, description=(
                "Give up after this many swipes."))] = 10,
            device: DeviceArg = None) -> Acted:
        """Swipe until an element (by text, resource_id or desc) is in view; answers its
        element number, or 'not found' at the end of the list."""
        anchor = target(text=text, resource_id=resource_id, desc=desc)
        anchor.pop("kind")
        return await go(ctx, device, acting.scroll_until(
            anchor, direction, max_swipes))

    @tool(server, ACTS)
    async def key(ctx: Context, name: Annotated[KeyName, Field(description=(
            "The key: back, home, enter, recents, delete, tab, … (the enum lists all)."))],
            device: DeviceArg = None) -> Acted:
        """Press a key. enter in a message box is its send: judged as one."""
        return await go(ctx, device, {"type": "key", "key": name})


def _app_tools(server: MCPServer, go: Any) -> None:
    @tool(server, ACTS)
    async def launch(ctx: Context, app: App, device: DeviceArg = None) -> Acted:
        """Open an app by name or package."""
        return await go(ctx, device, {"type": "launch", "app": app})

    @tool(server, hints(destructive=True, idempotent=True))
    async def stop_app(ctx: Context, package: Package, device: DeviceArg = None) -> Acted:
        """Force-stop an app (its next launch starts it afresh)."""
        return await go(ctx, device, acting.stop_app(package))

    @tool(server, hints(destructive=True, open_world=True))
    async def open_url(ctx: Context, url: Url, device: DeviceArg = None) -> Acted:
        """Open a URL with the app that handles it. What a link does cannot be told from
        it (it may pay or send), so the user is asked first, as for a tap on Pay."""
        return await go(ctx, device, acting.open_url(url))
