"""Wrapping a paragraph: lines that fit the width, remembered per text and fonts."""

from __future__ import annotations

from omg_agent.vphone.apps.textfit import measure, wrap

TEXT = "Weekend hike 周末徒步 — the ridge trail was quiet, 山顶的风很大 and the view went on"


def test_lines_fit_the_width_and_keep_every_word() -> None:
    lines = wrap(TEXT, 42, 500)
    assert len(lines) > 1 and all(measure(line, 42) <= 500 for line in lines)
    assert "".join(lines).replace(" ", "") == TEXT.replace(" ", "")


def test_each_call_gets_its_own_list_of_the_same_lines() -> None:
    first = wrap(TEXT, 42, 500)
    first.append("changed by a caller")
    assert wrap(TEXT, 42, 500) == first[:-1]
    assert wrap(TEXT, 42, 800) != first[:-1]  # another width, other lines
