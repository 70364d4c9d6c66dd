"""Whose phone it is (issue 37): ``fleet resources`` offers this user's phones, not every
phone the machine's shared adb server sees. Ownership is read from the kernel's TCP tables
(the uid of the process listening on the phone's port)."""

from __future__ import annotations

import os
import socket
from pathlib import Path

from omg_agent.fleet.owners import listener_uid, owner_of, split_by_owner

HEADER = ("  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid"
          "  timeout inode\n")


def _table(tmp_path: Path, rows: list[tuple[int, str, int]]) -> Path:
    """A /proc/net/tcp-format table: (port, state, uid) per socket."""
    lines = [f"   {i}: 0100007F:{port:04X} 00000000:0000 {state} 00000000:00000000 "
             f"00:00000000 00000000  {uid}        0 {1000 + i} 1 0 100 0 0 10 0"
             for i, (port, state, uid) in enumerate(rows)]
    path = tmp_path / "tcp"
    path.write_text(HEADER + "\n".join(lines) + "\n")
    return path


def test_a_listening_socket_of_ours_is_ours() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        assert listener_uid(port) == os.getuid()
        assert owner_of(f"127.0.0.1:{port}") == os.getuid()
        assert owner_of(f"localhost:{port}") == os.getuid()


def test_phones_split_into_mine_unknown_and_other_users(tmp_path: Path) -> None:
    me = os.getuid()
    table = _table(tmp_path, [(5555, "0A", me), (6800, "0A", me + 4242),
                              (7000, "01", me + 4242)])  # 01: a connection, not a listener
    mine, unknown, others = split_by_owner(
        ["127.0.0.1:5555", "emulator-6799", "R58M123ABC", "127.0.0.1:7000"],
        uid=me, tables=[table])
    assert mine == ["127.0.0.1:5555"]
    assert unknown == ["R58M123ABC", "127.0.0.1:7000"]
    assert list(others) == ["emulator-6799"]  # its adbd listens on 6800: another user's
    assert others["emulator-6799"]  # named by the user's login name (or uid N)


def test_unreadable_tables_mean_unknown(tmp_path: Path) -> None:
    assert listener_uid(5555, [tmp_path / "absent"]) is None
