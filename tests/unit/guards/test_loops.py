"""The loop guard: a dead button climbs wait → offset → back → post-mortem → ask the user, a
cycle is caught within six actions, progress and typing never escalate, an identical replan
is caught, and the offset rung aims the tap better."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from omg_agent.core.actions import (
    AnchorTarget,
    Back,
    ElementTarget,
    Key,
    LongPress,
    MemSave,
    PointTarget,
    Swipe,
    Tap,
    TypeText,
    Wait,
)
from omg_agent.core.geometry import Bounds, ScreenGeometry
from omg_agent.core.observation import Observation, UIElement
from omg_agent.core.signatures import (
    ActionRecord,
    action_signature,
    describe_action,
    should_change_screen,
)
from omg_agent.guards.loops import (
    LoopGuard,
    Rung,
    Verdict,
    find_cycle,
    normalise_plan,
)
from omg_agent.guards.retap import offset_retap
from omg_agent.perception.screenhash import ScreenHashValue

SIZE = (1080, 2400)
APP = "com.android.settings"
UPDATE = UIElement(7, "android.widget.Button", "button", Bounds(100, 1000, 980, 1160),
                   text="Check for update", resource_id="com.android.settings:id/check",
                   clickable=True)
TITLE = UIElement(3, "android.widget.TextView", "text", Bounds(60, 300, 1020, 400),
                  text="System update")
ROW = UIElement(9, "android.widget.LinearLayout", "row", Bounds(0, 1400, 1080, 1600),
                clickable=True)
ROW_LABEL = UIElement(10, "android.widget.TextView", "text", Bounds(40, 1450, 500, 1550),
                      text="Wi-Fi")
FIELD = UIElement(11, "android.widget.EditText", "edit", Bounds(40, 1800, 1040, 1900),
                  editable=True, clickable=True, focused=True)
SWITCH = UIElement(12, "android.widget.Switch", "switch", Bounds(900, 2000, 1040, 2080),
                   checkable=True, clickable=True)
TAP_UPDATE = Tap(target=AnchorTarget(text="Check for update"))


def screen(*elements: UIElement) -> Observation:
    return Observation(Image.new("L", SIZE), elements=elements or (TITLE, UPDATE, ROW,
                                                                   ROW_LABEL),
                       package=APP, screen_hash="S")


def run_rung(guard: LoopGuard, verdict: Verdict, before: str, after: str,
             element: UIElement | None = None) -> Verdict:
    """The caller's side of rungs 1–3: run the verdict's action, feed it back."""
    assert verdict.action is not None
    return guard.record(verdict.action, element, before, after, APP, observation=screen())


# -- the no-effect ladder ---------------------------------------------------------------
def miss(guard: LoopGuard, observation: Observation | None = None) -> Verdict:
    """The model taps the dead button once more (and the screen stays S)."""
    return guard.record(TAP_UPDATE, UPDATE, "S", "S", APP, observation=observation)


def test_each_rung_waits_for_the_model_to_repeat_the_dead_tap() -> None:
    guard = LoopGuard()
    verdict = miss(guard, screen())
    assert verdict.rung is Rung.WAIT and verdict.action == Wait(seconds=2.0)
    assert verdict.reason == "tap 'Check for update' had no visible effect: looked again after 2 s"
    # the wait showed nothing new: no further rung, the model is asked (and told)
    assert run_rung(guard, verdict, "S", "S") == Verdict()
    verdict = miss(guard, screen())
    assert verdict.rung is Rung.OFFSET
    assert verdict.reason == ("tap 'Check for update' had no visible effect (×2): retried it "
                              "offset to its centre; the same again and I press back")
    assert isinstance(verdict.action, Tap) and isinstance(verdict.action.target, PointTarget)
    assert run_rung(guard, verdict, "S", "S", UPDATE) == Verdict()
    verdict = miss(guard, screen())
    assert verdict.rung is Rung.BACK and verdict.action == Back()
    assert verdict.reason.startswith("tap 'Check for update' had no visible effect (×3)")
    verdict = run_rung(guard, verdict, "S", "PREVIOUS")
    assert verdict.rung is Rung.POST_MORTEM and verdict.failure == "LOOP"
    assert verdict.action is None and verdict.trigger == "no_effect"
    assert verdict.reason == ("LOOP: tap 'Check for update' had no effect ×3 in "
                              "com.android.settings (wait, offset, back did not help)")
    assert "another route" in verdict.hint and "budget" not in verdict.hint
    assert guard.post_mortems == 1


def test_one_ineffective_action_never_presses_back() -> None:
    """Relay notes (issue #27): one long press with no visible effect walked out of Notes."""
    guard = LoopGuard()
    press = LongPress(target=AnchorTarget(text="Shopping list"))
    verdict = guard.record(press, None, "S", "S", APP, observation=screen())
    moves = []
    while verdict.action is not None:
        moves.append(verdict.rung)
        verdict = guard.record(verdict.action, None, "S", "S", APP, observation=screen())
    assert moves == [Rung.WAIT] and verdict == Verdict()
    # another action that misses starts its own count: still no back
    other = guard.record(TAP_UPDATE, UPDATE, "S", "S", APP, observation=screen())
    assert other.rung is Rung.WAIT


def test_a_swipe_at_the_end_of_a_list_is_the_end_of_the_list_not_a_loop() -> None:
    guard = LoopGuard()
    swipe = Swipe(direction="up")
    for _ in range(5):
        verdict = guard.record(swipe, None, "S", "S", APP, observation=screen())
        assert verdict.rung is Rung.NONE and verdict.action is None
        assert "end of the list" in verdict.note and "not a loop" in verdict.note
    assert guard.post_mortems == 0


def test_the_dead_button_again_after_the_post_mortem_asks_the_user() -> None:
    guard = LoopGuard()
    rungs = []
    for _ in range(3):
        verdict = miss(guard, screen())
        rungs.append(verdict.rung)
        after = "PREVIOUS" if verdict.rung is Rung.BACK else "S"
        verdict = run_rung(guard, verdict, "S", after, UPDATE)
    rungs.append(verdict.rung)
    guard.reset()  # the planner's new step
    guard.record(Tap(target=AnchorTarget(text="System update")), TITLE, "PREVIOUS", "S", APP)
    verdict = miss(guard, screen())
    rungs.append(verdict.rung)
    assert rungs == [Rung.WAIT, Rung.OFFSET, Rung.BACK, Rung.POST_MORTEM, Rung.ASK_USER]
    assert "still has no effect after a post-mortem" in verdict.reason


def test_without_a_human_the_last_rung_is_stop() -> None:
    guard = LoopGuard(human_reachable=False, max_post_mortems=0)
    rungs = [miss(guard).rung for _ in range(4)]
    assert rungs == [Rung.WAIT, Rung.WAIT, Rung.BACK, Rung.STOP]  # no observation: no offset
    why, hint = guard.stop_message()
    assert "tap 'Check for update'" in why and "com.android.settings" in hint
    assert "budget" not in why + hint and "--max-steps" not in why + hint
    assert "human" in hint


def test_a_model_repeating_the_dead_tap_climbs_one_rung_per_repeat() -> None:
    guard = LoopGuard()
    rungs = [miss(guard, screen()).rung for _ in range(4)]
    assert rungs == [Rung.WAIT, Rung.OFFSET, Rung.BACK, Rung.POST_MORTEM]


def test_offset_is_a_second_look_when_there_is_no_better_aim() -> None:
    guard = LoopGuard()  # a tap, but nobody passed the observation
    verdicts = [miss(guard) for _ in range(3)]
    assert [v.rung for v in verdicts] == [Rung.WAIT, Rung.WAIT, Rung.BACK]
    assert "the same again and I press back" in verdicts[1].reason


def test_a_tap_that_changes_the_screen_never_escalates() -> None:
    guard = LoopGuard()
    nxt = Tap(target=AnchorTarget(text="Next"))
    for page in range(30):  # a wizard or a gallery: the same tap, a new screen each time
        verdict = guard.record(nxt, None, f"page{page}", f"page{page + 1}", APP)
        assert verdict == Verdict()


def test_typing_or_waiting_without_a_visible_change_is_not_a_no_effect() -> None:
    guard = LoopGuard()
    for action in (TypeText(text="hello"), Wait(seconds=1), MemSave(key="a", value="b"),
                   Tap(target=ElementTarget(id=11))):
        assert guard.record(action, FIELD, "S", "S", APP).rung is Rung.NONE


def test_a_change_only_the_element_list_sees_is_not_a_no_effect() -> None:
    guard = LoopGuard()
    plus = Tap(target=AnchorTarget(desc="Increase"))
    for _ in range(5):  # a stepper: the digit is below the hash's resolution
        assert guard.record(plus, None, "S", "S", APP, ui_changed=True).rung is Rung.NONE


def test_a_wait_that_lets_the_screen_change_ends_the_ladder() -> None:
    guard = LoopGuard()
    verdict = guard.record(TAP_UPDATE, UPDATE, "S", "S", APP, observation=screen())
    assert run_rung(guard, verdict, "S", "CHECKING").rung is Rung.NONE
    # the counter restarted: the next miss is a first miss again
    assert guard.record(TAP_UPDATE, UPDATE, "CHECKING", "CHECKING", APP).rung is Rung.WAIT


def test_only_a_new_screen_resets_the_no_effect_count() -> None:
    guard = LoopGuard()
    guard.record(Back(), None, "HOME", "S", APP)
    assert guard.record(TAP_UPDATE, UPDATE, "S", "S", APP).rung is Rung.WAIT
    guard.record(Wait(seconds=2), None, "S", "S", APP)  # the ladder's look: nothing new
    guard.record(Back(), None, "S", "HOME", APP)  # back to a screen already seen
    guard.record(Tap(target=AnchorTarget(text="System")), None, "HOME", "S", APP)
    assert guard.record(TAP_UPDATE, UPDATE, "S", "S", APP).rung is Rung.WAIT  # 2nd, no aim
    guard.record(Wait(seconds=2), None, "S", "S", APP)
    guard.record(Back(), None, "S", "ABOUT", APP)  # never seen: progress
    assert guard.record(TAP_UPDATE, UPDATE, "ABOUT", "ABOUT", APP).rung is Rung.WAIT
    assert guard.record(Wait(seconds=2), None, "ABOUT", "ABOUT", APP).rung is Rung.NONE
    assert guard.record(TAP_UPDATE, UPDATE, "ABOUT", "ABOUT", APP).reason.endswith(
        "the same again and I press back")


def _hash(changed_cells: int) -> str:
    levels = np.zeros((53, 24), dtype=np.uint8)
    levels.flat[:changed_cells] = 5
    return str(ScreenHashValue(8, levels))


def test_screens_are_compared_by_the_screen_hash_distance_not_the_text() -> None:
    guard = LoopGuard()
    base = _hash(0)
    # two changed cells are noise (the hash's "same"): the tap had no effect
    assert guard.record(TAP_UPDATE, UPDATE, base, _hash(2), APP).rung is Rung.WAIT
    guard.reset()
    assert guard.record(TAP_UPDATE, UPDATE, base, _hash(3), APP).rung is Rung.NONE


def test_unknown_hashes_are_never_judged() -> None:
    guard = LoopGuard()
    for _ in range(6):
        assert guard.record(TAP_UPDATE, UPDATE, "", "", APP).rung is Rung.NONE


# -- cycles -----------------------------------------------------------------------------
def test_an_a_b_a_b_cycle_is_caught_within_six_actions() -> None:
    guard = LoopGuard()
    open_row = Tap(target=AnchorTarget(text="Wi-Fi"))
    steps = [(open_row, "A", "B"), (Back(), "B", "A")] * 3
    rungs = [guard.record(action, None, before, after, APP).rung
             for action, before, after in steps]
    first = rungs.index(Rung.POST_MORTEM)
    assert first < 6 and all(r is Rung.NONE for r in rungs[:first])
    assert first == 3  # the pattern seen twice


def test_a_three_action_cycle_and_its_reason() -> None:
    guard = LoopGuard()
    a, b = Tap(target=AnchorTarget(text="Network")), Tap(target=AnchorTarget(text="More"))
    steps = [(a, "A", "B"), (b, "B", "C"), (Back(), "C", "A")] * 2
    verdicts = [guard.record(action, None, x, y, APP) for action, x, y in steps]
    assert [v.rung for v in verdicts][:5] == [Rung.NONE] * 5
    assert verdicts[5].rung is Rung.POST_MORTEM and verdicts[5].trigger == "cycle"
    assert verdicts[5].reason == ("LOOP: tap 'Network' → tap 'More' → press back repeated ×2"
                                  " in com.android.settings without reaching a new screen")


def test_the_same_action_three_times_on_the_same_screens_is_a_cycle() -> None:
    guard = LoopGuard()
    retype = TypeText(text="hello", target=ElementTarget(id=11))
    rungs = [guard.record(retype, FIELD, "S", "S", APP).rung for _ in range(3)]
    assert rungs == [Rung.NONE, Rung.NONE, Rung.POST_MORTEM]


def test_a_cycle_that_still_reaches_new_screens_is_not_a_loop() -> None:
    guard = LoopGuard()
    down, up = Swipe(direction="up"), Swipe(direction="up", distance=300)
    for n in range(12):
        action = down if n % 2 else up
        assert guard.record(action, None, f"s{n}", f"s{n + 1}", APP).rung is Rung.NONE


def test_a_cycle_after_a_post_mortem_asks_the_user() -> None:
    guard = LoopGuard()
    open_row = Tap(target=AnchorTarget(text="Wi-Fi"))
    steps = [(open_row, "A", "B"), (Back(), "B", "A")] * 2
    assert [guard.record(a, None, x, y, APP).rung for a, x, y in steps][-1] \
        is Rung.POST_MORTEM
    guard.reset()
    assert [guard.record(a, None, x, y, APP).rung for a, x, y in steps][-1] is Rung.ASK_USER


def test_the_cycle_window_is_bounded() -> None:
    records = [ActionRecord(f"sig{n}", "x", f"s{n}", f"s{n + 1}") for n in range(20)]
    assert find_cycle(records, str.__eq__) is None
    guard = LoopGuard(window=8)
    for n in range(20):
        guard.observe(records[n])
    assert len(guard._step.records) == 8


# -- replans ----------------------------------------------------------------------------
def test_an_identical_replan_is_caught_ignoring_case_whitespace_and_markers() -> None:
    guard = LoopGuard()
    assert guard.note_replan("1. Open Settings\n2. Tap  'Check for update'") is False
    assert guard.note_replan("- [ ] open settings\n\n- [ ] tap 'check for update'  ") is True
    assert guard.note_replan("1. Open Settings\n2. Search for 'update'") is False
    verdict = guard.give_up("the planner sent the same plan again")
    assert verdict.rung is Rung.ASK_USER and verdict.trigger == "replan"
    assert LoopGuard(human_reachable=False).give_up("same plan").rung is Rung.STOP


def test_reset_keeps_the_plans_tried_and_the_post_mortems() -> None:
    guard = LoopGuard()
    guard.note_replan("open settings")
    for _ in range(4):
        verdict = guard.record(TAP_UPDATE, UPDATE, "S", "S", APP)
        if verdict.action is not None and not isinstance(verdict.action, Back):
            guard.record(verdict.action, None, "S", "S", APP)
    guard.reset()
    assert guard.post_mortems == 1 and guard.note_replan("Open Settings") is True


def test_normalise_plan() -> None:
    assert normalise_plan("  1) Open   X\n\n* [x] Tap Y ") == "open x\ntap y"


# -- signatures -------------------------------------------------------------------------
def test_taps_on_the_same_element_share_a_signature_whatever_the_aim() -> None:
    by_point = action_signature(Tap(target=PointTarget(x=300, y=450)), UPDATE)
    by_id = action_signature(Tap(target=ElementTarget(id=7)), UPDATE)
    assert by_point == by_id == "tap|el:com.android.settings:id/check|Check for update"
    assert action_signature(Tap(target=PointTarget(x=301, y=452))) \
        == action_signature(Tap(target=PointTarget(x=349, y=499))) == "tap|pt:6,9"
    assert action_signature(Tap(target=PointTarget(x=351, y=452))) == "tap|pt:7,9"
    assert action_signature(Key(key="back")) == "key|back"
    assert action_signature(Swipe(direction="up")) == "swipe|up|"


def test_typed_text_enters_a_signature_only_as_a_fingerprint() -> None:
    secret = TypeText(text="hunter2", target=ElementTarget(id=11))
    signature = action_signature(secret, FIELD)
    assert "hunter2" not in signature
    assert signature != action_signature(TypeText(text="hunter3", target=ElementTarget(id=11)),
                                         FIELD)
    assert describe_action(secret, FIELD) == "type into the edit"


def test_describe_action() -> None:
    assert describe_action(TAP_UPDATE) == "tap 'Check for update'"
    assert describe_action(Tap(target=PointTarget(x=5, y=6))) == "tap point (5,6)"
    assert describe_action(LongPress(target=ElementTarget(id=3)), TITLE) \
        == "long press 'System update'"
    assert describe_action(Back()) == "press back"
    assert describe_action(Swipe(direction="left")) == "swipe left"


@pytest.mark.parametrize(("action", "element", "expected"), [
    (TAP_UPDATE, UPDATE, True),
    (Tap(target=ElementTarget(id=12)), SWITCH, True),  # a switch flips visibly
    (Tap(target=ElementTarget(id=11)), FIELD, False),  # focusing a field may show nothing
    (TypeText(text="x"), None, False),
    (TypeText(text="x", submit=True), None, True),
    (Key(key="enter"), None, True),
    (Back(), None, True),
    (Swipe(direction="up"), None, True),
    (Wait(seconds=1), None, False),
    (MemSave(key="k", value="v"), None, False),
])
def test_which_actions_should_change_the_screen(action, element, expected) -> None:
    assert should_change_screen(action, element) is expected


# -- the offset rung's aim --------------------------------------------------------------
def _aim(action, obs, element=None):
    retap = offset_retap(action, obs, element)
    if retap is None:
        return None
    target = retap.action.target
    return ScreenGeometry(*SIZE).to_pixels((target.x, target.y)), retap.note


def test_a_point_tap_moves_to_the_centre_of_the_clickable_under_it() -> None:
    x, y = ScreenGeometry(*SIZE).to_normalized((150, 1010))  # the button's top-left corner
    point, note = _aim(Tap(target=PointTarget(x=x, y=y)), screen())
    assert abs(point.x - 540) <= 2 and abs(point.y - 1080) <= 2
    assert note == "the centre of 'Check for update'"


def test_a_point_tap_near_a_clickable_snaps_to_it_within_60_px() -> None:
    geometry = ScreenGeometry(*SIZE)
    x, y = geometry.to_normalized((540, 1200))  # 41 px under the button
    point, note = _aim(Tap(target=PointTarget(x=x, y=y)), screen())
    assert abs(point.y - 1080) <= 2 and note.startswith("the nearest clickable")
    x, y = geometry.to_normalized((540, 1300))  # 141 px away, nothing under it
    assert _aim(Tap(target=PointTarget(x=x, y=y)), screen()) is None


def test_a_point_tap_already_at_the_centre_has_no_better_aim() -> None:
    x, y = ScreenGeometry(*SIZE).to_normalized(UPDATE.center)
    assert _aim(Tap(target=PointTarget(x=x, y=y)), screen()) is None


def test_an_element_tap_becomes_a_point_inside_its_visible_part() -> None:
    clipped = UIElement(4, "android.widget.Button", "button", Bounds(100, 2300, 500, 2600),
                        text="More", clickable=True)
    point, note = _aim(Tap(target=ElementTarget(id=4)), screen(clipped))
    assert point.y == 2350 and note == "its centre"


def test_a_tap_on_a_label_goes_to_its_clickable_row() -> None:
    tap = Tap(target=AnchorTarget(text="Wi-Fi"))
    point, note = _aim(tap, screen(), ROW_LABEL)
    assert abs(point.x - 540) <= 2 and abs(point.y - 1500) <= 2
    assert "clickable part of 'Wi-Fi'" in note
    assert offset_retap(tap, screen()) is None  # an anchor needs the element it landed on


def test_the_retap_keeps_the_kind_of_tap() -> None:
    press = LongPress(target=ElementTarget(id=7), duration_ms=1500)
    retap = offset_retap(press, screen())
    assert isinstance(retap.action, LongPress) and retap.action.duration_ms == 1500
    assert offset_retap(Back(), screen()) is None


# -- properties -------------------------------------------------------------------------
_ACTIONS = [TAP_UPDATE, Back(), Swipe(direction="up"), TypeText(text="a"),
            Tap(target=PointTarget(x=500, y=500)), Key(key="enter"), Wait(seconds=1)]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(range(len(_ACTIONS))), min_size=1, max_size=40))
def test_a_walk_that_keeps_reaching_new_screens_never_escalates(picks: list[int]) -> None:
    guard = LoopGuard()
    for n, pick in enumerate(picks):
        assert guard.record(_ACTIONS[pick], None, f"s{n}", f"s{n + 1}", APP,
                            observation=screen()) == Verdict()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=30))
def test_the_ladder_only_ever_climbs_one_rung_at_a_time(misses: list[bool]) -> None:
    guard = LoopGuard(human_reachable=False)
    order = [Rung.WAIT, Rung.OFFSET, Rung.BACK, Rung.POST_MORTEM]
    previous = -1
    for n, miss in enumerate(misses):
        after = "S" if miss else f"new{n}"
        rung = guard.record(TAP_UPDATE, UPDATE, "S", after, APP, observation=screen()).rung
        if rung is Rung.STOP:
            assert guard.post_mortems == 1  # only ever after the post-mortem
        elif rung is not Rung.NONE:
            rank = order.index(rung)
            assert rank == previous + 1
            previous = rank
        if not miss:  # a new screen (the count starts over), then back to the dead button
            previous = -1 if previous < order.index(Rung.POST_MORTEM) else previous
            assert guard.record(Back(), None, after, "S", APP).rung is Rung.NONE


# -- the caller's protocol, end to end on a tiny scripted world --------------------------
def _world(screen_name: str, action) -> str:
    """HOME --tap System--> S; on S the update button is dead; back from S is HOME."""
    if isinstance(action, Back):
        return "HOME"
    if screen_name == "HOME" and isinstance(action, Tap):
        return "S"
    return screen_name


@pytest.mark.parametrize("same_plan", [True, False])
def test_a_dead_button_costs_at_most_five_model_calls_after_the_first_miss(
        same_plan: bool) -> None:
    guard = LoopGuard(human_reachable=False)
    guard.note_replan("open System\ncheck for update")
    here, calls, first_miss, rungs = "S", 0, None, []
    for _ in range(60):
        calls += 1  # the operator decides
        action = TAP_UPDATE if here == "S" else Tap(target=AnchorTarget(text="System"))
        before, here = here, _world(here, action)
        verdict = guard.record(action, UPDATE if before == "S" else TITLE, before, here, APP,
                               observation=screen())
        first_miss = first_miss or (calls if verdict.trigger == "no_effect" else None)
        while verdict.action is not None:  # rungs 1–3: no model call
            rungs.append(verdict.rung)
            before, here = here, _world(here, verdict.action)
            verdict = guard.record(verdict.action, UPDATE, before, here, APP,
                                   observation=screen())
        if verdict.rung is Rung.POST_MORTEM:
            rungs.append(verdict.rung)
            calls += 1  # the planner replans with the LOOP post-mortem
            plan = "open System\ncheck for update" if same_plan else "open About\nupdate"
            if guard.note_replan(plan):
                verdict = guard.give_up("the planner sent a plan already tried")
            guard.reset()
        if verdict.rung is Rung.STOP:
            rungs.append(verdict.rung)
            break
    assert rungs == [Rung.WAIT, Rung.OFFSET, Rung.BACK, Rung.POST_MORTEM, Rung.STOP]
    assert first_miss == 1 and calls - first_miss <= 5  # two are the model's own repeats
