"""Honest done, the end state that must stay (brain/end_holds.py), rule by rule: how long a
``done`` after a toggle waits, what it looks at, and when it waits for nothing (mutation
testing, issue 34: the run-level tests in test_end_holds.py reach it only through a whole
run that toggles at one moment).

A FakeDriver over one Settings screen whose switch the test turns off "a moment later" by
hand; the driver's clock passes only when the executor waits."""

from __future__ import annotations

import time

from omg_agent.brain import end_holds
from omg_agent.brain.budget import StepBudget
from omg_agent.brain.memory import MemoryBank
from omg_agent.brain.run_context import RunContext
from omg_agent.brain.run_state import RunState
from omg_agent.config import Settings
from omg_agent.core.actions import AnchorTarget, Tap
from omg_agent.core.checks import ElementCheck
from omg_agent.core.contracts import TaskStep
from omg_agent.drivers.base import ActionOutcome

from .fakes import FakeDriver, FakeWorld, el

SETTINGS = "com.android.settings"
ON = TaskStep(description="Bluetooth on", success_criteria="Bluetooth shows on",
              checks=[ElementCheck(text="Bluetooth"), ElementCheck(text="Bluetooth", checked=True)])


def settings(on: bool) -> FakeDriver:
    world = FakeWorld({"on": (SETTINGS, [el(1, "Bluetooth", checkable=True, checked=True)]),
                       "off": (SETTINGS, [el(1, "Bluetooth", checkable=True)])},
                      lambda screen, action, element: screen, "on" if on else "off")
    return FakeDriver(world)


def context(driver: FakeDriver, memory: MemoryBank, toggled_ago: float | None) -> RunContext:
    state = RunState("Turn on Bluetooth", StepBudget(5))
    state.last_obs = driver.world.observation()  # the screen the done was claimed on
    if toggled_ago is not None:
        state.toggled_at = time.monotonic() - toggled_ago
    return RunContext(state, driver, memory, Settings(), None, None, None, 3)  # type: ignore[arg-type]


def test_a_done_within_the_hold_waits_out_only_the_rest_then_judges_a_fresh_screen() -> None:
    driver = settings(on=True)
    with MemoryBank(None, "unit") as memory:
        run = context(driver, memory, toggled_ago=0.6)  # 0.9 s of the 1.5 s left at most
        claimed = run.state.last_obs
        driver.world.current = "off"  # the switch flipped back while the run waited
        why = end_holds.end_flipped(run, ON)
    said = "; ".join(c.describe() for c in ON.checks)  # every check the run ended on
    assert why is not None and why.startswith("its end state did not stay: 1.5 s after")
    assert f"({said}: " in why
    assert 0 < driver.clock.now <= end_holds.HOLD_S - 0.6  # the rest of the hold, no more
    assert driver.observations == 1
    # the fresh screen is the run's last one now (the report and any later step read it)
    assert run.state.last_obs is not claimed and run.state.last_obs.screen_hash == "off"


def test_an_end_state_that_stayed_passes_after_the_wait() -> None:
    driver = settings(on=True)
    with MemoryBank(None, "unit") as memory:
        run = context(driver, memory, toggled_ago=0.0)
        assert end_holds.end_flipped(run, ON) is None
    assert 0 < driver.clock.now <= end_holds.HOLD_S and driver.observations == 1


def test_nothing_to_wait_for_means_no_wait_and_no_look() -> None:
    no_checks = TaskStep(description="Bluetooth on", success_criteria="it is on")
    for toggled_ago, final in ((None, ON),  # never toggled
                               (end_holds.HOLD_S + 1, ON),  # toggled long enough before
                               (0.0, None),  # no plan step to check again
                               (0.0, no_checks)):  # a step with no checks
        driver = settings(on=False)
        with MemoryBank(None, "unit") as memory:
            run = context(driver, memory, toggled_ago)
            assert end_holds.end_flipped(run, final) is None, (toggled_ago, final)
        assert (driver.clock.now, driver.observations) == (0.0, 0), (toggled_ago, final)


def test_a_toggle_is_an_action_that_went_through_on_a_checkable_element() -> None:
    switch = el(1, "Bluetooth", checkable=True)
    button = el(2, "About phone")
    tap = Tap(target=AnchorTarget(text="Bluetooth"))
    assert end_holds.toggled([ActionOutcome(0, tap, True, element=button),
                              ActionOutcome(1, tap, True, element=switch)])
    assert not end_holds.toggled([ActionOutcome(0, tap, False, element=switch)])
    assert not end_holds.toggled([ActionOutcome(0, tap, True, element=button),
                                  ActionOutcome(1, tap, True, element=None)])
