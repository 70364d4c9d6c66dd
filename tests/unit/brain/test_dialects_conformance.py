"""Our dialects beside the official parsers, case by case (issue 28): 31 AutoGLM replies
compared with Open-AutoGLM's ``parse_action`` and 32 UI-TARS replies with the PyPI
``ui-tars`` 0.5.1 parser, as ``scripts/compare_dialect_parsers.py`` measured them
(:mod:`omg_agent.sim.dialect_cases`). Where the official parser runs an action, ours runs
the same one on the same pixel, unless the case says why not (OMG's deliberate strictness:
an unknown ``Call_API``, an unreadable reply that the official agent takes as finished, a
point off the screen)."""

from __future__ import annotations

import pytest

from omg_agent.brain.dialects.autoglm import AutoGLM
from omg_agent.brain.dialects.uitars import UITars
from omg_agent.sim.dialect_cases import (
    AUTOGLM,
    AUTOGLM_THOUGHTS,
    SIZE,
    UITARS,
    Case,
    omg_outcome,
)

CASES = [("autoglm", c) for c in AUTOGLM] + [("uitars", c) for c in UITARS]


@pytest.mark.parametrize(("dialect", "case"), CASES,
                         ids=[f"{d}: {c.name}" for d, c in CASES])
def test_each_reply_does_what_the_official_parser_does_or_says_why_not(
        dialect: str, case: Case) -> None:
    assert omg_outcome(dialect, case.reply) == case.omg
    # a case without a reason agrees with the official parser; one with a reason differs
    assert (case.omg == case.official) == (not case.why), case


def test_the_table_is_the_size_the_issue_compared() -> None:
    assert (len(AUTOGLM), len(UITARS)) == (31, 32)
    assert len({c.name for c in AUTOGLM}) == len(AUTOGLM)
    assert len({c.name for c in UITARS}) == len(UITARS)


@pytest.mark.parametrize("name", sorted(AUTOGLM_THOUGHTS))
def test_autoglm_keeps_the_reasoning_as_the_thought_tagged_or_not(name: str) -> None:
    case = next(c for c in AUTOGLM if c.name == name)
    bundle = AutoGLM().parse_reply(case.reply, AutoGLM().frame_for(SIZE))
    assert bundle.thought == AUTOGLM_THOUGHTS[name]
    if bundle.execute_now is not None:  # the trace's intent is the model's, not "tap"
        assert bundle.execute_now.intent == AUTOGLM_THOUGHTS[name]


def test_autoglm_cuts_points_to_the_pixel_its_runtime_taps_on_every_screen() -> None:
    from omg_agent.core.geometry import ScreenGeometry

    for size in [(1080, 2400), (720, 1600), (1600, 2560), (1440, 3200)]:
        frame = AutoGLM().frame_for(size)
        for x in range(0, 1000, 7):
            target = AutoGLM().parse_reply(f'do(action="Tap", element=[{x},{999 - x}])',
                                           frame).actions[0].target
            got = ScreenGeometry.of_screen(size).to_pixels((target.x, target.y))
            assert tuple(got) == (int(x / 1000 * size[0]), int((999 - x) / 1000 * size[1]))


def test_uitars_keeps_every_action_of_a_reply_and_the_flat_loop_runs_them() -> None:
    reply = next(c for c in UITARS if c.name == "three actions").reply
    bundle = UITars().parse_reply(reply, UITars().frame_for(SIZE))
    assert [a.type for a in bundle.actions] == ["home", "launch", "wait"]
