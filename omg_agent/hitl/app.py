"""The mirror's ASGI app (Starlette): the page, the frame WebSocket and the POST actions.

Every request passes :class:`~omg_agent.hitl.security.MirrorSession`'s checks first (see
there), and a body is read only within :mod:`~omg_agent.hitl.bodies`' limits. Human input
becomes the same actions a model sends — :mod:`omg_agent.core.actions` executed by the
driver (its safe text input included) — never raw adb; each one is written to the audit log
with the viewer and session whose credentials sent it.
"""

from __future__ import annotations

import json
import secrets
import threading
from html import escape
from importlib import resources
from typing import Any

import anyio
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from omg_agent.drivers.ports import HumanHands
from omg_agent.errors import BodyRefused, OmgError
from omg_agent.hitl.audit import AuditLog, Place
from omg_agent.hitl.bodies import read_json
from omg_agent.hitl.channel import PageChannel
from omg_agent.hitl.frames import FrameSource
from omg_agent.hitl.gestures import audit_fields, to_action
from omg_agent.hitl.security import (
    KEY_HEADER,
    MAX_VIEWERS,
    PROTOCOL,
    MirrorSession,
    Viewer,
    key_of_protocols,
)
from omg_agent.hitl.takeover import Takeover
from omg_agent.hitl.tree import element_boxes
from omg_agent.hitl.video import SocketFeed, VideoFeed

WS_POLICY_VIOLATION = 1008
MAX_SOCKETS = 2 * MAX_VIEWERS  # each holds one reference to the latest frame, no queue
KEY_UNIT, DELTA_UNIT = b"\x01", b"\x00"  # the first byte of an H.264 message
MAX_REFUSALS_AUDITED = 50  # replays refused are written down, but cannot fill the disk
NOT_SIGNED_IN = ("not signed in: this needs the key the page got with its one-time link "
                 "(a new tab needs a new link: Invite another viewer)")


def _deny(status: int, why: str) -> Response:
    return PlainTextResponse(why, status_code=status, headers=_HEADERS)


_HEADERS = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer",
            "X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY"}


def _who(viewer: Viewer) -> dict[str, Any]:
    """The audit's names for the viewer who acted."""
    return {"viewer": viewer.number, "session": viewer.session}


class MirrorApp:
    def __init__(self, session: MirrorSession, driver: Any, frames: FrameSource,
                 channel: PageChannel, audit: AuditLog, takeover: Takeover,
                 video: VideoFeed | None = None) -> None:
        self.session = session
        self.driver = driver
        self.frames = frames
        self.video = video  # None: JPEG frames only
        self._sockets = 0
        self._sockets_lock = threading.Lock()
        self.channel = channel
        self.audit = audit
        self.takeover = takeover
        self._act = threading.Lock()  # one human gesture at a time
        self.learner: Any = None  # a run's hitl.learn.Learner: gestures become steps
        self.agent = True  # an agent may ask, wait for a yes or be paused on this page
        self._refusals = 0
        self.asgi = Starlette(routes=[
            Route("/", self.page, methods=["GET"]),
            Route("/api/act/{kind}", self.act, methods=["POST"]),
            Route("/api/answer", self.answer, methods=["POST"]),
            Route("/api/tree", self.tree, methods=["GET"]),
            Route("/api/control", self.control, methods=["POST"]),
            Route("/api/invite", self.invite, methods=["POST"]),
            Route("/api/takeover", self.take_over, methods=["POST"]),
            WebSocketRoute("/ws", self.socket),
        ])

    # -- checks -----------------------------------------------------------------------------
    def _audit(self, action: str, viewer: Viewer, **data: Any) -> None:
        self.audit.write(action, **_who(viewer), **data)

    def _refused(self, cookie: str | None, path: str) -> Response:
        """401 for a request without its tab's key; when it carries a signed-in browser's
        cookie (a replay, or a tab without a key) that is written down, naming whose cookie
        it was, so the log shows the replay rather than an action of that viewer."""
        owner = self.session.browser(cookie)
        if owner is not None and self._refusals < MAX_REFUSALS_AUDITED:
            self._refusals += 1
            self.audit.write("refused", path=path, cookie_of=owner.number,
                             reason="the cookie without its tab's key")
        return _deny(401, NOT_SIGNED_IN)

    def _check(self, request: Request, *, post: bool,
               control: bool = False) -> Viewer | Response:
        """The signed-in viewer making ``request``, or the refusal to send."""
        s = self.session
        if not s.host_ok(request.headers.get("host")):
            return _deny(400, "host not allowed")
        if "token" in request.query_params:
            return _deny(401, "a token is never accepted in a query string after the first "
                              "load")
        cookie = request.cookies.get(s.cookie_name)
        viewer = s.viewer(cookie, request.headers.get(KEY_HEADER))
        if viewer is None:
            return self._refused(cookie, request.url.path)
        if post:
            origin = request.headers.get("origin")
            if origin is not None and not s.origin_ok(origin):
                return _deny(403, "origin not allowed")
        if control and not s.controls(viewer):
            return _deny(409, "another viewer has control: press Take control first")
        return viewer

    async def _body(self, request: Request,
                    **check: bool) -> tuple[Viewer, dict[str, Any]] | Response:
        """The checked viewer and its JSON body, or the refusal to send."""
        viewer = self._check(request, post=True, **check)
        if isinstance(viewer, Response):
            return viewer
        try:
            return viewer, await read_json(request)
        except BodyRefused as exc:
            return _deny(exc.status, str(exc))

    # -- routes -----------------------------------------------------------------------------
    async def page(self, request: Request) -> Response:
        """With a one-time token: sign this tab in — the cookie, and the page with the tab's
        key in it (the only answer that ever holds a key). Without: the page alone, for a
        reload (it finds its key in the tab's sessionStorage)."""
        s = self.session
        if not s.host_ok(request.headers.get("host")):
            return _deny(400, "host not allowed")
        cookie = request.cookies.get(s.cookie_name)
        token = request.query_params.get("token")
        if token is None:
            if s.browser(cookie) is None:
                return _deny(401, "not signed in: open the link the mirror printed")
            return self._page(key="")
        fresh = s.redeem(token, cookie)
        if fresh is None:
            return _deny(401, "this link was used already or is wrong: a link is accepted "
                              "once (ask a signed-in viewer for an invite)")
        self._audit("sign_in", fresh, via=fresh.via)
        return self._page(key=fresh.key, cookie=s.set_cookie_header(fresh))

    def _page(self, key: str, cookie: str | None = None) -> Response:
        nonce = secrets.token_urlsafe(16)
        html = (resources.files("omg_agent.hitl") / "page.html").read_text(encoding="utf-8")
        html = html.replace("{{nonce}}", nonce).replace("{{key}}", escape(key))
        csp = (f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; "
               f"img-src blob:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
               f"frame-ancestors 'none'")
        headers = {**_HEADERS, "Content-Security-Policy": csp}
        if cookie is not None:
            headers["Set-Cookie"] = cookie
        return HTMLResponse(html, headers=headers)

    async def act(self, request: Request) -> Response:
        # the audit's place is taken before the first await: the log keeps receive order
        with self.audit.place() as place:
            return await self._act_on(request, place)

    async def _act_on(self, request: Request, place: Place) -> Response:
        kind = request.path_params["kind"]
        checked = await self._body(request, control=True)
        if isinstance(checked, Response):
            return checked
        viewer, body = checked
        try:
            action = to_action(kind, body)
        except (ValueError, KeyError, TypeError, ValidationError) as exc:
            why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            return _deny(400, f"bad {kind}: {why}")
        try:
            result = await anyio.to_thread.run_sync(self._execute, action)
        except OmgError as exc:  # the device dropped, an action it refused
            place.write(kind, **_who(viewer), ok=False, error=str(exc),
                        **audit_fields(kind, body))
            return _deny(502, f"{kind} failed on the device: {exc}")
        place.write(kind, **_who(viewer), ok=result.ok, **audit_fields(kind, body))
        self.frames.changes.bump()
        return JSONResponse({"ok": result.ok}, headers=_HEADERS)

    def _execute(self, action: Any) -> Any:
        with self._act:
            if self.learner is not None:
                self.learner.gesture(self.driver, action)
            # the human's own gesture: the one input the choke point does not judge
            result = self.driver.execute([action], review=HumanHands())
        if not self._video_only():  # the change shows at once, not at the next poll
            self.frames.poll_once()
        return result

    def _video_only(self) -> bool:
        """Every open page gets H.264 (which shows the change itself): no screenshot."""
        return (self.video is not None and self.video.watchers > 0
                and self.frames.watchers == 0)

    def _resumed(self) -> None:
        """The human hands back: what they did becomes learned steps (when learning)."""
        if self.learner is not None:
            with self._act:
                self.learner.resume(self.driver)

    async def tree(self, request: Request) -> Response:
        """The elements of the screen now (for the outline under the cursor); read-only,
        but the key, the cookie and Host like everything else."""
        viewer = self._check(request, post=False)
        if isinstance(viewer, Response):
            return viewer
        try:
            boxes = await anyio.to_thread.run_sync(self._tree)
        except OmgError as exc:
            return _deny(502, f"the screen's tree is not readable: {exc}")
        return JSONResponse({"elements": boxes}, headers=_HEADERS)

    def _tree(self) -> list[dict[str, Any]]:
        with self._act:
            return element_boxes(self.driver.observe())

    async def control(self, request: Request) -> Response:
        """This viewer takes control (the others watch)."""
        checked = await self._body(request)
        if isinstance(checked, Response):
            return checked
        viewer, _ = checked
        self.session.take_control(viewer)
        self._audit("take_control", viewer)
        self.frames.changes.bump()
        return JSONResponse({"ok": True}, headers=_HEADERS)

    async def take_over(self, request: Request) -> Response:
        """``{"on": true}`` pauses the agent's next look and action; ``false`` lets it go
        on (it looks at the screen afresh)."""
        checked = await self._body(request, control=True)
        if isinstance(checked, Response):
            return checked
        viewer, body = checked
        on = body.get("on")
        if not isinstance(on, bool):
            return _deny(400, 'bad takeover: send {"on": true} or {"on": false}')
        if on:
            self.takeover.begin()
        else:
            await anyio.to_thread.run_sync(self._resumed)
            self.takeover.end()
        self._audit("takeover" if on else "continue", viewer)
        self.frames.changes.bump()
        return JSONResponse({"ok": True}, headers=_HEADERS)

    async def invite(self, request: Request) -> Response:
        """A one-time link for another tab or browser (at most MAX_VIEWERS in all)."""
        checked = await self._body(request)
        if isinstance(checked, Response):
            return checked
        viewer, _ = checked
        link = self.session.invite(by=viewer)
        if link is None:
            return _deny(409, f"{MAX_VIEWERS} viewers already: no more links")
        self._audit("invite", viewer)
        return JSONResponse({"url": link}, headers=_HEADERS)

    async def answer(self, request: Request) -> Response:
        checked = await self._body(request, control=True)
        if isinstance(checked, Response):
            return checked
        viewer, body = checked
        request_id, value = body.get("id"), body.get("answer")
        if not isinstance(request_id, int) or isinstance(request_id, bool) or value is None:
            return _deny(400, 'bad answer: send {"id": N, "answer": …}')
        kind = self.channel.kind_of(request_id)
        if kind == "confirm" and not isinstance(value, bool):
            return _deny(400, "an approval is answered true (approve) or false (reject)")
        if kind == "ask" and not isinstance(value, str):
            return _deny(400, "a question is answered with text")
        if kind == "ask":  # the steps are filed before the agent looks again
            await anyio.to_thread.run_sync(self._resumed)
        if kind is None or not self.channel.answer(request_id, value, by="page",
                                                   viewer=viewer.number,
                                                   session=viewer.session):
            return _deny(409, "that request is not open (answered already)")
        return JSONResponse({"ok": True}, headers=_HEADERS)

    async def socket(self, ws: WebSocket) -> None:
        """The frames and the state, to a page presenting its key as a subprotocol."""
        s = self.session
        cookie = ws.cookies.get(s.cookie_name)
        viewer = s.viewer(cookie, key_of_protocols(ws.scope.get("subprotocols") or []))
        if not (s.host_ok(ws.headers.get("host")) and s.origin_ok(ws.headers.get("origin"))
                and "token" not in ws.query_params):
            await ws.close(code=WS_POLICY_VIOLATION)  # the handshake is answered 403
            return
        if viewer is None:
            refusal = self._refused(cookie, "/ws")
            if "websocket.http.response" in ws.scope.get("extensions", {}):
                await ws.send_denial_response(refusal)
            else:
                await ws.close(code=WS_POLICY_VIOLATION)
            return
        with self._sockets_lock:
            if self._sockets >= MAX_SOCKETS:
                refused = True
            else:
                refused, self._sockets = False, self._sockets + 1
        if refused:
            await ws.close(code=WS_POLICY_VIOLATION)  # too many open pages: refused
            return
        # H.264 only to a page that says it decodes it (WebCodecs); JPEG otherwise
        path = SocketFeed(self.frames, self.video, ws.query_params.get("video") == "h264")
        try:
            await ws.accept(subprotocol=PROTOCOL)  # never the key: it stays the page's
            async with anyio.create_task_group() as group:
                group.start_soon(self._push, ws, viewer, path)
                await self._drain(ws)
                group.cancel_scope.cancel()
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            path.leave()
            with self._sockets_lock:
                self._sockets -= 1

    @staticmethod
    async def _drain(ws: WebSocket) -> None:
        """Until the page leaves. The page sends nothing; whatever arrives (text or binary)
        is ignored, and the socket stays open."""
        while (await ws.receive())["type"] != "websocket.disconnect":
            pass

    async def _push(self, ws: WebSocket, viewer: Viewer, path: SocketFeed) -> None:
        version, sent_seq, sent_state = -1, 0, ""
        gop, index = 0, -1  # the last H.264 unit sent
        changes = self.frames.changes
        while True:
            version = await anyio.to_thread.run_sync(changes.wait, version, 1.0,
                                                     abandon_on_cancel=True)
            path.check()
            state = json.dumps({"pending": self.channel.pending(), "error": self.frames.error,
                                "run": self.channel.run, "takeover": self.takeover.active,
                                "viewer": viewer.number, "video": path.describe(),
                                "control": self.session.controls(viewer),
                                "agent": self.agent},
                               ensure_ascii=False)
            if state != sent_state:
                await ws.send_text(state)
                sent_state = state
            if path.h264:
                assert self.video is not None
                if self.video.codec is None:
                    continue  # no key frame yet: the page cannot configure its decoder
                for unit in self.video.since(gop, index):
                    await ws.send_bytes((KEY_UNIT if unit.key else DELTA_UNIT) + unit.data)
                    gop, index = unit.gop, unit.index
                continue
            frame = self.frames.latest
            if frame is not None and frame.seq != sent_seq:
                await ws.send_bytes(frame.jpeg)
                sent_seq = frame.seq

