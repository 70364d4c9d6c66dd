"""The bench macro table: one block per task, every mode a column, ratios to macros."""

from __future__ import annotations

from omg_agent.bench.macro import MacroRow, run_bench, table


def row(mode: str, calls: int, wall: float, correct: bool = True) -> MacroRow:
    return MacroRow(task="Like the first 30 posts in Feed", mode=mode, correct=correct,
                    right=30 if correct else 29, wrong=0, twice=0 if correct else 1,
                    model_calls=calls, screenshots=calls * 4, shell_calls=calls * 9,
                    wall_s=wall, status="done", macros=("m",) if mode == "macros" else (),
                    macro_s=10.0 if mode == "macros" else 0.0)


def test_table_shows_every_mode_and_the_ratios_to_macros():
    text = table([row("step-by-step", 16, 120.0), row("macros", 2, 24.0, correct=False),
                  row("flow replay", 0, 60.0), row("replay cache", 0, 61.0)])
    assert "| model calls | 16 | 2 | 0 | 0 | 8.0× |" in text
    assert "| wall time (s) | 120.0 | 24.0 | 60.0 | 61.0 | 5.0× |" in text
    assert "30/30 ✓" in text and "29/30 ✗ (0 extra, 1 twice)" in text


def test_the_replays_need_the_step_by_step_run():
    import pytest

    with pytest.raises(ValueError, match="replay the step-by-step run"):
        run_bench(modes=("macros", "flow replay"))
