"""The vphone's in-memory file system keeps what a write gave it, and an append to a file
never reaches the bytes another write or a reader holds."""

from __future__ import annotations

from omg_agent.vphone.memfs import MemFS


def test_appends_go_to_the_file_only() -> None:
    fs = MemFS()
    fs.mkdir("/sdcard", parents=True)
    given = bytes(4)
    fs.write("/sdcard/a.bin", given)
    before = fs.read("/sdcard/a.bin")
    fs.write("/sdcard/a.bin", b"xy", append=True)
    assert fs.read("/sdcard/a.bin") == bytes(4) + b"xy"
    assert given == bytes(4) and before == bytes(4)  # neither the writer's nor the reader's
    fs.write("/sdcard/a.bin", b"z", append=True)
    assert fs.read("/sdcard/a.bin") == bytes(4) + b"xyz"
    fs.write("/sdcard/b.txt", bytearray(b"ok"))
    assert fs.read("/sdcard/b.txt") == b"ok" and fs.stat("/sdcard/b.txt").size == 2
