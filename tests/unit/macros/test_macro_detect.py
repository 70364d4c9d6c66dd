"""The detector: repeated touches on a list become a macro with the right parameters."""

from __future__ import annotations

from omg_agent.macros.detect import Act, detect, detect_in_run
from tests.unit.macros.listphone import APP, AUTHOR, LIKE, LIST, ListPhone


def like_acts(phone: ListPhone, posts: list[int]) -> list[Act]:
    """Tap Like on ``posts`` the way an operator turn does: each on the screen it sees."""
    acts: list[Act] = []
    for n in posts:
        obs = phone.observe()
        button = next(e for e in obs.elements if e.desc == f"Like post {n}")
        acts.append(Act("tap", APP, obs.elements, button.center, "", obs.size, button))
        phone.tap(*button.center)
    obs = phone.observe()
    return [*acts, Act("observe", APP, obs.elements, None, "", obs.size)]


def test_likes_one_by_one_become_a_macro_of_the_list_with_its_texts() -> None:
    phone = ListPhone(["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"] * 3)
    found = detect(like_acts(phone, [1, 2, 3]))
    m = found.macro
    assert m is not None, found.reason
    assert (m.app, m.container, m.target.resource_id, m.target.role) == (APP, LIST, LIKE,
                                                                          "button")
    assert (m.target.todo_text, m.target.done_text) == ("Like", "Liked")
    assert m.where == {} and m.scroll == "up" and m.repetitions == 3
    assert found.acted == ("Like post 1", "Like post 2", "Like post 3")


def test_skipped_items_give_the_filter_that_explains_them() -> None:
    phone = ListPhone(["Ann", "Bob", "Ann", "Ann", "Cid", "Ann"])
    m = detect(like_acts(phone, [1, 3, 4])).macro
    assert m is not None
    assert m.where == {AUTHOR: "Ann"} and m.band == "above"


def test_skips_no_field_explains_propose_nothing() -> None:
    phone = ListPhone(["Ann", "Ann", "Ann", "Ann"])
    found = detect(like_acts(phone, [1, 3, 4]))
    assert found.macro is None and "no field" in found.reason


def test_one_touch_or_the_same_item_twice_is_no_pattern() -> None:
    phone = ListPhone(["Ann", "Bob", "Cid"])
    assert detect(like_acts(phone, [1])).macro is None
    twice = detect(like_acts(ListPhone(["Ann", "Bob"]), [1, 2, 1]))
    assert twice.macro is None and "twice" in twice.reason


def test_touches_off_the_list_break_the_repetition() -> None:
    phone = ListPhone(["Ann", "Bob", "Cid"])
    acts = like_acts(phone, [1, 2])
    obs = phone.observe()
    outside = Act("tap", APP, obs.elements, (500, 100), "", obs.size)  # the title bar
    assert detect([*acts[:1], outside, *acts[1:]]).macro is None


def test_offline_the_last_pattern_is_found_even_when_the_run_went_on() -> None:
    phone = ListPhone(["Ann", "Bob", "Cid", "Dee"])
    acts = like_acts(phone, [1, 2, 3])
    obs = phone.observe()
    went_on = [*acts, Act("back", APP, obs.elements, None, "", obs.size)]
    assert detect(went_on).macro is None
    found = detect_in_run(went_on)
    assert found.macro is not None and found.acted[-1] == "Like post 3"
