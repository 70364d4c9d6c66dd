"""Durable writes: whole files replaced atomically, append-only logs whose torn last line is
cut off before anything is appended again, and the stores that use them."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from omg_agent.brain.memory import MemoryBank
from omg_agent.durable import append_line, repair_tail, write_atomic
from omg_agent.trace.loader import load_trace
from omg_agent.trace.recorder import TRACE_FILE, TraceRecorder


def test_an_atomic_write_replaces_the_file_and_leaves_no_temp_behind(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    write_atomic(target, '{"v": 1}')
    write_atomic(target, b'{"v": 2}')
    assert json.loads(target.read_text()) == {"v": 2}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]


def test_a_failed_atomic_write_keeps_the_old_file_and_cleans_its_temp(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    write_atomic(target, "old")
    try:
        write_atomic(target, 12)  # type: ignore[arg-type]  # not text nor bytes
    except TypeError:
        pass
    else:
        raise AssertionError("writing an int must fail")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]


def test_repair_cuts_only_a_torn_last_line(tmp_path: Path) -> None:
    log = tmp_path / "t.jsonl"
    append_line(log, '{"a":1}')
    append_line(log, '{"a":2}')
    assert repair_tail(log) == 0  # whole lines stay
    with log.open("ab") as fh:
        fh.write(b'{"a":3, "torn')
    assert repair_tail(log) == len(b'{"a":3, "torn')
    assert log.read_text() == '{"a":1}\n{"a":2}\n'
    assert repair_tail(tmp_path / "missing.jsonl") == 0


def test_a_resumed_trace_drops_the_line_a_kill_tore_and_goes_on(tmp_path: Path) -> None:
    run = tmp_path / "run"
    with TraceRecorder(run, task="t") as rec:
        rec.record_event("tick", counter=1)
        rec.finished = True  # killed: no finish line
    with (run / TRACE_FILE).open("ab") as fh:
        fh.write(b'{"record":"event","kind":"tick","data":{"coun')
    with TraceRecorder(run, task="t", resume=True) as rec:
        rec.record_event("tick", counter=2)
    trace = load_trace(run)
    assert not trace.warnings
    assert [e.data.get("counter") for e in trace.events if e.kind == "tick"] == [1, 2]
    assert trace.result is not None and trace.result["status"] == "failed"  # the documented word


def test_a_trace_under_a_checkpoint_syncs_per_turn_and_still_loses_no_line(
        tmp_path: Path) -> None:
    run = tmp_path / "run"
    with TraceRecorder(run, task="t") as rec:
        rec.sync_each = False
        for n in range(3):
            rec.record_event("tick", counter=n)
        rec.sync()
    lines = (run / TRACE_FILE).read_text().splitlines()
    assert [json.loads(x).get("data", {}).get("counter") for x in lines[1:4]] == [0, 1, 2]


def test_the_memory_bank_file_is_wal_with_full_sync(tmp_path: Path) -> None:
    path = tmp_path / "memory.sqlite"
    with MemoryBank(path, "r1") as bank:
        bank.save("price", "¥99")
        assert bank._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    db = sqlite3.connect(path)
    try:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        db.close()
    with MemoryBank(path, "r1") as again:
        assert again.get("price") == "¥99"


def test_write_atomic_is_the_only_whole_file_replace_in_the_package() -> None:
    """One rule, one place: a file renamed over another anywhere else is a second copy."""
    import re

    import omg_agent

    root = Path(omg_agent.__file__).parent
    rename = re.compile(r"\bos\.replace\(|\bos\.rename\(|\.rename\(|\bmkstemp\(|"
                        r"with_suffix\(\"\.tmp\"\)|\.replace\((?:path|target|dest)\)")
    found = [f"{path.relative_to(root)}:{n}" for path in sorted(root.rglob("*.py"))
             if path.name != "durable.py"
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if rename.search(line.split("#", 1)[0])]
    assert found == []
