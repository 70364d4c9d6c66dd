"""A selector names one element of a screen: text (regex), id, desc, index, relative
position, state — judged by the one anchor matcher."""

from __future__ import annotations

from PIL import Image

from omg_agent.core.actions import AnchorTarget, ElementTarget
from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import Observation, UIElement
from omg_agent.flows.model import Selector
from omg_agent.flows.select import anchor_of, candidates, find, literal, target_for

P = "com.omg.feed:id/"


def el(i: int, top: int, *, text: str = "", desc: str = "", rid: str = "",
       left: int = 0, right: int = 1080, bottom: int | None = None,
       **flags: bool) -> UIElement:
    return UIElement(i, "android.widget.Button", "button",
                     Bounds(left, top, right, bottom or top + 100), text=text, desc=desc,
                     resource_id=P + rid if rid else "", clickable=True, **flags)


def screen(*elements: UIElement) -> Observation:
    return Observation(screenshot=Image.new("RGB", (1080, 2400)), elements=elements)


FEED = screen(
    el(1, 200, text="Feed", rid="title", right=1080, bottom=300),
    el(2, 400, text="Liked ♥", desc="Like post 1", rid="like", selected=True),
    el(3, 700, text="Like", desc="Like post 2", rid="like"),
    el(4, 1000, text="Like", desc="Like post 3", rid="like"),
    el(5, 1300, text="Share", rid="share", enabled=False),
    el(6, 1600, rid="card", left=0, right=1080, bottom=2000),
    el(7, 1700, text="Like", desc="Like post 4", rid="like", left=40, right=300),
)


def test_text_id_and_desc_name_elements_the_anchor_matcher_finds() -> None:
    assert find(Selector(desc="Like post 3"), FEED).id == 4  # type: ignore[union-attr]
    assert find(Selector(id="share"), FEED).id == 5  # type: ignore[union-attr]
    # among equal matches the matcher's own tie-break holds: the smallest element wins
    assert find(Selector(id="like", text="Like"), FEED).id == 7  # type: ignore[union-attr]
    assert find(Selector(text="Nope"), FEED) is None


def test_an_exact_text_rules_out_looser_matches() -> None:
    """'Like' is the exact text of posts 2–4; post 1's desc 'Like post 1' only contains
    the word, so it is not a candidate while exact ones exist."""
    assert [e.id for e in candidates(Selector(text="Like"), FEED)] == [3, 4, 7]


def test_index_takes_the_nth_match_top_to_bottom() -> None:
    assert find(Selector(id="like", index=0), FEED).id == 2  # type: ignore[union-attr]
    assert find(Selector(id="like", index=2), FEED).id == 4  # type: ignore[union-attr]
    assert find(Selector(id="like", index=9), FEED) is None


def test_state_filters() -> None:
    assert find(Selector(id="like", selected=False, index=0), FEED).id == 3  # type: ignore[union-attr]
    assert find(Selector(id="share", enabled=True), FEED) is None


def test_relative_below_above_and_child_of() -> None:
    below = Selector(id="like", below=Selector(desc="Like post 2"))
    assert [e.id for e in candidates(below, FEED)] == [4, 7]
    assert find(Selector(id="like", above=Selector(id="share"), index=0),
                FEED).id == 2  # type: ignore[union-attr]
    assert find(Selector(id="like", child_of=Selector(id="card")), FEED).id == 7  # type: ignore[union-attr]
    assert find(Selector(id="like", below=Selector(text="Missing")), FEED) is None


def test_text_with_regex_syntax_is_a_regex_and_literal_escapes_it() -> None:
    assert [e.id for e in candidates(Selector(text="Like post [23]"), FEED)] == [3, 4]
    price = screen(el(1, 100, text="¥8,249.00"), el(2, 300, text="¥8,249X00"))
    assert [e.id for e in candidates(Selector(text=literal("¥8,249.00")), price)] == [1]
    assert anchor_of(Selector(text="Save")) == AnchorTarget(text="Save", match="exact")


def test_the_executor_gets_the_element_or_for_plain_text_the_anchor_for_ocr() -> None:
    assert target_for(Selector(desc="Like post 3"), FEED) == ElementTarget(id=4)
    assert target_for(Selector(text="Pay now"), FEED) == AnchorTarget(text="Pay now")
    assert target_for(Selector(id="missing"), FEED) is None


def test_a_failed_check_names_what_it_awaited_and_a_few_texts_of_the_screen() -> None:
    from omg_agent.flows.model import Condition
    from omg_agent.flows.select import awaited, screen_texts

    shown = screen_texts(FEED, limit=3)
    assert shown == "the screen shows 'Feed', 'Liked ♥', 'Like' and 1 more"  # top to bottom
    secret = screen(el(1, 200, text="hunter22", password=True), el(2, 400, text="Sign in"))
    assert "hunter22" not in screen_texts(secret) and "'Sign in'" in screen_texts(secret)
    assert awaited(Condition(visible=Selector(id="save"), not_visible=Selector(text="Wait"))) \
        == "id='save' to be visible and text='Wait' to be gone"
