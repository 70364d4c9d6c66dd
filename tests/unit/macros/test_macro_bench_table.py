"""The bench macro table: one block per task, ratios to macros, room for the flow columns."""

from __future__ import annotations

from omg_agent.bench.macro import LATER_MODES, MacroRow, table


def row(mode: str, calls: int, wall: float, correct: bool = True) -> MacroRow:
    return MacroRow(task="Like the first 30 posts in Feed", mode=mode, correct=correct,
                    right=30 if correct else 29, wrong=0, twice=0 if correct else 1,
                    model_calls=calls, screenshots=calls * 4, shell_calls=calls * 9,
                    wall_s=wall, status="done", macros=("m",) if mode == "macros" else (),
                    macro_s=10.0 if mode == "macros" else 0.0)


def test_table_shows_both_modes_ratios_and_the_flow_columns_to_come():
    text = table([row("step-by-step", 16, 120.0), row("macros", 2, 24.0, correct=False)])
    assert "| model calls | 16 | 2 | n/a | n/a | 8.0× |" in text
    assert "| wall time (s) | 120.0 | 24.0 | n/a | n/a | 5.0× |" in text
    assert "30/30 ✓" in text and "29/30 ✗ (0 extra, 1 twice)" in text
    assert all(f" {m} |" in text for m in LATER_MODES)
