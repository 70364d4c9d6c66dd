"""Reading the u2 server's HTTP/JSON-RPC answers: results, JSON-RPC errors, broken replies."""

from __future__ import annotations

import json

import pytest

from omg_agent.drivers.u2wire import U2Wire
from omg_agent.errors import U2RpcError, U2ServerGone

WIRE = U2Wire(client=None, serial="SERIAL")  # type: ignore[arg-type]  # _result needs no I/O


def _reply(payload: object, *, status: str = "200 OK", chunked: bool = False) -> bytes:
    body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    if chunked:
        half = len(body) // 2
        framed = b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (body[:half],
                                                                             body[half:]))
        return (f"HTTP/1.1 {status}\r\nTransfer-Encoding: chunked\r\n\r\n".encode()
                + framed + b"0\r\n\r\n")
    return (f"HTTP/1.1 {status}\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)


def test_a_result_comes_back_decoded() -> None:
    reply = _reply({"jsonrpc": "2.0", "id": 1, "result": "<hierarchy>中文</hierarchy>"})
    assert WIRE._result(reply, "dumpWindowHierarchy") == "<hierarchy>中文</hierarchy>"


def test_a_chunked_answer_is_reassembled() -> None:
    reply = _reply({"jsonrpc": "2.0", "id": 1, "result": {"a": [1, 2, 3]}}, chunked=True)
    assert WIRE._result(reply, "deviceInfo") == {"a": [1, 2, 3]}


def test_a_json_rpc_error_names_the_method_serial_and_code() -> None:
    reply = _reply({"jsonrpc": "2.0", "id": 1,
                    "error": {"code": -32001, "message": "UiObjectNotFoundException"}})
    with pytest.raises(U2RpcError, match="SERIAL: u2 click: UiObjectNotFound") as info:
        WIRE._result(reply, "click")
    assert info.value.code == -32001 and info.value.command == "click"


@pytest.mark.parametrize("reply", [b"", b"garbage", _reply({}, status="500 Server Error")])
def test_no_usable_http_answer_means_the_server_is_gone(reply: bytes) -> None:
    with pytest.raises(U2ServerGone):
        WIRE._result(reply, "deviceInfo")
