"""Several clients starting one adb server at once all end up with it (issue: reliability).

Two test workers, or two commands in two shells, each run ``adb start-server``; the real
adb spawns a server per client and the loser's client fails with "cannot connect to
daemon" although a server is up. ``adbhost.ensure_server`` asks again.
"""

from __future__ import annotations

import concurrent.futures as cf
import socket

import pytest

from omg_agent.errors import AdbNotFound
from omg_agent.vphone import adbhost


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_four_clients_starting_one_server_at_once_all_succeed():
    try:
        adbhost.adb_path()
    except AdbNotFound as exc:
        pytest.skip(str(exc))
    for _ in range(3):
        port = _free_port()
        try:
            with cf.ThreadPoolExecutor(4) as pool:
                results = [pool.submit(adbhost.ensure_server, port) for _ in range(4)]
                errors = [f.exception() for f in results]
            assert errors == [None] * 4, [str(e).splitlines()[-1] for e in errors if e]
            with socket.create_connection(("127.0.0.1", port), timeout=5):
                pass
        finally:
            adbhost.kill_server(port)
