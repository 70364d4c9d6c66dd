"""The mirror served by uvicorn in a thread of this process.

:class:`Mirror` ties a driver to the app: it checks the address (loopback unless
``allow_remote``), binds the socket itself (so the port — and with it the Host allow-list —
is known before serving), and starts and stops the server.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from pathlib import Path
from typing import Any

from omg_agent.errors import MirrorError
from omg_agent.hitl.app import MirrorApp
from omg_agent.hitl.audit import AuditLog
from omg_agent.hitl.bodies import MAX_BODY
from omg_agent.hitl.channel import PageChannel
from omg_agent.hitl.frames import Changes, FrameSource
from omg_agent.hitl.security import MirrorSession, check_bind
from omg_agent.hitl.takeover import HeldDriver, Takeover
from omg_agent.hitl.video import VideoFeed

START_TIMEOUT_S = 15.0


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise MirrorError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(16)
    sock.setblocking(False)
    return sock


class Mirror:
    """A live, authenticated browser view of ``driver``'s phone. ``agent=False``: nothing
    but the humans drive it (``omg-agent mirror``), so the page shows no agent widgets."""

    def __init__(self, driver: Any, *, host: str = "127.0.0.1", port: int = 0,
                 allow_remote: bool = False, audit: AuditLog | None = None,
                 audit_path: Path | None = None, video: bool = True,
                 agent: bool = True) -> None:
        self.warning = check_bind(host, allow_remote)  # refuses before anything is opened
        self.sock = bind(host, port)
        self.session = MirrorSession(host, self.sock.getsockname()[1])
        self.audit = audit or AuditLog(audit_path)
        self.changes = Changes()
        self.frames = FrameSource(driver, self.changes)
        self.video = VideoFeed(driver, self.changes) if video else None  # JPEG: the fallback
        self.channel = PageChannel(self.changes, self.audit)
        self.takeover = Takeover()
        self.app = MirrorApp(self.session, driver, self.frames, self.channel, self.audit,
                             self.takeover, self.video)
        self.app.agent = agent  # False: no agent asks or drives here (its widgets hidden)
        self._server: Any = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return self.session.url

    def held(self, driver: Any) -> HeldDriver:
        """``driver`` for the agent: it waits while the human has taken over."""
        return HeldDriver(driver, self.takeover)

    def learn(self, learner: Any) -> None:
        """The human's gestures become learned steps of ``learner`` (a
        :class:`~omg_agent.hitl.learn.Learner`, the one the run's orchestrator offers) —
        never those made while an approval waits on the page."""
        self.app.learner = learner
        if learner is not None:
            learner.watch_approvals(lambda: any(p["kind"] == "confirm"
                                                for p in self.channel.pending()))

    def audit_to(self, recorder: Any) -> None:
        """The human's actions and answers become ``human`` events of ``recorder``'s trace
        (a run's TraceRecorder; ``None``: the audit file only)."""
        if recorder is not None:
            self.audit.sink = lambda entry: recorder.record_event("human", **entry)

    def start(self) -> Mirror:
        import uvicorn

        config = uvicorn.Config(self.app.asgi, log_level="warning", lifespan="off",
                                ws="websockets-sansio", access_log=False, server_header=False,
                                ws_max_size=MAX_BODY)  # the page sends nothing on it
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=lambda: asyncio.run(self._server.serve(sockets=[self.sock])),
            name="mirror-server", daemon=True)
        self._thread.start()
        pause = threading.Event()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self._server.started and self._thread.is_alive() \
                and time.monotonic() < deadline:
            pause.wait(0.02)
        if not self._server.started:
            raise MirrorError("the mirror server did not start (see the log)")
        return self

    def serve_forever(self) -> None:
        """Block until the server stops (Ctrl-C ends it)."""
        thread = self._thread
        while thread is not None and thread.is_alive():
            thread.join(0.5)

    def close(self) -> None:
        self.takeover.end()  # nobody can press Continue any more: the agent goes on
        self.channel.close()
        self.frames.close()
        if self.video is not None:
            self.video.close()
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        self.sock.close()

    def __enter__(self) -> Mirror:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
