"""``omg-agent bench desktop``: the accessibility tree vs OCR on real desktop apps.

Each app of :data:`APPS` runs in a private session (Xvfb 1280x1024, a session bus, the
accessibility bus: :mod:`omg_agent.drivers.desktop.atspi_session`) and is observed by the
desktop driver twice over: tree first (what the driver does) and OCR only (the driver
before the tree, ``X11Backend(tree=False)``). Per app the table gives:

* ``hand`` — the things a person names on the screen (controls, labels, the display),
  counted by hand from a screenshot of the app (the counts in :data:`APPS`);
* ``tree`` / ``ocr`` — labelled elements the two element lists hold;
* ``anchors`` — the app's controls asked for by name (``text=7``, ``text=Save``): the
  truth is the control's box in the tree (checked against the screenshot by hand); an
  anchor is *wrong* when it resolves outside that box and *missed* when it does not
  resolve;
* ``ms first / next look`` — the time of one observation (screenshot, tree or OCR, hash):
  the first look at the app, then the median of ``runs`` looks at the unchanged screen
  (OCR re-reads only what changed, :mod:`omg_agent.drivers.desktop.screenread`).

The Tk test app has no tree (Tk has no AT-SPI bridge): its row shows the OCR fallback.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omg_agent.core.actions import AnchorTarget
from omg_agent.core.observation import Observation, UIElement
from omg_agent.drivers.desktop import atspi_session as session
from omg_agent.drivers.desktop.driver import DesktopDriver
from omg_agent.drivers.desktop.x11 import X11Backend
from omg_agent.errors import OmgError
from omg_agent.perception.anchor import Anchorer


@dataclass(frozen=True)
class App:
    name: str
    argv: tuple[str, ...]
    hand: int  # things a person names in the screenshot, counted by hand
    anchors: tuple[str, ...] = ()  # controls asked for by name
    keys: tuple[str, ...] = ()  # pressed once the app shows (opens a dialog)


CALC_BUTTONS = ("C", "AC", "<-", "(", ")", "MS", "MR", "M+", "7", "8", "9", "/", "sqrt",
                "4", "5", "6", "*", "%", "1", "2", "3", "-", "=", "0", ".", "+/-", "+")
APPS = (
    App("galculator", ("galculator",), 33, CALC_BUTTONS + ("File", "Edit", "View",
                                                          "Calculator", "Help")),
    App("mousepad", ("mousepad", "--disable-server"), 8,
        ("File", "Edit", "Search", "View", "Document", "Help")),
    App("save dialog (GTK)", ("mousepad", "--disable-server"), 28,
        ("Cancel", "Save", "Home", "Desktop", "Other Locations", "Text Files",
         "Default (UTF-8)", "Size", "Type", "Modified"), keys=("ctrl", "s")),
    App("Tk test app", (sys.executable, "-m", "omg_agent.drivers.desktop.testapp",
                        "--state"), 13),
)


@dataclass
class Row:
    app: str
    hand: int
    tree: int = 0
    ocr: int = 0
    anchors: int = 0
    tree_wrong: int = 0
    tree_missed: int = 0
    ocr_wrong: int = 0
    ocr_missed: int = 0
    tree_first_ms: float = 0.0
    tree_ms: float = 0.0
    ocr_first_ms: float = 0.0
    ocr_ms: float = 0.0
    notes: list[str] = field(default_factory=list)


def _labelled(obs: Observation) -> int:
    return sum(1 for e in obs.elements if e.text or e.desc or e.hint or e.editable)


def _median_ms(look: Callable[[], Observation], runs: int
               ) -> tuple[Observation, float, float]:
    """The last look, the first look's ms (OCR reads the whole window then, the tree finds
    its app on the bus) and the median ms of the ``runs`` looks after it (OCR re-reads
    only what changed: nothing, on a still screen)."""
    t0 = time.perf_counter()
    obs = look()
    first = (time.perf_counter() - t0) * 1000
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        obs = look()
        times.append(time.perf_counter() - t0)
    return obs, first, statistics.median(times) * 1000


def _truth(obs: Observation, name: str) -> UIElement | None:
    return next((e for e in obs.elements if e.text == name and e.clickable), None)


def _anchor(anchorer: Anchorer, obs: Observation, name: str, truth: UIElement) -> str:
    """"ok", "wrong" or "missed" for ``text=name`` on ``obs``."""
    try:
        hit = anchorer.resolve(AnchorTarget(text=name), obs)
    except OmgError:
        return "missed"
    return "ok" if truth.bounds.contains(hit.point) else "wrong"


def score(row: Row, names: Sequence[str], anchorer: Anchorer, tree_obs: Observation,
          ocr_obs: Observation) -> None:
    """Count ``row``'s anchors: each name's truth is its clickable element in the tree."""
    for name in names:
        truth = _truth(tree_obs, name)
        if truth is None:
            row.notes.append(f"no {name!r} in the tree")
            continue
        row.anchors += 1
        for which, obs in (("tree", tree_obs), ("ocr", ocr_obs)):
            verdict = _anchor(anchorer, obs, name, truth)
            if verdict != "ok":
                key = f"{which}_{verdict}"
                setattr(row, key, getattr(row, key) + 1)


@contextmanager
def _desktop(home: Path) -> Iterator[tuple[str, dict[str, str]]]:
    xvfb, display = session.start_xvfb()
    bus, env = session.start_session_bus(display, home)
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield display, env
    finally:
        for k, v in saved.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
        session.stop(bus)
        session.stop(xvfb)


def _measure(app: App, display: str, env: dict[str, str], home: Path, runs: int,
             ocr: Any) -> Row:
    tree_backend, ocr_backend = X11Backend(display), X11Backend(display, tree=False)
    tree_driver = DesktopDriver(tree_backend, ocr=ocr)
    ocr_driver = DesktopDriver(ocr_backend, ocr=ocr)
    argv = list(app.argv) + ([str(home / "tk-state.json")] if app.argv[-1] == "--state"
                             else [])
    tree = tree_backend.tree
    with_tree = app.argv[0] != sys.executable and tree is not None
    shown = ((lambda pid: tree.elements(pid, app.name)) if with_tree and tree
             else (lambda pid: (home / "tk-state.json").exists()))
    proc = session.start_app(argv, env, shown, home)
    try:
        tree_backend.move(150, 150)
        if app.keys:
            tree_backend.hotkey(list(app.keys))
            session.wait_for(lambda: tree_driver.observe().elements and any(
                e.window == "popup" for e in tree_driver.observe().elements), 10)
        row = Row(app.name, app.hand)
        tree_obs, row.tree_first_ms, row.tree_ms = _median_ms(tree_driver.observe, runs)
        ocr_obs, row.ocr_first_ms, row.ocr_ms = _median_ms(ocr_driver.observe, runs)
        row.tree = _labelled(tree_obs) if tree_obs.ocr is None else 0
        row.ocr = _labelled(ocr_obs)
        score(row, app.anchors, ocr_driver.anchorer, tree_obs, ocr_obs)
        return row
    finally:
        session.stop(proc)
        tree_driver.close()
        ocr_driver.close()


def bench_desktop(runs: int = 5, apps: tuple[App, ...] = APPS,
                  progress: Callable[[str], None] | None = None) -> list[Row]:
    """One :class:`Row` per app (raises :class:`OmgError` when the machine lacks a part)."""
    lacking = session.missing()
    if lacking:
        raise OmgError(f"bench desktop needs {lacking}; scripts/setup.sh installs it")
    from omg_agent.perception.ocr import OcrEngine

    ocr = OcrEngine()
    rows = []
    with tempfile.TemporaryDirectory() as tmp, _desktop(Path(tmp)) as (display, env):
        for app in apps:
            if progress:
                progress(app.name)
            rows.append(_measure(app, display, env, Path(tmp), runs, ocr))
    return rows


def table(rows: list[Row]) -> str:
    head = ("| app | hand count | tree | OCR | anchors | wrong / missed (tree) "
            "| wrong / missed (OCR) | ms first / next look (tree) "
            "| ms first / next look (OCR) |")
    lines = [head, "|" + "---|" * 9]
    for r in rows:
        tree = f"{r.tree_wrong} / {r.tree_missed}" if r.anchors else "—"
        ocr = f"{r.ocr_wrong} / {r.ocr_missed}" if r.anchors else "—"
        lines.append(f"| {r.app} | {r.hand} | {r.tree} | {r.ocr} | {r.anchors or '—'} "
                     f"| {tree} | {ocr} | {r.tree_first_ms:.0f} / {r.tree_ms:.0f} "
                     f"| {r.ocr_first_ms:.0f} / {r.ocr_ms:.0f} |")
    notes = [f"{r.app}: {n}" for r in rows for n in r.notes]
    return "\n".join(lines + ([""] + notes if notes else []))
