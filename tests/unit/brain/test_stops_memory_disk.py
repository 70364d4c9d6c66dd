"""A memory store the disk refuses is disk trouble, not a device's or the store's fault
(issue 38 item 4): full (ENOSPC) or read-only (EROFS) mid-run, the write raises
:class:`DiskTrouble` — which ends a run ``interrupted``, exit 8 — where it raised
``MemoryBankError`` (a failed turn, "DEVICE_ERROR … check the device connection").
A real SQLite file on a real small tmpfs (root only: skipped where mounting is refused)."""

from __future__ import annotations

import errno
import subprocess
from pathlib import Path

import pytest

from omg_agent.bench.diskfull import can_mount, fill, small_disk
from omg_agent.brain.memory import MemoryBank
from omg_agent.errors import DiskTrouble, MemoryBankError

pytestmark = pytest.mark.skipif(not can_mount(), reason="mounting a tmpfs is not permitted")


def test_a_store_whose_disk_fills_mid_run_raises_disk_trouble(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk", 256) as disk:
        bank = MemoryBank(disk / "memory.sqlite", "run-1")
        bank.save("price", "12")
        fill(disk)
        with pytest.raises(DiskTrouble) as caught:
            for n in range(200):  # the WAL grows until the disk says no
                bank.save(f"k{n}", "x" * 2000)
        bank.close()
    assert caught.value.cause.errno == errno.ENOSPC
    assert "memory.sqlite" in str(caught.value)


def test_a_store_on_a_read_only_disk_is_disk_trouble_when_opened(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk", 64) as disk:
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        with pytest.raises(DiskTrouble) as caught:
            MemoryBank(disk / "memory.sqlite", "run-1")
    assert caught.value.cause.errno == errno.EROFS


def test_a_bad_key_is_still_the_store_s_own_error(tmp_path: Path) -> None:
    with MemoryBank(tmp_path / "memory.sqlite", "run-1") as bank, \
            pytest.raises(MemoryBankError):
        bank.save("not a key!", "x")
