"""The checks of ``scripts/bench_desktop_relay.py`` (issue 39's relay round): each reads what
an app left behind — a saved file, GSettings' keyfile, the calculator's display, the Tk app's
state — and says why not when it fails; the token count per task sums relay_tokens' rows.
Also the switch the round compares: ``desktop=:N,ocr`` vs the tree (bad values refused in one
line naming what is accepted)."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from omg_agent.drivers.desktop import open_desktop
from omg_agent.errors import ConfigError

SCRIPT = Path(__file__).parents[2] / "scripts" / "bench_desktop_relay.py"


@pytest.fixture(scope="module")
def bench() -> Iterator[Any]:
    spec = importlib.util.spec_from_file_location("bench_desktop_relay", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)


def ctx(bench: Any, tmp_path: Path, *, display: str = "", result: dict | None = None,
        tk: dict | None = None) -> Any:
    state = tmp_path / "tk-state.json"
    if tk is not None:
        state.write_text(json.dumps(tk), encoding="utf-8")
    return bench.Ctx(tmp_path, tmp_path / "keyfile", lambda: display, state, result or {})


def test_a_saved_file_must_hold_the_line_a_trailing_newline_allowed(bench, tmp_path) -> None:
    path = tmp_path / "notes.txt"
    assert bench.file_is(path, "Ship it") == (False, "no file notes.txt")
    path.write_text("Ship it\n", encoding="utf-8")
    assert bench.file_is(path, "Ship it") == (True, "")
    path.write_text("Ship it\nShip it\n", encoding="utf-8")
    ok, why = bench.file_is(path, "Ship it")
    assert not ok and "Ship it\\nShip it" in why
    path.write_text("周五发布测试版 🚀\n", encoding="utf-8")
    assert bench.file_is(path, "周五发布测试版 🚀")[0]


def test_lines_are_compared_stripped_and_blank_lines_ignored(bench, tmp_path) -> None:
    path = tmp_path / "todo.txt"
    path.write_text("buy milk\n\ncall Anna  \n", encoding="utf-8")
    assert bench.lines_are(path, ["buy milk", "call Anna"]) == (True, "")
    assert not bench.lines_are(path, ["buy milk"])[0]


def test_a_preference_is_read_from_the_gsettings_keyfile(bench, tmp_path) -> None:
    keyfile = tmp_path / "keyfile"
    view = "org/xfce/mousepad/preferences/view"
    assert bench.setting_is(keyfile, view, "tab-width", "4") == (False, "tab-width = None")
    keyfile.write_text("[org/xfce/mousepad/state/window]\nwidth=640\n\n"
                       f"[{view}]\nshow-line-numbers=true\ntab-width=8\n",
                       encoding="utf-8")
    assert bench.setting_is(keyfile, view, "show-line-numbers", "true") == (True, "")
    assert not bench.setting_is(keyfile, view, "tab-width", "4")[0]
    keyfile.write_text(f"[{view}]\ntab-width=4\n", encoding="utf-8")
    assert bench.setting_is(keyfile, view, "tab-width", "4")[0]


def test_a_calculation_needs_the_display_and_the_answer(bench, tmp_path) -> None:
    check = bench._calc("444")
    assert check(ctx(bench, tmp_path, display="444", result={"answer": "37 × 12 = 444"}))[0]
    ok, why = check(ctx(bench, tmp_path, display="444", result={"answer": ""}))
    assert not ok and "answer" in why  # the display alone is not a read-back
    ok, why = check(ctx(bench, tmp_path, display="4440", result={"answer": "444"}))
    assert not ok and "4440" in why


def test_the_tk_form_is_read_from_the_apps_state(bench, tmp_path) -> None:
    assert not bench._tk(ctx(bench, tmp_path))[0]
    done = {"entry": "order 66", "clicks": {"Save": 1}}
    assert bench._tk(ctx(bench, tmp_path, tk=done))[0]
    ok, why = bench._tk(ctx(bench, tmp_path, tk={**done, "clicks": {"Save": 0}}))
    assert not ok and "Save" in why


def test_tokens_are_summed_per_task_and_arm(bench) -> None:
    rows = [{"task": "calc-mul/tree", "total": 1200}, {"task": "calc-mul/tree", "total": 800},
            {"task": "calc-mul/ocr", "total": 1500}]
    lines = "\n".join(json.dumps(r) for r in rows) + "\n"
    assert bench.tokens_by_label(lines) == {"calc-mul/tree": 2000, "calc-mul/ocr": 1500}


def test_the_round_has_eight_tasks_or_more_over_the_four_apps(bench) -> None:
    tasks = bench.TASKS
    assert len(tasks) >= 8 and len({t.id for t in tasks}) == len(tasks)
    apps = {argv[0] for t in tasks for argv in t.apps}
    assert {"galculator", "mousepad"} <= apps and bench.TK in {a for t in tasks for a in t.apps}


@pytest.mark.parametrize("spec", ["desktop=:99,fast", "desktop=:99,ocr,tree", "desktop=,x"])
def test_a_bad_perception_is_refused_naming_what_is_accepted(spec: str) -> None:
    with pytest.raises(ConfigError, match=",ocr or ,tree"):
        open_desktop(spec)


def test_a_mac_is_not_read_by_ocr_only() -> None:
    with pytest.raises(ConfigError, match="X display"):
        open_desktop("desktop=mac,ocr")


def test_a_check_is_read_again_until_the_app_has_written_its_state(bench, tmp_path) -> None:
    """An app may write its state a moment after its screen shows it: a failing check is
    read again for a few seconds before the run counts as failed."""
    reads = iter([(False, "tab-width = None"), (False, "tab-width = None"), (True, "")])
    assert bench.settled(lambda: next(reads), 5.0, step=0.0) == (True, "")
    assert bench.settled(lambda: (False, "never"), 0.0) == (False, "never")
