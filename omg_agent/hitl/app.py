"""The mirror's ASGI app (Starlette): the page, the frame WebSocket and the POST actions.

Every request passes :class:`~omg_agent.hitl.security.MirrorSession`'s checks first (see
there). Human input becomes the same actions a model sends — :mod:`omg_agent.core.actions`
executed by the driver (its safe text input included) — never raw adb; each one is written
to the audit log.
"""

from __future__ import annotations

import json
import secrets
import threading
from importlib import resources
from typing import Any

import anyio
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from omg_agent.core.actions import Key, LongPress, PointTarget, Swipe, Tap, TypeText
from omg_agent.errors import OmgError
from omg_agent.hitl.audit import AuditLog
from omg_agent.hitl.channel import PageChannel
from omg_agent.hitl.frames import FrameSource
from omg_agent.hitl.security import COOKIE, CSRF_HEADER, MAX_VIEWERS, MirrorSession, Viewer
from omg_agent.hitl.takeover import Takeover
from omg_agent.hitl.tree import element_boxes

WS_POLICY_VIOLATION = 1008
MAX_SOCKETS = 2 * MAX_VIEWERS  # each holds one reference to the latest frame, no queue
KEYS = ("back", "home", "recents")
DRAG_MS = 300


def _deny(status: int, why: str) -> Response:
    return PlainTextResponse(why, status_code=status, headers=_HEADERS)


_HEADERS = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer",
            "X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY"}


def _point(body: dict[str, Any], x: str = "x", y: str = "y") -> PointTarget:
    return PointTarget(x=body[x], y=body[y])


def to_action(kind: str, body: dict[str, Any]) -> Any:
    """The action a page gesture means (coordinates 0–1000 of the screen)."""
    if kind == "tap":
        return Tap(target=_point(body))
    if kind == "long_press":
        return LongPress(target=_point(body))
    if kind == "swipe":
        return Swipe.model_validate({"from": _point(body, "x1", "y1"),
                                     "to": _point(body, "x2", "y2"),
                                     "duration_ms": body.get("duration_ms", DRAG_MS)})
    if kind == "type":
        return TypeText(text=str(body["text"]))
    if kind == "key":
        if body.get("key") not in KEYS:
            raise ValueError(f"key must be one of {', '.join(KEYS)}")
        return Key(key=body["key"])
    raise ValueError(f"unknown action {kind!r}; accepted: tap, long_press, swipe, type, key")


def _audit_fields(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    """What the audit keeps of a gesture: typed text only by its length (it may be a
    password)."""
    if kind == "type":
        return {"chars": len(str(body.get("text", "")))}
    return {k: body[k] for k in ("x", "y", "x1", "y1", "x2", "y2", "key") if k in body}


class MirrorApp:
    def __init__(self, session: MirrorSession, driver: Any, frames: FrameSource,
                 channel: PageChannel, audit: AuditLog, takeover: Takeover) -> None:
        self.session = session
        self.driver = driver
        self.frames = frames
        self.channel = channel
        self.audit = audit
        self.takeover = takeover
        self._act = threading.Lock()  # one human gesture at a time
        self.learner: Any = None  # a run's hitl.learn.Learner: gestures become steps
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
    def _check(self, request: Request, *, post: bool,
               control: bool = False) -> Viewer | Response:
        """The signed-in viewer making ``request``, or the refusal to send."""
        s = self.session
        if not s.host_ok(request.headers.get("host")):
            return _deny(400, "host not allowed")
        if "token" in request.query_params:
            return _deny(401, "a token is never accepted in a query string after the first "
                              "load")
        viewer = s.viewer(request.cookies.get(COOKIE))
        if viewer is None:
            return _deny(401, "not signed in: open the link the mirror printed")
        if post:
            origin = request.headers.get("origin")
            if origin is not None and not s.origin_ok(origin):
                return _deny(403, "origin not allowed")
            if not s.csrf_ok(viewer, request.headers.get(CSRF_HEADER)):
                return _deny(403, "missing or wrong CSRF token")
        if control and not s.controls(viewer):
            return _deny(409, "another viewer has control: press Take control first")
        return viewer

    # -- routes -----------------------------------------------------------------------------
    async def page(self, request: Request) -> Response:
        s = self.session
        if not s.host_ok(request.headers.get("host")):
            return _deny(400, "host not allowed")
        token = request.query_params.get("token")
        if token is not None:
            fresh = s.redeem(token)
            if fresh is None:
                return _deny(401, "this link was used already or is wrong: a token is "
                                  "accepted once, then only the cookie")
            self.audit.write("sign_in", viewer=fresh.number)
            return Response(status_code=303, headers={
                **_HEADERS, "Location": "/", "Set-Cookie": s.set_cookie_header(fresh)})
        viewer = self._check(request, post=False)
        if isinstance(viewer, Response):
            return viewer
        nonce = secrets.token_urlsafe(16)
        html = (resources.files("omg_agent.hitl") / "page.html").read_text(encoding="utf-8")
        html = html.replace("{{nonce}}", nonce).replace("{{csrf}}", viewer.csrf)
        csp = (f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; "
               f"img-src blob:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
               f"frame-ancestors 'none'")
        return HTMLResponse(html, headers={**_HEADERS, "Content-Security-Policy": csp})

    async def act(self, request: Request) -> Response:
        viewer = self._check(request, post=True, control=True)
        if isinstance(viewer, Response):
            return viewer
        kind = request.path_params["kind"]
        try:
            body = json.loads(await request.body() or b"{}")
            if not isinstance(body, dict):
                raise ValueError("the body must be a JSON object")
            action = to_action(kind, body)
        except (ValueError, KeyError, TypeError, ValidationError) as exc:
            why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            return _deny(400, f"bad {kind}: {why}")
        try:
            result = await anyio.to_thread.run_sync(self._execute, action)
        except OmgError as exc:  # the device dropped, an action it refused
            self.audit.write(kind, ok=False, error=str(exc), viewer=viewer.number,
                             **_audit_fields(kind, body))
            return _deny(502, f"{kind} failed on the device: {exc}")
        self.audit.write(kind, ok=result.ok, viewer=viewer.number, **_audit_fields(kind, body))
        self.frames.changes.bump()
        return JSONResponse({"ok": result.ok}, headers=_HEADERS)

    def _execute(self, action: Any) -> Any:
        with self._act:
            if self.learner is not None:
                self.learner.gesture(self.driver, action)
            result = self.driver.execute([action])
        self.frames.poll_once()  # the change shows at once, not at the next poll
        return result

    def _resumed(self) -> None:
        """The human hands back: what they did becomes learned steps (when learning)."""
        if self.learner is not None:
            with self._act:
                self.learner.resume(self.driver)

    async def tree(self, request: Request) -> Response:
        """The elements of the screen now (for the outline under the cursor); read-only,
        so no CSRF token, but the cookie and Host like everything else."""
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
        viewer = self._check(request, post=True)
        if isinstance(viewer, Response):
            return viewer
        self.session.take_control(viewer)
        self.audit.write("take_control", viewer=viewer.number)
        self.frames.changes.bump()
        return JSONResponse({"ok": True}, headers=_HEADERS)

    async def take_over(self, request: Request) -> Response:
        """``{"on": true}`` pauses the agent's next look and action; ``false`` lets it go
        on (it looks at the screen afresh)."""
        viewer = self._check(request, post=True, control=True)
        if isinstance(viewer, Response):
            return viewer
        try:
            on = json.loads(await request.body() or b"{}")["on"]
            if not isinstance(on, bool):
                raise TypeError
        except (ValueError, KeyError, TypeError):
            return _deny(400, 'bad takeover: send {"on": true} or {"on": false}')
        if on:
            self.takeover.begin()
        else:
            await anyio.to_thread.run_sync(self._resumed)
            self.takeover.end()
        self.audit.write("takeover" if on else "continue", viewer=viewer.number)
        self.frames.changes.bump()
        return JSONResponse({"ok": True}, headers=_HEADERS)

    async def invite(self, request: Request) -> Response:
        """A one-time link for another browser (at most MAX_VIEWERS in all)."""
        viewer = self._check(request, post=True)
        if isinstance(viewer, Response):
            return viewer
        link = self.session.invite()
        if link is None:
            return _deny(409, f"{MAX_VIEWERS} viewers already: no more links")
        self.audit.write("invite", viewer=viewer.number)
        return JSONResponse({"url": link}, headers=_HEADERS)

    async def answer(self, request: Request) -> Response:
        viewer = self._check(request, post=True, control=True)
        if isinstance(viewer, Response):
            return viewer
        try:
            body = json.loads(await request.body() or b"{}")
            request_id = int(body["id"])
            value = body["answer"]
        except (ValueError, KeyError, TypeError) as exc:
            return _deny(400, f"bad answer: {exc}; send {{\"id\": N, \"answer\": …}}")
        kind = self.channel.kind_of(request_id)
        if kind == "confirm" and not isinstance(value, bool):
            return _deny(400, "an approval is answered true (approve) or false (reject)")
        if kind == "ask" and not isinstance(value, str):
            return _deny(400, "a question is answered with text")
        if kind == "ask":  # the steps are filed before the agent looks again
            await anyio.to_thread.run_sync(self._resumed)
        if kind is None or not self.channel.answer(request_id, value, by="page",
                                                   viewer=viewer.number):
            return _deny(409, "that request is not open (answered already)")
        return JSONResponse({"ok": True}, headers=_HEADERS)

    async def socket(self, ws: WebSocket) -> None:
        s = self.session
        viewer = s.viewer(ws.cookies.get(COOKIE))
        if not (s.host_ok(ws.headers.get("host")) and s.origin_ok(ws.headers.get("origin"))
                and "token" not in ws.query_params and viewer is not None):
            await ws.close(code=WS_POLICY_VIOLATION)
            return
        if not self.frames.watch(limit=MAX_SOCKETS):
            await ws.close(code=WS_POLICY_VIOLATION)  # too many open pages: refused
            return
        try:
            await ws.accept()
        except Exception:
            self.frames.unwatch()
            raise
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(self._push, ws, viewer)
                try:
                    while True:  # the page sends nothing; this notices it leave
                        await ws.receive_text()
                except WebSocketDisconnect:
                    pass
                group.cancel_scope.cancel()
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            self.frames.unwatch()

    async def _push(self, ws: WebSocket, viewer: Viewer) -> None:
        version, sent_seq, sent_state = -1, 0, ""
        changes = self.frames.changes
        while True:
            version = await anyio.to_thread.run_sync(changes.wait, version, 1.0,
                                                     abandon_on_cancel=True)
            frame = self.frames.latest
            state = json.dumps({"pending": self.channel.pending(), "error": self.frames.error,
                                "run": self.channel.run, "takeover": self.takeover.active,
                                "viewer": viewer.number,
                                "control": self.session.controls(viewer)},
                               ensure_ascii=False)
            if state != sent_state:
                await ws.send_text(state)
                sent_state = state
            if frame is not None and frame.seq != sent_seq:
                await ws.send_bytes(frame.jpeg)
                sent_seq = frame.seq
