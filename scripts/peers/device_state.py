"""What a peer's call did, read from the vphone itself (its state provider), for the call
scripts that run in a peer's own venv: imports nothing of omg_agent or of any peer."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

STATE_URI = "content://omg.vphone/state"
NOTES = "com.omg.notes"


class DeviceState:
    """Reads through ``shell`` (the peer's own way to run ``adb shell``)."""

    def __init__(self, shell: Callable[[str], str]) -> None:
        self.shell = shell

    def state(self) -> dict[str, Any]:
        return json.loads(self.shell(f"content query --uri {STATE_URI}").split("state=", 1)[1])

    def foreground(self, package: str, activity: str | None = None) -> str | None:
        """None when ``package`` (and ``activity``) is in front, else what is."""
        st = self.state()
        if st["foreground"] != package or (activity and st["activity"] != activity):
            return f"foreground is {st['foreground']}/{st['activity']}"
        return None

    def draft(self, field: str, want: str) -> str | None:
        """None when the Notes draft's ``field`` reads ``want``, else what it reads."""
        got = (self.state()["apps"][NOTES]["draft"] or {}).get(field)
        return None if got == want else f"the note's {field} reads {got!r}"
