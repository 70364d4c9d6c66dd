"""Frames: made only when the screen changes, polled only while someone watches, at most
five viewers, each of which gets every change (issue 16)."""

from __future__ import annotations

import http.client
import json
import threading
from contextlib import ExitStack

from mirror_doubles import Client, PhoneDouble

from omg_agent.hitl.frames import Changes, FrameSource
from omg_agent.hitl.security import MAX_VIEWERS
from omg_agent.hitl.server import Mirror


def test_a_static_screen_makes_one_frame_and_a_change_makes_the_next():
    phone = PhoneDouble()
    source = FrameSource(phone, Changes())
    assert source.poll_once() is True
    first = source.latest
    assert first is not None and first.jpeg[:2] == b"\xff\xd8"  # a JPEG
    assert source.poll_once() is False and source.poll_once() is False
    assert source.latest is first and source.changes.version == 1
    phone.shade = 200
    assert source.poll_once() is True
    assert source.latest.seq == 2 and source.latest.digest != first.digest


def test_the_poller_runs_only_while_someone_watches():
    phone = PhoneDouble()
    source = FrameSource(phone, Changes(), poll_s=0.01)
    assert source._thread is None  # nobody watches: the device is not touched
    assert source.watch()
    source.changes.wait(0, 10)
    thread = source._thread
    assert thread is not None and thread.is_alive() and source.latest is not None
    source.unwatch()
    thread.join(10)
    assert not thread.is_alive()
    assert source.watch() and source._thread is not thread  # a new viewer: a new poller
    source.close()


def test_a_failing_screenshot_is_reported_not_raised():
    class Broken(PhoneDouble):
        def screenshot(self):
            raise OSError("device offline")

    source = FrameSource(Broken(), Changes())
    assert source.poll_once() is False and source.error == "device offline"


def _post_json(client: Client, path: str) -> dict:
    conn = http.client.HTTPConnection("127.0.0.1", client.mirror.session.port, timeout=10)
    conn.request("POST", path, body=b"{}", headers={
        "Host": client.host, "Cookie": client.cookie_header,
        "X-Mirror-Key": client.key, "Content-Type": "application/json"})
    response = conn.getresponse()
    body = response.read()
    conn.close()
    return {"status": response.status, **(json.loads(body) if response.status == 200 else {})}


def test_five_viewers_each_get_every_change_and_a_sixth_is_refused():
    phone = PhoneDouble()
    with Mirror(phone) as mirror:
        first = Client(mirror)
        first.sign_in()
        viewers = [first]
        for _ in range(MAX_VIEWERS - 1):  # each further browser signs in with an invite
            invited = _post_json(first, "/api/invite")
            viewer = Client(mirror)
            assert viewer.sign_in(invited["url"]).status == 200
            viewers.append(viewer)
        assert _post_json(first, "/api/invite")["status"] == 409  # a sixth: no link
        assert len({v.cookie for v in viewers}) == MAX_VIEWERS
        with ExitStack() as stack:
            sockets = [stack.enter_context(v.socket()) for v in viewers]
            received: list[list[bytes]] = [[] for _ in sockets]

            def read_frames(i: int, want: int) -> None:
                while len(received[i]) < want:
                    message = sockets[i].recv(timeout=20)
                    if isinstance(message, bytes):
                        received[i].append(message)

            for i in range(len(sockets)):
                read_frames(i, 1)
            phone.shade = 30  # the screen changes: every viewer gets the new frame
            readers = [threading.Thread(target=read_frames, args=(i, 2))
                       for i in range(len(sockets))]
            for reader in readers:
                reader.start()
            for reader in readers:
                reader.join(30)
            assert all(len(r) == 2 and r[0] != r[1] for r in received)


def test_one_viewer_controls_at_a_time_and_control_can_be_taken():
    phone = PhoneDouble()
    with Mirror(phone) as mirror:
        first, second = Client(mirror), Client(mirror)
        first.sign_in()
        second.sign_in(_post_json(first, "/api/invite")["url"])
        tap = {"x": 100, "y": 100}
        assert second.post("/api/act/tap", tap).status == 409  # watching
        assert second.post("/api/act/tap", tap, key=first.key).status == 401  # not its key
        assert first.post("/api/act/tap", tap).status == 200
        assert _post_json(second, "/api/control")["status"] == 200
        assert first.post("/api/act/tap", tap).status == 409
        assert second.post("/api/act/tap", tap).status == 200
        with second.socket() as ws:
            state = json.loads(next(m for m in iter(lambda: ws.recv(timeout=10), None)
                                    if isinstance(m, str)))
        assert state["control"] is True and state["viewer"] == 2
        actions = [(e["action"], e.get("viewer", e.get("cookie_of")))
                   for e in mirror.audit.entries]
    assert len(phone.executed) == 2
    assert actions == [("sign_in", 1), ("invite", 1), ("sign_in", 2),
                       ("refused", 2),  # viewer 2's cookie with viewer 1's key
                       ("tap", 1), ("take_control", 2), ("tap", 2)]
