"""Recording a Mac app's AX tree as a test fixture, on the Mac that shows it.

``python -m omg_agent.drivers.desktop.mac_ax_record textedit.json`` waits three seconds
(bring the app to the front), then writes the frontmost app's tree as
:func:`~.mac_ax.read_app` reads it — the fixture format of ``tests/desktop/fixtures``
(``screen_points``, ``backing_scale``, ``app``, ``tree``), which :class:`~.mac_ax.RecordedAX`
answers from. A secure text field's value is dropped as it is read (:mod:`.mac_ax`). The fixtures in
the repository were written by hand; recordings made this way are what the tests should
grow from once someone runs this on a Mac.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from omg_agent.drivers.desktop.mac_adapter import AppRef
from omg_agent.drivers.desktop.mac_ax import AXApi, as_json, read_app


def recording(api: AXApi, app: AppRef, screen_points: tuple[float, float],
              scale: float) -> dict[str, Any]:
    """The fixture of ``app``'s AX tree now (``tree`` is null when it shows no window)."""
    tree = read_app(api, app.pid, app.name)
    return {"source": "recorded on a Mac by omg_agent.drivers.desktop.mac_ax_record",
            "screen_points": list(screen_points), "backing_scale": scale,
            "app": {"name": app.name, "pid": app.pid, "bundle_id": app.bundle_id},
            "tree": as_json(tree) if tree is not None else None}


def main(argv: Sequence[str] | None = None) -> int:  # pragma: no cover - needs macOS
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m omg_agent.drivers.desktop.mac_ax_record OUT.json",
              file=sys.stderr)
        return 2
    from omg_agent.drivers.desktop.mac_adapter import QuartzAdapter

    adapter = QuartzAdapter()
    time.sleep(3)
    app = adapter.frontmost_app()
    if app is None:
        print("no frontmost app", file=sys.stderr)
        return 1
    doc = recording(adapter.ax, app, adapter.screen_size_points(), adapter.backing_scale())
    Path(args[0]).write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n",
                             encoding="utf-8")
    print(f"wrote {args[0]}: {app.name}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
