"""Real screens: the anchor property and the perception bench over a corpus of dumps.

The corpus is tests/fixtures/real_dumps (real ``uiautomator dump`` files whose licences
allow keeping them; SOURCES.md) plus the hand-written fixtures of the defect classes; set
``OMG_REAL_DUMPS`` to a folder to run the same checks over a larger local corpus.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from omg_agent.bench.perception import dump_files, measure, run, totals
from omg_agent.cli.bench import app as bench_app
from omg_agent.core.actions import AnchorTarget
from omg_agent.core.observation import UIElement
from omg_agent.perception.anchor import match_anchor
from omg_agent.perception.uitree import parse_screen

from . import test_perception_defects as defects

REAL = Path(__file__).parents[2] / "fixtures" / "real_dumps"
EXTRA = Path(os.environ["OMG_REAL_DUMPS"]) if os.environ.get("OMG_REAL_DUMPS") else None
FILES = dump_files(REAL) + (dump_files(EXTRA) if EXTRA else [])
WRITTEN = {
    "chat list": defects.chat_list(), "trading wrapper": defects.trading_screen(),
    "form with hints": defects.form_with_hints(), "keyboard over form":
    defects.form_under_keyboard(), "thai bank": defects.thai_bank(),
}


def screens() -> list[tuple[str, str]]:
    return ([(p.name, p.read_text(encoding="utf-8", errors="replace")) for p in FILES]
            + list(WRITTEN.items()))


def test_the_committed_corpus_is_real_and_sourced():
    names = {p.name for p in dump_files(REAL)}
    assert len(names) >= 8
    sources = (REAL / "SOURCES.md").read_text(encoding="utf-8")
    assert all(name in sources for name in names)


def _anchor_of(e: UIElement) -> AnchorTarget | None:
    if e.text and not e.password:
        return AnchorTarget(text=e.text)
    return AnchorTarget(desc=e.desc) if e.desc else None


@pytest.mark.parametrize(("name", "xml"), screens(), ids=[n for n, _ in screens()])
def test_every_label_anchors_inside_its_element_or_is_reported_ambiguous(name, xml):
    try:
        elements = parse_screen(xml).elements
    except Exception as exc:  # a file of the local corpus that is not a dump
        pytest.skip(f"{name}: {exc}")
    checked = 0
    for e in elements:
        target = _anchor_of(e) if e.interactive else None
        if target is None:
            continue
        found = match_anchor(target, elements)
        assert found is not None, f"{name}: {e!r} not found by its own label"
        if not e.bounds.contains(found.element.bounds.center):
            assert e in found.candidates, (
                f"{name}: anchor {target} for [{e.id}] resolved to [{found.element.id}] "
                f"{found.element!r} without reporting ambiguity")
        checked += 1
    assert checked == sum(1 for e in elements if e.interactive and _anchor_of(e))


def test_the_bench_finds_no_defect_on_the_committed_corpus():
    rows = run(REAL)
    assert not [r.error for r in rows if r.error]
    t = totals(rows)
    assert t.interactive and t.kept == t.interactive
    assert (t.lost, t.under, t.bars, t.stacked, t.wrong) == (0, 0, 0, 0, 0)
    assert t.anchors == t.ok + t.ambig and t.anchors > 50
    assert t.raw_tok > 10 * t.list_tok


def test_the_bench_measures_what_the_old_rules_got_wrong(tmp_path):
    (tmp_path / "keyboard.xml").write_text(defects.form_under_keyboard(), encoding="utf-8")
    (tmp_path / "appium.xml").write_text(
        '<hierarchy><android.widget.FrameLayout bounds="[0,0][1,1]"/></hierarchy>',
        encoding="utf-8")
    keyboard = measure(tmp_path / "keyboard.xml")
    assert (keyboard.covered, keyboard.under, keyboard.bars, keyboard.bars_left_out) == (
        1, 0, 0, 3)
    assert "not a uiautomator dump" in measure(tmp_path / "appium.xml").error


def test_the_bench_command_prints_a_table_and_totals():
    result = CliRunner().invoke(bench_app, ["perception", str(REAL)])
    assert result.exit_code == 0, result.output
    assert "| **TOTAL** |" in result.output and "0 wrong of" in result.output
    assert f"Command: omg-agent bench perception {REAL}" in result.output
    missing = CliRunner().invoke(bench_app, ["perception", str(REAL / "nope")])
    assert missing.exit_code == 1
