"""uiautomator XML → compact element list, checked against the vphone's own view tree.

Screens come from every vphone app: its first screen, every screen one tap away from it,
and a few states that stress the parser (a long notes list, a scrolled feed, the ANR dialog,
a typed password).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from omg_agent.core.geometry import Bounds
from omg_agent.errors import UITreeError
from omg_agent.perception.element_diff import changed_elements
from omg_agent.perception.elementlist import render
from omg_agent.perception.textmatch import clean_label
from omg_agent.perception.uitree import estimate_tokens, parse_elements
from omg_agent.vphone.phone import VirtualPhone
from omg_agent.vphone.ui.view import View, visible_children
from omg_agent.vphone.ui.xmldump import window_root

T0 = 1_700_000_000.0
EDIT_SUFFIXES = ("EditText", "AutoCompleteTextView")


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


def _phone() -> tuple[VirtualPhone, Clock]:
    clock = Clock()
    return VirtualPhone(clock=clock), clock


def _snapshot(phone: VirtualPhone) -> tuple[str, View]:
    with phone.lock:
        return phone.dump_xml(), phone.view_tree()


def _replay(pkg: str, path: tuple[tuple[int, int], ...]) -> VirtualPhone:
    """A fresh phone with ``pkg`` launched and ``path`` tapped (clock moved on after each)."""
    phone, clock = _phone()
    phone.apps["com.omg.shop"].promo_mode = "never"  # type: ignore[attr-defined]
    phone.start_activity(pkg)
    for x, y in path:
        phone.tap(x, y)
        clock.now += 10  # let slow screens finish loading
    return phone


def _promo() -> VirtualPhone:
    phone, _ = _phone()
    phone.apps["com.omg.shop"].promo_mode = "always"  # type: ignore[attr-defined]
    phone.start_activity("com.omg.shop")
    return phone


def _many_notes() -> VirtualPhone:
    phone, _ = _phone()
    phone.start_activity("com.omg.notes")
    for i in range(14):
        phone.tap(926, 2180)  # the "+" button
        phone.input_text(f"Note {i} with a reasonably long title")
        save = next(e for e in parse_elements(phone.dump_xml())
                    if e.resource_id.endswith(":id/save"))
        phone.tap(*save.center)
    return phone


def _feed_scrolled() -> VirtualPhone:
    phone, _ = _phone()
    phone.start_activity("com.omg.feed")
    phone.swipe(540, 1800, 540, 700)
    return phone


def _anr() -> VirtualPhone:
    phone, _ = _phone()
    phone.start_activity("com.android.settings")
    phone.show_anr()
    return phone


def _password_typed() -> VirtualPhone:
    phone, _ = _phone()
    phone.start_activity("com.omg.login")
    inputs = [e for e in parse_elements(phone.dump_xml()) if e.editable]
    phone.tap(*inputs[-1].center)
    phone.input_text("s3cret-pass")
    return phone


SPECIAL: dict[str, Callable[[], VirtualPhone]] = {
    "shop with its promotion popup": _promo, "notes with 14 notes": _many_notes,
    "feed scrolled": _feed_scrolled, "settings + ANR dialog": _anr,
    "login with password typed": _password_typed}


@dataclass(frozen=True)
class Shown:
    """What the tests read of one view uiautomator would dump, with the bounds it reports."""

    cls: str
    bounds: Bounds
    text: str
    hint: str
    clickable: bool
    long_clickable: bool
    scrollable: bool
    checkable: bool
    checked: bool
    focused: bool
    enabled: bool
    password: bool


def _shown_views(root: View) -> tuple[Shown, ...]:
    """Every view uiautomator would dump, with the bounds it would report."""
    out: list[Shown] = []

    def walk(view: View, shown: tuple[int, int, int, int]) -> None:
        out.append(Shown(view.cls, Bounds(*shown), view.text, view.hint, view.clickable,
                         view.long_clickable, view.scrollable, view.checkable, view.checked,
                         view.focused, view.enabled, view.password))
        if not view.opaque_to_tree:
            for child, child_shown in visible_children(view, shown):
                walk(child, child_shown)

    walk(window_root(root), (0, 0, 1080, 2400))
    return tuple(out)


def _collect_screens(depth: int = 2, per_screen: int = 8
                     ) -> dict[str, tuple[str, tuple[Shown, ...]]]:
    """Each app's first screen and the screens up to ``depth`` taps away from it: its XML
    and what the tests read of its views. Phones are closed as they are explored (a worker
    that kept ~300 phones with their views and handlers held gigabytes for the whole run,
    and every garbage collection walked them), and no screen is made twice (the tests of a
    screen read what its exploration saw: ~300 phones made again per test function)."""
    screens: dict[str, tuple[str, tuple[Shown, ...]]] = {}
    seen: set[str] = set()

    def keep(name: str, make: Callable[[], VirtualPhone]) -> str | None:
        phone = make()
        try:
            xml, root = _snapshot(phone)
            if xml in seen:
                return None
            screens[name] = (xml, _shown_views(root))
        finally:
            phone.close()
        seen.add(xml)
        return xml

    # The launcher last: the apps it opens are explored from their own first screens.
    packages = sorted(VirtualPhone().packages(), key=lambda p: p == "com.android.launcher3")
    for pkg in packages:
        frontier: list[tuple[str, tuple[tuple[int, int], ...]]] = [(pkg, ())]
        for level in range(depth + 1):
            following = []
            for name, path in frontier:
                xml = keep(name, functools.partial(_replay, pkg, path))
                if xml is None or level == depth:
                    continue
                taps = [e for e in parse_elements(xml) if e.clickable][:per_screen]
                following += [(f"{name} → {e.label or e.resource_id or e.id}",
                               (*path, tuple(e.center))) for e in taps]
            frontier = following
    for name, make in SPECIAL.items():
        keep(name, make)
    return screens


SCREENS = _collect_screens()


def screen_of(name: str) -> tuple[str, tuple[Shown, ...]]:
    """The XML of screen ``name`` and its views as uiautomator would dump them."""
    return SCREENS[name]


def _interactive(view: Shown) -> bool:
    return (view.clickable or view.long_clickable or view.scrollable or view.checkable
            or view.password or view.cls.endswith(EDIT_SUFFIXES))


def test_the_screen_set_covers_every_app_and_many_screens():
    packages = {name.split(" ")[0] for name in SCREENS}
    assert set(VirtualPhone().packages()) <= packages
    assert len(SCREENS) >= 50


@pytest.mark.parametrize("name", sorted(SCREENS))
def test_element_bounds_equal_the_view_tree_and_every_interactive_view_is_kept(name):
    xml, views = screen_of(name)
    elements = parse_elements(xml)
    assert [e.id for e in elements] == list(range(1, len(elements) + 1))
    by_place = {(v.cls, v.bounds): v for v in views}
    for e in elements:
        view = by_place.get((e.cls, e.bounds))
        assert view is not None, f"{e!r} has no view with those bounds"
        assert (e.clickable, e.scrollable, e.checkable, e.checked, e.focused, e.enabled) == (
            view.clickable, view.scrollable, view.checkable, view.checked, view.focused,
            view.enabled)
        if view.text:  # an empty field's text is its placeholder: a hint, not a value
            empty_field = bool(view.hint) and view.text == view.hint
            assert e.text == ("" if empty_field else clean_label(view.text))  # lines joined
        assert e.hint == view.hint
    kept = {(e.cls, e.bounds) for e in elements}
    missing = [(v.cls, v.text, v.bounds) for v in views if _interactive(v)
               and not v.bounds.empty and (v.cls, v.bounds) not in kept]
    assert missing == []


@pytest.mark.parametrize("name", sorted(SCREENS))
def test_every_visible_text_survives_as_an_element_or_merged_into_one(name):
    xml, views = screen_of(name)
    elements = parse_elements(xml)
    texts = {t for e in elements for t in (e.text, e.desc, e.hint, *e.extra_texts) if t}
    lost = [v.text for v in views if v.text and not v.bounds.empty
            and clean_label(v.text) not in texts]
    assert lost == []


@pytest.mark.parametrize("name", sorted(SCREENS))
def test_the_list_the_model_receives_is_at_most_a_seventh_of_the_xml_tokens(name):
    xml, _ = screen_of(name)
    compact = render(parse_elements(xml), (1080, 2400))
    assert "<node" not in compact and "bounds=" not in compact
    assert 7 * estimate_tokens(compact) <= estimate_tokens(xml), (
        f"{estimate_tokens(compact)} vs {estimate_tokens(xml)} tokens")


def test_a_list_row_takes_its_texts_and_the_text_nodes_disappear():
    phone, _ = _phone()
    phone.start_activity("com.android.settings")
    elements = parse_elements(phone.dump_xml())
    row = next(e for e in elements if e.text == "Wi-Fi")
    assert row.role == "item" and row.clickable and row.extra_texts == ("Connected",)
    assert not any(e.text == "Connected" for e in elements)
    switch = next(e for e in elements if e.resource_id.endswith("wifi_switch"))
    assert switch.role == "switch" and switch.checked and switch.text == "ON"
    lines = render(elements, (1080, 2400)).splitlines()
    assert f'[{row.id}] item "Wi-Fi" +"Connected" @500,151 {{clickable}}' in lines
    assert f'[{switch.id}] switch "ON" res=wifi_switch @868,151 {{clickable,checkable,checked}}' \
        in lines


def test_password_values_are_never_rendered():
    xml, _ = screen_of("login with password typed")
    elements = parse_elements(xml)
    field = next(e for e in elements if e.password)
    assert field.role == "input" and field.editable and field.focused
    text = render(elements, (1080, 2400))
    assert '"•••••••••••"' in text and "s3cret" not in text  # one dot per character typed


# -- synthetic dumps for the rules real screens may not show ----------------------------
def _node(children: str = "", **attrs: str) -> str:
    base = {"text": "", "resource-id": "", "class": "android.widget.FrameLayout",
            "package": "p", "content-desc": "", "clickable": "false",
            "bounds": "[0,0][100,100]"}
    base.update({k.replace("_", "-"): v for k, v in attrs.items()})
    body = " ".join(f'{k}="{v}"' for k, v in base.items())
    return f"<node {body}>{children}</node>" if children else f"<node {body} />"


def _dump(*nodes: str) -> str:
    return ("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
            + "".join(nodes) + "</hierarchy>")


def test_invisible_zero_size_and_layout_nodes_are_dropped():
    xml = _dump(_node(
        _node(text="hidden", visible_to_user="false", clickable="true")
        + _node(text="flat", bounds="[10,10][90,10]")
        + _node(_node(text="deep", bounds="[0,0][50,50]"), resource_id="p:id/layout")
        + _node(clickable="true", bounds="[0,0][0,0]")
    ))
    elements = parse_elements(xml)
    assert [(e.text, e.role) for e in elements] == [("deep", "text")]


def test_merging_rules():
    button = _node(
        _node(text="Pay", bounds="[0,0][40,20]", **{"class": "android.widget.TextView"})
        + _node(text="¥12", bounds="[40,0][80,20]", **{"class": "android.widget.TextView"})
        + _node(content_desc="card icon", bounds="[80,0][100,20]",
                **{"class": "android.widget.ImageView"})
        + _node(text="Pay", bounds="[0,20][40,40]", **{"class": "android.widget.TextView"})
        + _node(text="×", clickable="true", bounds="[90,0][100,10]",
                **{"class": "android.widget.ImageButton"}),
        clickable="true", bounds="[0,0][100,40]", **{"class": "android.widget.LinearLayout"})
    labelled = _node(_node(text="inner", bounds="[0,50][50,60]"), text="Own", clickable="true",
                     bounds="[0,50][100,60]", **{"class": "android.widget.Button"})
    scroller = _node(_node(text="row text", bounds="[0,70][100,80]"), scrollable="true",
                     bounds="[0,60][100,100]",
                     **{"class": "androidx.recyclerview.widget.RecyclerView"})
    outer = _node(button + labelled + scroller, clickable="true", bounds="[0,0][100,100]")
    elements = parse_elements(_dump(outer))
    summary = [(e.id, e.role, e.text, e.extra_texts) for e in elements]
    # the unlabeled clickable filling the window is a wrapper: it merges nothing and,
    # holding other elements, is not listed
    assert summary == [
        (1, "item", "Pay", ("¥12", "card icon")),
        (2, "button", "×", ()),
        (3, "button", "Own", ("inner",)),
        (4, "list", "", ()),
        (5, "text", "row text", ()),
    ]


def test_dump_with_trailing_status_line_is_read_and_garbage_is_rejected():
    xml = _dump(_node(text="hi")) + "\nUI hierchary dumped to: /dev/tty\n"
    assert [e.text for e in parse_elements(xml)] == ["hi"]
    with pytest.raises(UITreeError):
        parse_elements("ERROR: null root node returned by UiTestAutomationBridge.")
    with pytest.raises(UITreeError):
        parse_elements("<hierarchy><node></hierarchy>")


# -- diffs --------------------------------------------------------------------------------
def test_changed_elements_catches_a_toggle_and_a_scroll():
    phone, _ = _phone()
    phone.start_activity("com.android.settings")
    before = parse_elements(phone.dump_xml())
    assert changed_elements(before, parse_elements(phone.dump_xml())) == []
    phone.set_wifi(False)
    after = parse_elements(phone.dump_xml())
    changes = {(c.kind, c.new.text if c.new else None): c.fields
               for c in changed_elements(before, after)}
    assert changes == {("changed", "OFF"): ("text", "checked"),
                       ("changed", "Wi-Fi"): ("extra_texts",)}

    phone.start_activity("com.omg.feed")
    top = parse_elements(phone.dump_xml())
    phone.swipe(540, 1500, 540, 1440)
    kinds = {c.kind for c in changed_elements(top, parse_elements(phone.dump_xml()))}
    assert kinds == {"added", "removed"}
