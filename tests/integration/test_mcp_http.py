"""``omg-agent mcp --http``: loopback streamable HTTP behind a bearer token (issue 28).

A real server subprocess; requests from httpx2 (the SDK's HTTP client) and the SDK's own
client. A missing or wrong token is refused (401), a foreign Origin is refused (403) even
with the token, and the right token reaches the tools.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).parents[2]
TOKEN = "test-token-" + "x" * 24
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "probe", "version": "0"}}}
ACCEPT = {"Accept": "application/json, text/event-stream"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    env = {**os.environ, "OMG_MCP_TOKEN": TOKEN, "XDG_RUNTIME_DIR": str(tmp_path),
           "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "omg_agent.cli", "mcp", "--http", str(port),
                             "--device", "emulator-5554", "--runs-dir", str(tmp_path / "runs")],
                            env=env, cwd=tmp_path,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:  # until the port answers (or the server died)
            assert proc.poll() is None, proc.communicate()[1]
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert time.monotonic() < deadline, "the server never listened"
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
        assert TOKEN not in err  # a token from the environment is never printed


def post(url: str, headers: dict[str, str]) -> httpx2.Response:
    return httpx2.post(url, json=INIT, headers={**ACCEPT, **headers}, timeout=30)


def test_http_refuses_a_missing_or_wrong_token_and_a_foreign_origin(served: str) -> None:
    missing = post(served, {})
    wrong = post(served, {"Authorization": "Bearer " + "y" * 35})
    foreign = post(served, {"Authorization": f"Bearer {TOKEN}",
                            "Origin": "http://evil.example"})
    assert missing.status_code == 401 and "token" in missing.json()["error"]
    assert wrong.status_code == 401
    assert foreign.status_code == 403 and "Origin" in foreign.json()["error"]


def test_http_with_the_token_serves_the_tools(served: str) -> None:
    async def tools() -> set[str]:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30)
        async with http, Client(streamable_http_client(served, http_client=http)) as client:
            return {t.name for t in (await client.list_tools()).tools}

    assert {"observe", "tap", "run_task"} <= anyio.run(tools)
