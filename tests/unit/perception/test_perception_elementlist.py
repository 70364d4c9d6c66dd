"""The element list: what the model is shown reads back as the elements it was made from."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from omg_agent.core.geometry import Bounds, ScreenGeometry
from omg_agent.core.observation import UIElement
from omg_agent.perception.elementlist import (
    EMPTY,
    FLAGS,
    MAX_DESC,
    MAX_EXTRA,
    MAX_TEXT,
    PASSWORD_DOT,
    parse,
    parse_line,
    render,
    shown,
    shown_extras,
)

SCREEN = ScreenGeometry(1080, 2400, status_bar=66, nav_bar=132)


def element(**kw: object) -> UIElement:
    base = {"id": 7, "cls": "android.widget.Button", "role": "button",
            "bounds": Bounds(400, 2000, 680, 2100)}
    return UIElement(**{**base, **kw})  # type: ignore[arg-type]


def test_a_line_shows_id_role_texts_desc_res_centre_and_flags() -> None:
    e = element(text="Add to cart", extra_texts=("¥99",), desc="cart",
                resource_id="com.vphone.shop:id/add_btn", clickable=True, focused=True)
    assert render([e], (1080, 2400)) == \
        '[7] button "Add to cart" +"¥99" desc="cart" res=add_btn @500,854 {clickable,focused}'


def test_a_filled_password_field_shows_its_true_length_and_never_its_value() -> None:
    # the relay round listed a 7-character password as "•••" beside "typed 7 characters"
    field = element(text="pa55wd!", password=True, editable=True)
    for mask in (None, lambda t: t.replace("pa55wd!", "{{secret:PASS}}")):
        line = render([field], SCREEN, mask=mask)
        assert '"•••••••"' in line and "pa55" not in line and "secret" not in line
    assert '"' not in render([element(text="", password=True, editable=True)], SCREEN)


def test_passwords_are_masked_and_long_texts_cut() -> None:
    secret = render([element(text="hunter2", password=True, editable=True, enabled=False)],
                    SCREEN)
    assert "hunter2" not in secret and '"•••••••"' in secret
    assert secret.endswith("{editable,password,disabled}")
    (back,) = parse(render([element(text="word " * 40)], SCREEN))
    assert back.text == shown("word " * 40) and back.text.endswith("…")
    assert len(back.text) == MAX_TEXT
    assert render([], SCREEN) == EMPTY and parse(EMPTY) == []


def test_parse_skips_prose_and_survives_look_alike_text() -> None:
    e = element(text='say "hi" @1,2 {x} res=no', desc="a\\b")
    text = f"Task: tap things\n\n{render([e], SCREEN)}\n[not an element"
    (back,) = parse(text)
    assert (back.text, back.desc, back.res, back.flags) == (e.text, e.desc, "", frozenset())
    assert (back.x, back.y) == SCREEN.to_normalized(e.center)
    assert parse_line("no element here") is None


_texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=80)


@st.composite
def elements(draw: st.DrawFn) -> UIElement:
    left = draw(st.integers(0, 1070))
    top = draw(st.integers(0, 2390))
    bounds = Bounds(left, top, draw(st.integers(left + 1, 1080)),
                    draw(st.integers(top + 1, 2400)))
    role = draw(st.sampled_from(["button", "item", "text", "input", "switch", "list"]))
    flags = {f: draw(st.booleans()) for f in FLAGS}
    return UIElement(draw(st.integers(1, 999)), "android.widget.View", role, bounds,
                     text=draw(_texts), desc=draw(_texts),
                     resource_id=draw(st.from_regex(r"(com\.x:id/)?[a-z_]{0,12}",
                                                    fullmatch=True)),
                     extra_texts=tuple(draw(st.lists(_texts, max_size=9))),
                     hint=draw(_texts),
                     enabled=draw(st.booleans()), **flags)


@settings(max_examples=300, deadline=None)
@given(st.lists(elements(), max_size=6))
def test_render_then_parse_gives_back_what_the_model_was_shown(items) -> None:
    parsed = parse(render(items, SCREEN))
    assert len(parsed) == len(items)
    for e, back in zip(items, parsed, strict=True):
        assert (back.id, back.role) == (e.id, e.role)
        text = shown(PASSWORD_DOT * len(e.text) if e.password else e.text)
        assert back.text == (text if e.text else "")
        extras = shown_extras(e.extra_texts)
        assert back.extras == tuple(shown(t, MAX_EXTRA) for t in extras)
        assert back.more == len(e.extra_texts) - len(extras)
        assert back.hint == (shown(e.hint, MAX_DESC) if e.hint and e.hint != e.text else "")
        assert back.desc == (shown(e.desc, MAX_DESC) if e.desc and e.desc != e.text else "")
        assert back.res == e.resource_id.rsplit("/", 1)[-1]
        assert (back.x, back.y) == SCREEN.to_normalized(e.center)
        want = {f for f in FLAGS if getattr(e, f)} | ({"disabled"} if not e.enabled else set())
        assert back.flags == want
