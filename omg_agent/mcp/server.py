"""The MCP server's tools and resources over :class:`omg_agent.phone.Phone` (issue 28).

Every tool drives the phone through the Python API, so an action from a client meets the
same sensitive-action gate as the agent's own (a client is a model too): a held action
is put to the human behind the client by elicitation (:mod:`.consent`), or refused with
``needs_confirmation`` and how a human approves. Runs are built by
:mod:`omg_agent.taskrun` like the CLI's; a held run is answered, approved or declined
through the resume path. The phone's lease is taken for each call that drives it.
"""

from __future__ import annotations

import base64
import functools
import io
import json
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

import anyio
import anyio.from_thread
import anyio.to_thread
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp_types import CallToolResult, ImageContent, InputRequiredResult, TextContent
from pydantic import BaseModel, Field

from omg_agent.config import Settings
from omg_agent.errors import ConfigError, OmgError
from omg_agent.guards.confirmation import ConfirmationChannel
from omg_agent.mcp import consent
from omg_agent.mcp.grants import Grants, SessionAsks
from omg_agent.phone import Phone

MAX_TEXT = 2000  # characters typed in one call
MAX_RUNS_LISTED = 20
INSTRUCTIONS = (
    "Drive an Android phone. observe first: it returns the element list and a screenshot. "
    "Act by anchor (text, resource_id, desc) or by a 0-1000 point. run_task hands a whole "
    "task to the agent. Paying, deleting, sending, installing and typing secrets need a "
    "human's yes: the server asks the user itself; you cannot approve them.")
Held = CallToolResult | InputRequiredResult


class Device(BaseModel):
    serial: str
    state: str


class Devices(BaseModel):
    devices: list[Device]


class Acted(BaseModel):
    """An action's outcome: ok, failed, needs_confirmation (a human must approve; see
    how_to_approve) or declined (the human said no). Nothing ran unless ok/failed."""

    status: Literal["ok", "failed", "needs_confirmation", "declined"]
    detail: str
    how_to_approve: str | None = None


class Screen(BaseModel):
    package: str
    activity: str
    elements: str = Field(description="the element list read from the phone after the run")


class RunOut(BaseModel):
    """A run's end: status is read from the phone (done only when its checks passed)."""

    status: str
    answer: str
    question: str | None
    summary: str
    run_dir: str
    report: str | None
    steps_used: int
    screen: Screen | None = None
    how_to_approve: str | None = None


class FlowOut(BaseModel):
    status: str
    failed: str
    commands: int
    actions: int
    run_dir: str


def tool(server: MCPServer) -> Callable[[Any], Any]:
    """``server.tool()`` for an async tool whose :class:`OmgError` reaches the client as
    its one-line message (the one place errors become tool errors; anything else is a
    crash the SDK logs and reports without its text)."""
    def register(fn: Callable[..., Awaitable[Any]]) -> Any:
        @functools.wraps(fn)
        async def reported(*args: Any, **kwargs: Any) -> Any:
            try:
                return _for_model(await fn(*args, **kwargs))
            except OmgError as exc:
                raise ToolError(consent.for_model(str(exc))) from None
        return server.tool()(reported)
    return register


def _for_model(result: Any) -> Any:
    """A tool's output as the client's model reads it: its texts without any command that
    would approve what the gate holds (:func:`consent.for_model`)."""
    if isinstance(result, Acted | RunOut | FlowOut):
        return result.model_copy(update={k: consent.for_model(v) for k, v in result
                                         if isinstance(v, str)})
    return result


class Hub:
    """The server's phones (one per serial, opened on first use) and settings."""

    def __init__(self, settings: Settings, device: str | None = None,
                 approve_on: Literal["elicitation", "mirror"] = "elicitation") -> None:
        self.settings = settings
        self.device = device
        self.phones: dict[str, Phone] = {}
        self.busy: dict[str, threading.Lock] = {}  # one call at a time drives a phone
        self.approve_on = approve_on
        self.grants = Grants()  # single-use tickets and the session's nos
        self.mirror: Any = None  # the page asked with --approve-on mirror (open_mirror)

    def open_mirror(self) -> str:
        """Start the mirror page the human approves on (``--approve-on mirror``); its
        one-time link, for the human's eyes only."""
        from omg_agent.hitl.server import Mirror

        self.mirror = Mirror(self.phone(self.device).driver).start()
        return str(self.mirror.url)

    def asks(self, serial: str) -> ConfirmationChannel | None:
        """Who the gate asks in the middle of a call: the mirror page, or nobody (then a
        held action is put to the human behind the client after the call holds it)."""
        if self.mirror is None:
            return None
        return SessionAsks(self.mirror.channel, self.grants, serial)

    @contextmanager
    def using(self, device: str | None) -> Iterator[Phone]:
        """The phone for one call; another call of this server on it is refused (its
        driver is not shared between threads, and a run must not be raced)."""
        phone = self.phone(device)
        lock = self.busy.setdefault(phone.serial, threading.Lock())
        if not lock.acquire(blocking=False):
            raise ConfigError(f"{phone.serial} is busy with another call of this server "
                              "(a run_task?): call again when it has returned")
        try:
            yield phone
        finally:
            lock.release()

    def phone(self, device: str | None) -> Phone:
        import adbutils

        serial = device or self.device
        if serial is None:
            attached = [d.serial for d in adbutils.AdbClient().device_list()]
            if len(attached) != 1:
                raise ConfigError(f"{len(attached)} devices attached "
                                  f"({', '.join(attached) or 'none'}): pass device")
            serial = attached[0]
        if serial not in self.phones:
            self.phones[serial] = Phone(serial, settings=self.settings, hold_lease=False)
        return self.phones[serial]

    def run_dir(self, given: str) -> Path:
        """A run folder of this server's runs directory: its name (what the tools return),
        or a path inside it, absolute or relative to the working directory."""
        root = self.settings.runs_dir.resolve()
        path = Path(given)
        for candidate in ([path] if path.is_absolute() else [root / path, path]):
            found = candidate.resolve()
            if found.is_relative_to(root) and (found / "state.json").is_file():
                return found
        raise ConfigError(f"run_dir {given!r}: not a run of this server (give the run_dir "
                          "a tool returned: the run's name)")

    def close(self) -> None:
        if self.mirror is not None:
            self.mirror.close()
        for phone in self.phones.values():
            phone.close()


def build_server(hub: Hub) -> MCPServer:
    """The MCP server over ``hub``'s phones."""
    from omg_agent import __version__

    server = MCPServer("omg-agent", instructions=INSTRUCTIONS, version=__version__)
    _device_tools(server, hub)
    _run_tools(server, hub)
    _resources(server, hub)
    return server


def _device_tools(server: MCPServer, hub: Hub) -> None:
    _look_tools(server, hub)
    _act_tools(server, hub)


def _look_tools(server: MCPServer, hub: Hub) -> None:
    """``list_devices`` and ``observe``: read-only."""

    @tool(server)
    async def list_devices() -> Devices:
        """The devices adb sees (serial and state)."""
        import adbutils

        return Devices(devices=[Device(serial=d.serial, state=d.state)
                                for d in adbutils.AdbClient().list()])

    @tool(server)
    async def observe(device: str | None = None) -> CallToolResult:
        """The screen now: foreground app, the element list as text, and a screenshot."""
        def look() -> CallToolResult:
            with hub.using(device) as phone:
                obs = phone.observe()
                elements = phone.elements(obs)
            buf = io.BytesIO()
            obs.screenshot.save(buf, format="PNG")
            head = f"{obs.package}/{obs.activity} {obs.size[0]}x{obs.size[1]}\n"
            return CallToolResult(
                content=[TextContent(type="text", text=head + elements),
                         ImageContent(type="image", data=base64.b64encode(
                             buf.getvalue()).decode(), mime_type="image/png")],
                structured_content={"package": obs.package, "activity": obs.activity,
                                    "size": list(obs.size), "screen_hash": obs.screen_hash})
        return await anyio.to_thread.run_sync(look)


def _act_tools(server: MCPServer, hub: Hub) -> None:
    """The tools that act on the phone, each through the gate (:func:`.gated.gated`)."""
    from omg_agent.mcp.gated import gated as _gated
    from omg_agent.mcp.gated import point_or_anchor as _target

    async def gated(ctx: Context, device: str | None, action: dict[str, Any]) -> Held | Acted:
        return await _gated(hub, ctx, device, action)

    @tool(server)
    async def tap(ctx: Context, text: str | None = None, resource_id: str | None = None,
                  desc: str | None = None, x: int | None = None, y: int | None = None,
                  device: str | None = None) -> Acted:
        """Tap a target: its visible text, resource_id or desc, or a point x,y in 0–1000."""
        return await gated(ctx, device, {"type": "tap", "target": _target(
            text, resource_id, desc, x, y)})  # type: ignore[return-value]

    @tool(server)
    async def long_press(ctx: Context, text: str | None = None,
                         resource_id: str | None = None, desc: str | None = None,
                         x: int | None = None, y: int | None = None,
                         device: str | None = None) -> Acted:
        """Long-press a target given as for tap."""
        return await gated(ctx, device, {"type": "long_press", "target": _target(
            text, resource_id, desc, x, y)})  # type: ignore[return-value]

    @tool(server)
    async def type_text(ctx: Context, text: str = Field(max_length=MAX_TEXT),
                        device: str | None = None) -> Acted:
        """Type text into the focused field."""
        return await gated(ctx, device, {"type": "type", "text": text})  # type: ignore[return-value]

    @tool(server)
    async def swipe(ctx: Context, direction: Literal["up", "down", "left", "right"],
                    distance: int = Field(500, ge=1, le=1000),
                    device: str | None = None) -> Acted:
        """Swipe in a direction; distance in 0–1000 units of the screen."""
        return await gated(ctx, device, {"type": "swipe", "direction": direction,  # type: ignore[return-value]
                                         "distance": distance})

    @tool(server)
    async def key(ctx: Context, name: str = Field(max_length=40),
                  device: str | None = None) -> Acted:
        """Press a key: back, home, enter, recents, delete, …"""
        return await gated(ctx, device, {"type": "key", "key": name})  # type: ignore[return-value]

    @tool(server)
    async def launch(ctx: Context, app: str = Field(max_length=200),
                     device: str | None = None) -> Acted:
        """Open an app by name (Settings, 设置) or package."""
        return await gated(ctx, device, {"type": "launch", "app": app})  # type: ignore[return-value]


def _run_tools(server: MCPServer, hub: Hub) -> None:
    from omg_agent.mcp.gated import on_hold
    from omg_agent.mcp.runs import register_runs

    register_runs(server, hub, on_hold)


def _resources(server: MCPServer, hub: Hub) -> None:
    @server.resource("omg://runs", mime_type="application/json")
    def recent_runs() -> str:
        """The most recent runs: name, status, task (newest first)."""
        root = hub.settings.runs_dir
        rows = []
        dirs = sorted((d for d in root.iterdir() if (d / "trace.jsonl").is_file()),
                      reverse=True) if root.is_dir() else []
        for run in dirs[:MAX_RUNS_LISTED]:
            try:
                result = json.loads((run / "result.json").read_text(encoding="utf-8"))
            except (OSError, ValueError):
                result = {"status": "running or interrupted"}
            rows.append({"run": run.name, "status": result.get("status"),
                         "task": result.get("task"), "report": f"omg://runs/{run.name}/report"})
        return consent.for_model(json.dumps(rows, ensure_ascii=False))

    @server.resource("omg://runs/{name}/report", mime_type="text/html")
    def run_report(name: str) -> str:
        """A run's HTML report."""
        try:
            path = hub.run_dir(name) / "report.html"
        except OmgError as exc:
            raise ResourceError(str(exc)) from None
        if not path.is_file():
            raise ResourceError(f"run {name} has no report yet")
        # the report was written for the user at a terminal ("answer with: omg-agent run
        # --resume … --answer yes"); the client's model reads it without that recipe
        return consent.for_model(path.read_text(encoding="utf-8"))
