"""The mirror's audit log keeps the order actions were received in, not the order they
finished (issue 26: a slow drag was logged after the long press that followed it)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from mirror_doubles import Client, PhoneDouble

from omg_agent.hitl.audit import AuditLog
from omg_agent.hitl.server import Mirror


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


class SlowFirstRefresh:
    """The mirror's frame source with the first gesture's screen refresh held until
    ``release`` is set: that gesture finishes after the one sent behind it."""

    def __init__(self, changes: Any) -> None:
        self.changes = changes
        self.release = threading.Event()
        self.refreshes = 0

    def poll_once(self) -> bool:
        self.refreshes += 1
        if self.refreshes == 1:
            assert self.release.wait(10), "the second gesture never finished"
        return True


class NotingPhone(PhoneDouble):
    def __init__(self) -> None:
        super().__init__()
        self.acted = threading.Event()

    def execute(self, actions, observation=None, *, review=None):
        result = super().execute(actions, observation)
        self.acted.set()
        return result


def test_a_drag_that_finishes_last_is_still_audited_before_the_press_sent_after_it() -> None:
    phone = NotingPhone()
    with Mirror(phone) as mirror:
        frames = SlowFirstRefresh(mirror.frames.changes)
        mirror.app.frames = frames  # type: ignore[assignment]  # the slow screen, not the audit
        client = Client(mirror)
        client.sign_in()
        drag = threading.Thread(target=client.post, args=(
            "/api/act/swipe", {"x1": 500, "y1": 800, "x2": 500, "y2": 300}))
        drag.start()
        assert phone.acted.wait(10)  # the drag reached the phone; its refresh is held
        assert client.post("/api/act/long_press", {"x": 250, "y": 600}).status == 200
        frames.release.set()
        drag.join(10)
        actions = [e["action"] for e in mirror.audit.entries]
    assert actions == ["sign_in", "swipe", "long_press"]
    assert [type(a).__name__ for a in phone.executed] == ["Swipe", "LongPress"]
