"""The MCP server over :class:`omg_agent.phone.Phone` (issues 28 and 37): its hub of phones,
the one place errors become tool errors, and :func:`build_server`.

Every tool drives the phone through the Python API, so an action from a client meets the
same sensitive-action gate as the agent's own (a client is a model too): a held action
is put to the human behind the client by elicitation (:mod:`.consent`), or refused with
``needs_confirmation`` and how a human approves. Runs are built by
:mod:`omg_agent.taskrun` like the CLI's; a held run is answered, approved or declined
through the resume path. The phone's lease is taken for each call that drives it.

The tools by concept: :mod:`.look` (observe, devices, apps: read-only), :mod:`.act` with
:mod:`.acting` (actions, each through :mod:`.gated`), :mod:`.runs` (tasks and flows),
:mod:`.resources` (runs, summaries, reports); their fields and outputs in :mod:`.shapes`,
their words for the client in :mod:`.words`.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp_types import ToolAnnotations
from pydantic import ValidationError

from omg_agent.config import Settings
from omg_agent.errors import ConfigError, OmgError
from omg_agent.guards.confirmation import ConfirmationChannel
from omg_agent.mcp import words
from omg_agent.mcp.grants import Grants, SessionAsks
from omg_agent.mcp.shapes import (  # noqa: F401 (the tools' shapes, named from here too)
    ACTS,
    Acted,
    Device,
    Devices,
    FlowOut,
    Held,
    RunOut,
    Screen,
)
from omg_agent.phone import Phone

if TYPE_CHECKING:
    from omg_agent.core.observation import Observation

MAX_RUNS_LISTED = 20
INSTRUCTIONS = (
    "Drive an Android phone. observe first: it returns the numbered element list (and a "
    "screenshot unless screenshot='none'). Act by element number from the last observe, by "
    "anchor (text, resource_id, desc) or by a 0-1000 point. run_task hands a whole task to "
    "the agent. Paying, deleting, sending, installing and typing secrets need a human's "
    "yes: the server asks the user itself; you cannot approve them.")
PREFIX = "Error executing tool "


class OmgServer(MCPServer):
    """The SDK's server, with every rejected call reported as one line naming the tool and
    what it accepts (the SDK's own text for arguments that fail the schema is pydantic's
    multi-line report, and an error raised in a tool is prefixed "Error executing tool")."""

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context | None = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError:
            raise
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(f"{name}: {words.error(exc.__cause__)}") from None
            said = str(exc).removeprefix(f"{PREFIX}{name}: ")
            raise ToolError(f"{name}: {said}") from None


def tool(server: MCPServer, annotations: ToolAnnotations = ACTS) -> Callable[[Any], Any]:
    """``server.tool()`` for an async tool whose :class:`OmgError` or rejected value
    (``ValueError``, a model that failed validation) reaches the client as its one-line
    message in the client's words (:mod:`.words`; the one place errors become tool errors;
    anything else is a crash the SDK logs and reports without its text)."""
    def register(fn: Callable[..., Awaitable[Any]]) -> Any:
        @functools.wraps(fn)
        async def reported(*args: Any, **kwargs: Any) -> Any:
            try:
                return _for_model(await fn(*args, **kwargs))
            except (OmgError, ValueError) as exc:
                raise ToolError(words.error(exc)) from None
        return server.tool(annotations=annotations)(reported)
    return register


def _for_model(result: Any) -> Any:
    """A tool's output as the client's model reads it: its texts in the client's words,
    without any command that would approve what the gate holds (:func:`words.text`)."""
    if isinstance(result, Acted | RunOut | FlowOut):
        return result.model_copy(update={k: words.text(v) for k, v in result
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
        self.seen: dict[str, Observation] = {}  # serial -> the screen observe last returned

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

    def glance(self, device: str | None) -> tuple[Phone, Observation, bool]:
        """The screen for ``observe``: read now — or, while another call (a run) drives
        the phone, the latest screen that call read (``True``: it is that one), without
        touching the device its driver is using."""
        phone = self.phone(device)
        lock = self.busy.setdefault(phone.serial, threading.Lock())
        if lock.acquire(blocking=False):
            try:
                return phone, phone.observe(), False
            finally:
                lock.release()
        latest = getattr(phone.driver, "last_observation", None)
        if latest is None:
            raise ConfigError(f"{phone.serial} is busy with another call of this server and "
                              "has shown nothing yet: observe again in a moment")
        return phone, latest, True

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

    def run_dir(self, given: str, holds: str = "state.json") -> Path:
        """A run folder of this server's runs directory: its name (what the tools return),
        or a path inside it, absolute or relative to the working directory; it ``holds``
        a run's saved state (what answer/approve go on from), or its trace (a flow's
        folder too: what the resources read)."""
        root = self.settings.runs_dir.resolve()
        path = Path(given)
        for candidate in ([path] if path.is_absolute() else [root / path, path]):
            found = candidate.resolve()
            if found.is_relative_to(root) and (found / holds).is_file():
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
    from omg_agent.mcp.act import register_acts
    from omg_agent.mcp.gated import on_hold
    from omg_agent.mcp.look import register_looks
    from omg_agent.mcp.resources import register_resources
    from omg_agent.mcp.runs import register_runs

    server = OmgServer("omg-agent", instructions=INSTRUCTIONS, version=__version__)
    register_looks(server, hub)
    register_acts(server, hub)
    register_runs(server, hub, on_hold)
    register_resources(server, hub)
    return server
