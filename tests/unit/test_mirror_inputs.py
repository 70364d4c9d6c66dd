"""Bad input to the mirror is refused with a 4xx, never a 500 (issue 24): bodies are bounded
(413), JSON must be a flat enough object (400), a WebSocket's binary frames are ignored.

Over real uvicorn for the sizes and the socket; straight into the ASGI app for the property
test, so every input the test makes reaches the app unfiltered and any exception shows.
"""

from __future__ import annotations

import http.client
import json
import re
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mirror_doubles import Client, PhoneDouble, asgi_call
from websockets.exceptions import ConnectionClosedError

from omg_agent.hitl.bodies import MAX_BODY, MAX_DEPTH, nesting
from omg_agent.hitl.server import Mirror


@pytest.fixture
def phone() -> PhoneDouble:
    return PhoneDouble()


@pytest.fixture
def client(phone) -> Iterator[Client]:
    with Mirror(phone) as mirror:
        signed_in = Client(mirror)
        signed_in.sign_in()
        yield signed_in


def test_a_10_mb_body_is_413_and_reaches_no_driver(client, phone):
    huge = b'{"text": "' + b"a" * 10_000_000 + b'"}'
    response = client.post("/api/act/type", huge)
    assert response.status == 413 and b"at most 65536" in response.data
    assert phone.executed == []


def test_a_body_over_the_limit_without_a_length_is_413(client, phone):
    conn = http.client.HTTPConnection("127.0.0.1", client.mirror.session.port, timeout=10)
    chunks = (b"x" * 8192 for _ in range(MAX_BODY // 8192 + 2))
    conn.request("POST", "/api/act/type", body=chunks, encode_chunked=True, headers={
        "Host": client.host, "Cookie": client.cookie_header, "X-Mirror-Key": client.key})
    response = conn.getresponse()
    conn.close()
    assert response.status == 413 and phone.executed == []


def test_a_long_typed_text_within_the_limit_is_typed(client, phone):
    text = "买牛奶" * 6000  # 18,000 characters, sent as the page sends them: 54 KB of UTF-8
    body = json.dumps({"text": text}, ensure_ascii=False).encode()
    assert len(body) < MAX_BODY
    assert client.post("/api/act/type", body).status == 200
    assert phone.executed[0].text == text


@pytest.mark.parametrize("body, why", [
    (b"[" * 30_000 + b"]" * 30_000, "nests deeper"),  # a RecursionError before the check
    (b'{"x": ' * 20 + b"1" + b"}" * 20, "nests deeper"),
    (b"[" * 60_000, "nests deeper"),
    (b'{"x": 1', "not JSON"),
    (b"\xff\xfe\xfa", "not JSON"),
    (b'{"x": 1' + b"0" * 5000 + b"}", "not JSON"),  # more digits than an int may have
    (b"[1, 2]", "must be a JSON object"),
    (b'"tap"', "must be a JSON object"),
])
def test_malformed_or_too_deep_json_is_400(client, phone, body, why):
    response = client.post("/api/act/tap", body)
    assert response.status == 400 and why in response.data.decode()
    assert phone.executed == []


def test_brackets_inside_strings_do_not_count_as_nesting():
    assert nesting(b'{"text": "[[[[[[[[[[[[{{{{{{{{\\"]]]"}') == 1
    assert nesting(b"[" * (MAX_DEPTH + 5)) == MAX_DEPTH + 1


def test_a_binary_frame_is_ignored_and_the_socket_still_answers(client, phone):
    with client.socket() as ws:
        first = [ws.recv(timeout=10) for _ in range(2)]
        assert {type(m) for m in first} == {str, bytes}
        ws.send(b"\x00\x01 not text")
        ws.send("and text the page never sends")
        ws.send(b"")
        assert client.post("/api/act/tap", {"x": 1, "y": 1}).status == 200
        phone.shade = 10  # the screen changes: the same socket gets the new frame
        frame = next(m for m in iter(lambda: ws.recv(timeout=10), None)
                     if isinstance(m, bytes))
        assert frame != next(m for m in first if isinstance(m, bytes))


def test_a_frame_over_the_socket_limit_closes_only_that_socket(client):
    with client.socket() as ws:
        ws.recv(timeout=10)
        ws.send(b"x" * (MAX_BODY + 1))
        with pytest.raises(ConnectionClosedError) as closed:
            while True:
                ws.recv(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009  # too big
    with client.socket() as again:  # the mirror still serves
        assert again.recv(timeout=10)


# -- the property: no input makes a 500 -----------------------------------------------------

PATHS = ["/", "/?token=", "/?token=x", "/api/act/tap", "/api/act/long_press", "/api/act/swipe",
         "/api/act/type", "/api/act/key", "/api/act/power", "/api/act/", "/api/answer",
         "/api/tree", "/api/control", "/api/invite", "/api/takeover", "/ws", "//", "/api"]
FIELDS = ["x", "y", "x1", "y1", "x2", "y2", "duration_ms", "text", "key", "id", "answer", "on"]
leaves = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(-10**30, 10**30),
                   st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=40),
                   st.sampled_from(["home", "back", "recents", "power", "yes", ""]))
values = st.recursive(leaves, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=5), inner, max_size=4), max_leaves=12)
bodies = st.one_of(
    st.just(b""),
    st.binary(max_size=300),
    st.dictionaries(st.sampled_from(FIELDS), values, max_size=6).map(
        lambda d: json.dumps(d).encode()),
    values.map(lambda v: json.dumps(v).encode()),
    st.integers(1, 40_000).map(lambda n: b"[" * n + b"]" * n),
    st.integers(MAX_BODY - 10, MAX_BODY + 10).map(lambda n: b" " * n),
)
header_text = st.text(st.characters(min_codepoint=32, max_codepoint=255), max_size=40)


@pytest.fixture(scope="module")
def app() -> Iterator[tuple[object, str, str, str]]:
    """The ASGI app of a mirror (no server) with one signed-in tab: app, host, cookie, key."""
    mirror = Mirror(PhoneDouble())
    host = f"127.0.0.1:{mirror.session.port}"
    link = mirror.url.split(host, 1)[1]
    _, headers, page = asgi_call(mirror.app.asgi, "GET", link, [(b"host", host.encode())])
    cookie = headers[b"set-cookie"].decode().split(";", 1)[0]
    found = re.search(rb'name="mirror-key" content="([^"]+)"', page)
    assert found is not None
    yield mirror.app.asgi, host, cookie, found.group(1).decode()
    mirror.close()


@settings(max_examples=500, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(method=st.sampled_from(["GET", "POST", "PUT", "DELETE", "OPTIONS", "HEAD", "PATCH"]),
       path=st.one_of(st.sampled_from(PATHS), st.text(max_size=30).map(lambda t: "/" + t)),
       credentials=st.sampled_from(["both", "both", "both", "cookie", "key", "none", "wrong"]),
       host=st.sampled_from(["ours", "ours", "evil.example", None]),
       origin=st.sampled_from([None, "ours", "http://evil.example", "null"]),
       length=st.sampled_from([None, "true", "abc", "-1", "0", "99999999999"]),
       extra=st.lists(st.tuples(st.sampled_from(["content-type", "cookie", "x-mirror-key",
                                                 "x-anything", "transfer-encoding"]),
                                header_text), max_size=3),
       body=bodies)
def test_no_request_makes_a_server_error(app, method, path, credentials, host, origin, length,
                                         extra, body):
    asgi, our_host, cookie, key = app
    headers: list[tuple[str, str]] = []
    if host is not None:
        headers.append(("host", our_host if host == "ours" else host))
    if credentials in ("both", "cookie"):
        headers.append(("cookie", cookie))
    if credentials in ("both", "key"):
        headers.append(("x-mirror-key", key))
    if credentials == "wrong":
        headers += [("cookie", cookie + "x"), ("x-mirror-key", key[::-1])]
    if origin is not None:
        headers.append(("origin", f"http://{our_host}" if origin == "ours" else origin))
    if length is not None:
        headers.append(("content-length", str(len(body)) if length == "true" else length))
    headers += extra
    raw = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers]
    status, _, _ = asgi_call(asgi, method, path, raw, body)
    assert status < 500
