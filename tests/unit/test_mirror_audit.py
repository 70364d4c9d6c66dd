"""The mirror's audit log keeps the order actions were received in, not the order they
finished (issue 26: a slow drag was logged after the long press that followed it)."""

from __future__ import annotations

import json
from pathlib import Path

from omg_agent.hitl.audit import AuditLog


def test_an_action_that_finishes_first_waits_for_the_one_received_before_it(
        tmp_path: Path) -> None:
    seen: list[str] = []
    log = AuditLog(tmp_path / "audit.jsonl", sink=lambda e: seen.append(e["action"]))
    with log.place() as drag, log.place() as press:
        press.write("long_press", ok=True)
        assert log.entries == []  # held back: the drag came first
        drag.write("swipe", ok=True)
    assert [e["action"] for e in log.entries] == ["swipe", "long_press"]
    assert seen == ["swipe", "long_press"]
    lines = (tmp_path / "audit.jsonl").read_text().splitlines()
    assert [json.loads(line)["action"] for line in lines] == ["swipe", "long_press"]


def test_a_place_given_up_without_an_entry_does_not_hold_the_log_back() -> None:
    log = AuditLog()
    try:
        with log.place():
            log.write("sign_in")  # received later: waits for the place above
            assert log.entries == []
            raise RuntimeError("the request failed before its entry")
    except RuntimeError:
        pass
    assert [e["action"] for e in log.entries] == ["sign_in"]
