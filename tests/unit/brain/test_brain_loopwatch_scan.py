"""A scan is judged by what it read, not by whether the screen moved (issue 27): a list that
fits one screen does not scroll, and that is no loop."""

from __future__ import annotations

from omg_agent.brain.loopwatch import LoopWatch
from omg_agent.core.actions import Scan, Swipe
from omg_agent.drivers.base import ActionOutcome, ExecResult
from omg_agent.guards.loops import LoopGuard
from tests.unit.drivers.scroll_world import ScrollWorld, product


def test_a_scan_that_leaves_the_screen_as_it_was_is_not_judged_a_loop():
    obs = ScrollWorld([product("Only", "¥1.00")]).observation()
    watch = LoopWatch(LoopGuard())
    watch.acted(ExecResult((ActionOutcome(0, Scan(), True, "scan read 1 item"),)), obs)
    assert watch.judge(obs) is None  # nothing waits to be judged
    swipe = Swipe(direction="up")
    watch.acted(ExecResult((ActionOutcome(0, swipe, True, "swipe"),)), obs)
    assert watch.judge(obs) is not None  # a swipe still is judged
