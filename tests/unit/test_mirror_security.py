"""The mirror's security, against a real uvicorn server on loopback (issues 16 and 24).

A driver double stands behind the Driver interface (screenshot + execute): what is tested is
the server's gatekeeping, so every refusal is also checked to have reached no driver.
"""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Iterator

import pytest
from mirror_doubles import Client, PhoneDouble
from websockets.exceptions import InvalidStatus

from omg_agent.errors import MirrorError
from omg_agent.guards.confirmation import ConfirmationRequest
from omg_agent.hitl.security import check_bind
from omg_agent.hitl.server import Mirror
from omg_agent.hitl.tree import MASK


@pytest.fixture
def phone() -> PhoneDouble:
    return PhoneDouble()


@pytest.fixture
def client(phone) -> Iterator[Client]:
    with Mirror(phone) as mirror:
        yield Client(mirror)


def test_first_load_trades_the_token_for_a_port_named_cookie_and_a_key_in_the_page(client):
    response = client.sign_in()
    assert response.status == 200 and client.key and client.key in response.data.decode()
    flags = response.getheader("Set-Cookie")
    assert flags.startswith(f"omg_mirror_{client.mirror.session.port}=")
    assert "HttpOnly" in flags and "SameSite=Strict" in flags
    assert response.getheader("Cache-Control") == "no-store"
    assert "frame-ancestors 'none'" in response.getheader("Content-Security-Policy")
    assert response.getheader("Access-Control-Allow-Origin") is None
    reload = client.request("GET", "/", key=False)  # a reload: the cookie only
    assert reload.status == 200 and client.key not in reload.data.decode()


def test_no_token_is_401_everywhere(client, phone):
    assert client.request("GET", "/").status == 401
    assert client.post("/api/act/tap", {"x": 1, "y": 1}, key="x").status == 401
    with pytest.raises(InvalidStatus):
        client.socket(cookie=False)
    assert phone.executed == []


def test_wrong_token_is_401(client):
    assert client.request("GET", "/?token=guess").status == 401


def test_token_in_a_query_string_after_the_first_load_is_refused(client, phone):
    token = client.mirror.session.token
    client.sign_in()
    assert client.request("GET", f"/?token={token}", cookie=False).status == 401
    assert client.request("GET", f"/?token={token}").status == 401  # even with the cookie
    assert client.post(f"/api/act/tap?token={token}", {"x": 1, "y": 1}).status == 401
    with pytest.raises(InvalidStatus):
        client.socket(path=f"/ws?token={token}")
    assert phone.executed == []


def test_forged_host_is_rejected(client, phone):
    client.sign_in()
    forged = {"Host": f"evil.example:{client.mirror.session.port}"}
    assert client.request("GET", "/", headers=forged).status == 400
    fresh = Mirror(PhoneDouble()).start()
    try:
        path = fresh.url.split(str(fresh.session.port), 1)[1]
        other = Client(fresh)
        assert other.request("GET", path, headers={"Host": "rebind.example"}).status == 400
        assert fresh.session.redeemed is False  # a rebinding page cannot spend the token
    finally:
        fresh.close()
    assert client.post("/api/act/tap", {"x": 1, "y": 1}, headers=forged).status == 400
    assert phone.executed == []


def test_foreign_origin_on_the_websocket_is_rejected(client):
    client.sign_in()
    with pytest.raises(InvalidStatus):
        client.socket(origin="http://evil.example")
    with client.socket() as ws:  # the page's own origin is let in and gets a frame
        kinds = {type(ws.recv(timeout=10)) for _ in range(2)}
    assert kinds == {str, bytes}


def test_post_without_its_key_is_401(client, phone):
    client.sign_in()
    assert client.post("/api/act/tap", {"x": 500, "y": 500}, key=False).status == 401
    assert client.post("/api/act/tap", {"x": 500, "y": 500}, key="wrong").status == 401
    assert client.post("/api/answer", {"id": 1, "answer": "x"}, key=False).status == 401
    assert phone.executed == []
    ok = client.post("/api/act/tap", {"x": 500, "y": 500})
    assert ok.status == 200 and len(phone.executed) == 1


def test_post_from_a_foreign_origin_is_rejected(client, phone):
    client.sign_in()
    response = client.post("/api/act/tap", {"x": 1, "y": 1},
                           headers={"Origin": "http://evil.example"})
    assert response.status == 403 and phone.executed == []


def test_no_cors_preflight_is_granted(client):
    client.sign_in()
    response = client.request("OPTIONS", "/api/act/tap", headers={
        "Origin": "http://evil.example", "Access-Control-Request-Method": "POST"})
    assert response.getheader("Access-Control-Allow-Origin") is None
    assert response.status >= 400


def test_binding_a_non_loopback_address_needs_the_flag():
    with pytest.raises(MirrorError, match="--allow-remote"):
        Mirror(PhoneDouble(), host="0.0.0.0")
    with pytest.raises(MirrorError, match="refusing"):
        check_bind("192.168.1.20", False)
    assert "WARNING" in (check_bind("0.0.0.0", True) or "")
    assert check_bind("127.0.0.1", False) is None and check_bind("::1", False) is None


def test_every_human_action_is_audited_without_typed_text(client, phone):
    client.sign_in()
    client.post("/api/act/tap", {"x": 10, "y": 20})
    client.post("/api/act/type", {"text": "hunter2"})
    client.post("/api/act/key", {"key": "home"})
    bad = client.post("/api/act/key", {"key": "power"})
    entries = client.mirror.audit.entries[1:]  # after the sign-in
    assert client.mirror.audit.entries[0] == {**client.mirror.audit.entries[0],
                                              "action": "sign_in", "viewer": 1}
    assert [e["action"] for e in entries] == ["tap", "type", "key"]
    assert entries[0]["x"] == 10 and entries[1]["chars"] == 7
    assert "hunter2" not in json.dumps(entries)
    assert bad.status == 400 and len(phone.executed) == 3


def test_an_approval_is_answered_by_post_with_a_boolean_once(client):
    client.sign_in()
    channel = client.mirror.channel
    out: list[bool | None] = []
    request = ConfirmationRequest("payment", "tap 'Pay now'", "it pays")
    thread = threading.Thread(target=lambda: out.append(channel.confirm(request)))
    thread.start()
    version = channel.changes.version
    while not channel.pending():
        version = channel.changes.wait(version, 10)
    [pending] = channel.pending()
    assert client.post("/api/answer", {"id": pending["id"], "answer": "yes"}
                       ).status == 400  # a typed "yes" is not an approval
    assert client.post("/api/answer", {"id": pending["id"], "answer": False}).status == 200
    thread.join(10)
    assert out == [False]
    assert client.post("/api/answer", {"id": pending["id"], "answer": True}
                       ).status == 409  # settled already


def test_the_tree_needs_the_key_and_masks_password_fields(client):
    assert client.request("GET", "/api/tree").status == 401
    client.sign_in()
    conn = http.client.HTTPConnection("127.0.0.1", client.mirror.session.port, timeout=10)
    conn.request("GET", "/api/tree", headers={"Host": client.host, "Cookie": client.cookie_header,
                                              "X-Mirror-Key": client.key})
    response = conn.getresponse()
    body = json.loads(response.read())
    conn.close()
    user, password = body["elements"]
    assert response.status == 200 and user["text"] == "demo"
    assert password["text"] == MASK and "hunter2" not in json.dumps(body)
    assert user["x1"] == round(10 * 1000 / 108) and user["y2"] == round(60 * 1000 / 240)
