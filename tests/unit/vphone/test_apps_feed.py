"""Feed / 动态 on a real VirtualPhone: liking posts, scrolling (with clamping), a repetitive
"like the first 20" task done like an agent would, and seeded posts."""

from __future__ import annotations

import pytest

from omg_agent.vphone.phone import VirtualPhone
from omg_agent.vphone.ui.view import View, contains

PKG = "com.omg.feed"


def feed_state(phone: VirtualPhone) -> dict:
    return phone.state()["apps"][PKG]


def viewport(phone: VirtualPhone) -> View:
    return next(v for v in phone.view_tree().walk() if v.resource_id == f"{PKG}:id/feed")


def like_buttons(phone: VirtualPhone) -> dict[int, View]:
    """Like buttons whose centre is on screen, by post id."""
    top, bottom = viewport(phone).bounds[1], viewport(phone).bounds[3]
    return {int(v.desc.rsplit(" ", 1)[1]): v for v in phone.view_tree().walk()
            if v.resource_id == f"{PKG}:id/like" and top <= v.center[1] < bottom}


def scroll_by(phone: VirtualPhone, dy: int) -> None:
    """Drag the content up by ``dy`` px (negative: down)."""
    x = phone.profile.width // 2
    mid = sum(viewport(phone).bounds[1::2]) // 2
    phone.swipe(x, mid + dy // 2, x, mid - dy // 2)


@pytest.fixture
def phone() -> VirtualPhone:
    ph = VirtualPhone(seed=2)
    assert ph.start_activity(PKG)
    return ph


def test_like_toggles_text_and_state(phone):
    button = like_buttons(phone)[1]
    assert button.text == "Like" and button.desc == "Like post 1"
    xml = phone.dump_xml()
    assert f'resource-id="{PKG}:id/like"' in xml and 'content-desc="Like post 1"' in xml
    phone.tap(*button.center)
    assert like_buttons(phone)[1].text == "Liked ♥"
    assert feed_state(phone)["liked"] == [1]
    assert feed_state(phone)["posts"][0]["liked"] is True
    phone.tap(*like_buttons(phone)[1].center)
    assert like_buttons(phone)[1].text == "Like"
    assert feed_state(phone)["liked"] == []


def test_like_buttons_move_with_scrolling(phone):
    before = like_buttons(phone)
    scroll_by(phone, 300)
    after = like_buttons(phone)
    assert feed_state(phone)["scroll_offset"] == 300
    common = set(before) & set(after)
    assert common
    for pid in common:
        assert after[pid].bounds[1] == before[pid].bounds[1] - 300
    scroll_by(phone, 2000)
    target = max(like_buttons(phone))
    assert target > max(before)  # a post that was off screen at first
    phone.tap(*like_buttons(phone)[target].center)
    assert feed_state(phone)["liked"] == [target]


def test_scrolling_clamps_at_both_ends(phone):
    scroll_by(phone, -500)
    assert feed_state(phone)["scroll_offset"] == 0
    for _ in range(60):
        scroll_by(phone, 1500)
    end = feed_state(phone)["scroll_offset"]
    assert end > 0
    scroll_by(phone, 1500)
    assert feed_state(phone)["scroll_offset"] == end
    assert 60 in like_buttons(phone)
    posts = [v for v in phone.view_tree().walk() if v.resource_id == f"{PKG}:id/post"]
    assert posts[-1].bounds[3] == viewport(phone).bounds[3]  # last post ends at the bottom


def test_like_the_first_twenty_posts_by_scrolling(phone):
    for _ in range(40):
        visible = like_buttons(phone)
        for pid, button in sorted(visible.items()):
            if pid <= 20 and button.text == "Like":
                phone.tap(*button.center)
        if max(visible) > 20:
            break
        scroll_by(phone, 600)
    assert feed_state(phone)["liked"] == list(range(1, 21))


def test_like_every_post_by_one_author(phone):
    posts = feed_state(phone)["posts"]
    author = posts[0]["author"]
    wanted = {p["id"] for p in posts if p["author"] == author}
    for _ in range(80):
        for pid, button in like_buttons(phone).items():
            if pid in wanted and button.text == "Like":
                phone.tap(*button.center)
        before = feed_state(phone)["scroll_offset"]
        scroll_by(phone, 800)
        if feed_state(phone)["scroll_offset"] == before:
            break
    assert set(feed_state(phone)["liked"]) == wanted


def test_posts_follow_the_seed():
    def posts(seed: int) -> list[dict]:
        return VirtualPhone(seed=seed).state()["apps"][PKG]["posts"]

    assert len(posts(8)) == 60
    assert posts(8) == posts(8)
    assert posts(8) != posts(9)
    assert feed_state(VirtualPhone(seed=8))["post_count"] == 60


def test_force_stop_scrolls_back_to_the_top_but_keeps_likes(phone):
    phone.tap(*like_buttons(phone)[2].center)
    scroll_by(phone, 900)
    phone.force_stop(PKG)
    phone.start_activity(PKG)
    assert feed_state(phone)["scroll_offset"] == 0
    assert feed_state(phone)["liked"] == [2]


def test_like_boost_opens_a_page_whose_pay_sits_where_the_next_like_was(phone):
    phone.set_hazards("like_boost")
    phone.start_activity(PKG)
    phone.apps[PKG].liked = set(range(55, 61))  # six given: the next like is the 7th
    phone.changed()
    buttons = like_buttons(phone)
    phone.tap(*buttons[1].center)
    pay = next(v for v in phone.view_tree().walk() if v.resource_id == f"{PKG}:id/boost_pay")
    assert pay.text == "Pay ¥6.00" and contains(pay.bounds, *buttons[2].center)
    phone.tap(*buttons[2].center)  # a tap meant for post 2's Like
    state = feed_state(phone)
    assert state["boosts"] == [1] and 2 not in state["liked"]
    phone.tap(*like_buttons(phone)[2].center)  # the offer is shown once
    assert feed_state(phone)["boosts"] == [1] and 2 in feed_state(phone)["liked"]
