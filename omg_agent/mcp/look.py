"""The MCP server's read-only tools: ``list_devices``, ``observe``, ``list_apps`` (issues 28
and 37).

``observe`` returns the numbered element list as text and, unless the client asks for
``screenshot: none``, a screenshot scaled to at most :data:`MAX_SIDE` pixels on its long side
(JPEG by default). The screen hash stays on the server: it is what an element number from
this observe is checked against (:meth:`Hub.seen <omg_agent.mcp.server.Hub>`), never a
1,700-character string in every answer. While a run drives the phone, observe returns the
latest screen the run read (and says so) instead of being refused.
"""

from __future__ import annotations

import base64
import io
import time
from typing import Annotated, Any

import anyio.to_thread
from mcp.server import MCPServer
from mcp_types import CallToolResult, ImageContent, TextContent
from pydantic import Field

from omg_agent.mcp.server import Hub, tool
from omg_agent.mcp.shapes import READ, Apps, Device, DeviceArg, Devices, Screenshot

MAX_SIDE = 1024  # pixels on the screenshot's long side (a phone's 2400 is scaled down)
JPEG_QUALITY = 60
SHOT = ("none: no image (the element list only; the smallest answer); jpeg (default): "
        f"scaled to at most {MAX_SIDE} px on the long side, quality {JPEG_QUALITY} (typically "
        "20–60 KB); png: lossless, the same {MAX_SIDE} px cap (several times larger)")


def register_looks(server: MCPServer, hub: Hub) -> None:
    """Add the read-only tools to ``server``."""

    @tool(server, READ)
    async def list_devices() -> Devices:
        """The devices adb sees (serial and state)."""
        import adbutils

        return Devices(devices=[Device(serial=d.serial, state=d.state)
                                for d in adbutils.AdbClient().list()])

    @tool(server, READ)
    async def observe(screenshot: Annotated[Screenshot, Field(description=SHOT)] = "jpeg",
                      device: DeviceArg = None) -> CallToolResult:
        """The screen now: the foreground app, the numbered element list (tap element=N
        acts on [N]) and a screenshot (leave it out with screenshot='none'). Allowed
        while run_task works: then it is the latest screen the run read."""
        return await anyio.to_thread.run_sync(lambda: look(hub, device, screenshot))

    @tool(server, READ)
    async def list_apps(contains: Annotated[str | None, Field(
            max_length=100, description="Only packages whose name contains this "
            "(case-insensitive).")] = None, device: DeviceArg = None) -> Apps:
        """The installed apps' package names (launch and stop_app take them)."""
        def packages() -> list[str]:
            import adbutils

            serial = hub.phone(device).serial
            found = sorted(adbutils.AdbClient().device(serial).list_packages())
            return [p for p in found if not contains or contains.lower() in p.lower()]
        return Apps(packages=await anyio.to_thread.run_sync(packages))


def look(hub: Hub, device: str | None, screenshot: str) -> CallToolResult:
    """What ``observe`` returns (the screen kept as the one element numbers refer to)."""
    phone, obs, from_run = hub.glance(device)
    elements = phone.elements(obs)
    if not from_run:
        hub.seen[phone.serial] = obs
    head = f"{obs.package}/{obs.activity} {obs.size[0]}x{obs.size[1]}\n"
    if from_run:
        age = max(0.0, time.time() - obs.timestamp) if obs.timestamp else 0.0
        head += (f"(a run is driving this phone: its latest screen, {age:.0f} s old; act "
                 "when the run has returned)\n")
    content: list[Any] = [TextContent(type="text", text=head + elements)]
    if screenshot != "none":
        data, mime = encode(obs.screenshot, screenshot)
        content.append(ImageContent(type="image", data=data, mime_type=mime))
    return CallToolResult(content=content, structured_content={
        "package": obs.package, "activity": obs.activity, "size": list(obs.size),
        "from_run": from_run})


def encode(image: Any, kind: str) -> tuple[str, str]:
    """``image`` scaled to :data:`MAX_SIDE` and encoded as ``kind`` (jpeg or png), base64."""
    scale = MAX_SIDE / max(image.size)
    if scale < 1:
        image = image.resize((round(image.size[0] * scale), round(image.size[1] * scale)))
    buf = io.BytesIO()
    if kind == "png":
        image.save(buf, format="PNG")
    else:
        image.convert("RGB").save(buf, format="JPEG", quality=JPEG_QUALITY)
    return base64.b64encode(buf.getvalue()).decode(), f"image/{kind}"
