"""The ten defect classes real screens showed (issue 13), each on a small dump written here.

Every fixture reproduces what a real ``uiautomator dump`` from a public repository showed
(the real files are kept out of git unless their licence allows; see
tests/fixtures/real_dumps/SOURCES.md).
"""

from __future__ import annotations

import pytest

from omg_agent.core.actions import AnchorTarget
from omg_agent.core.geometry import Bounds, ScreenGeometry
from omg_agent.core.observation import UIElement
from omg_agent.errors import UITreeError
from omg_agent.perception.anchor import Anchorer, match_anchor
from omg_agent.perception.elementlist import parse, parse_line, render
from omg_agent.perception.textmatch import TextQuery, clean_label, normalise
from omg_agent.perception.uitree import parse_elements, parse_screen

from .dumpkit import dump, nav_bar, node, status_bar, text

SIZE = (1080, 2400)


def by_label(elements, label):
    return [e for e in elements if e.label == label]


def anchor_point(elements, **key):
    found = match_anchor(AnchorTarget(**key), elements)
    assert found is not None, key
    return found, found.element.bounds.center


# 1 -- a scrollable list that is also long-clickable keeps its rows -------------------------
def chat_list() -> str:
    rows = "".join(
        node(text(name, f"[200,{300 + 200 * i}][900,{360 + 200 * i}]",
                  res="com.app:id/nickname"),
             text(f"last message {i}", f"[200,{370 + 200 * i}][900,{420 + 200 * i}]"),
             cls="android.widget.LinearLayout", bounds=f"[0,{280 + 200 * i}][1080,{470 + 200 * i}]")
        for i, name in enumerate(["Alice", "Bob", "Carol", "Dan", "Eve"]))
    lst = node(rows, cls="androidx.recyclerview.widget.RecyclerView", scrollable="true",
               long_clickable="true", bounds="[0,250][1080,1300]", res="com.app:id/chats")
    return dump(node(lst))


def test_a_long_clickable_list_does_not_swallow_its_rows():
    elements = parse_elements(chat_list())
    chats = next(e for e in elements if e.resource_id.endswith("chats"))
    assert chats.text == "" and chats.extra_texts == ()
    for name in ["Alice", "Bob", "Carol", "Dan", "Eve"]:
        (el,) = by_label(elements, name)
        _, point = anchor_point(elements, text=name)
        assert el.bounds.contains(point)


# 2 -- a full-screen clickable wrapper leaves labels by their values -----------------------
def trading_screen() -> str:
    pairs = [("可用", "12,345.00"), ("总市值", "98,765.43"), ("今日盈亏", "+1.2%")]
    cells = "".join(
        text(label, f"[40,{400 + 150 * i}][300,{460 + 150 * i}]")
        + text(value, f"[600,{400 + 150 * i}][1040,{460 + 150 * i}]")
        for i, (label, value) in enumerate(pairs))
    wrapper = node(cells, cls="android.widget.LinearLayout", clickable="true",
                   bounds="[0,0][1080,2400]", pkg="cn.futu.trader")
    return dump(node(wrapper, pkg="cn.futu.trader"))


def test_a_full_screen_clickable_wrapper_merges_nothing():
    elements = parse_elements(trading_screen())
    for label in ("可用", "总市值", "今日盈亏"):
        (el,) = by_label(elements, label)
        _, point = anchor_point(elements, text=label)
        assert el.bounds.contains(point) and point.y < 1000  # not the screen centre
    assert by_label(elements, "12,345.00")


# 3 -- "+N more" instead of a silent cut ----------------------------------------------------
def test_extra_texts_beyond_the_line_are_counted_not_dropped():
    temps = [f"{t}°" for t in range(10, 22)]
    cells = "".join(text(t, f"[{80 * i},100][{80 * i + 70},150]") for i, t in enumerate(temps))
    xml = dump(node(node(text("Weather", "[0,40][300,90]"), cells, clickable="true",
                         bounds="[0,0][1080,200]"), bounds="[0,0][1080,2400]"))
    (row,) = parse_elements(xml)
    assert row.text == "Weather" and row.extra_texts == tuple(temps)
    back = parse_line(render([row], SIZE))
    assert back is not None and back.more > 0
    assert len(back.extras) + back.more == len(temps)
    assert list(back.extras) == temps[:len(back.extras)]


# 4 -- hint is a hint; a field showing its hint is empty ------------------------------------
def form_with_hints() -> str:
    fields = "".join(
        node(cls="android.widget.EditText", clickable="true", hint=h,
             text=h if i == 0 else "", bounds=f"[40,{300 + 150 * i}][1040,{420 + 150 * i}]")
        for i, h in enumerate(["Search", "First name", "Last name", "Email", "Phone"]))
    return dump(node(fields))


def test_inputs_are_told_apart_by_hint_and_a_hint_is_not_a_value():
    elements = parse_elements(form_with_hints())
    assert [e.hint for e in elements] == ["Search", "First name", "Last name", "Email", "Phone"]
    assert all(e.text == "" for e in elements)  # "Search" shown as hint is not typed text
    listing = render(elements, SIZE)
    assert '[1] input hint="Search"' in listing
    assert len({p.hint for p in parse(listing)}) == 5
    _, point = anchor_point(elements, text="Email")  # a hint names its field
    assert elements[3].bounds.contains(point)


# 5 -- window z-order: the keyboard covers the form, and is its own group ------------------
def form_under_keyboard(*more_windows: str) -> str:
    form = node(
        text("Sign up", "[40,150][600,230]"),
        node(cls="android.widget.EditText", clickable="true", hint="Name",
             bounds="[40,300][1040,420]"),
        node(cls="android.widget.Button", text="Next", clickable="true",
             bounds="[40,1500][1040,1640]", res="com.app:id/next"),
        node(cls="android.widget.LinearLayout", clickable="true", text="Terms",
             bounds="[0,1100][1080,1500]"),
        bounds="[0,0][1080,2400]")
    ime = node(
        node(cls="android.widget.FrameLayout", desc="Go", clickable="true",
             pkg="com.google.android.inputmethod.latin", bounds="[900,2100][1080,2270]"),
        node(cls="android.widget.FrameLayout", desc="Use voice typing", clickable="true",
             pkg="com.google.android.inputmethod.latin", bounds="[0,1300][180,1400]"),
        node(cls="android.view.View", pkg="com.google.android.inputmethod.latin",
             bounds="[0,1400][1080,2400]", desc="keys"),
        pkg="com.google.android.inputmethod.latin", bounds="[0,1300][1080,2400]")
    # the keyboard first: dump order is not z-order
    return dump(ime, form, status_bar(), *more_windows)


def test_elements_under_the_keyboard_are_cut_or_dropped_and_the_keyboard_is_a_group():
    screen = parse_screen(form_under_keyboard())
    elements = screen.elements
    assert not by_label(elements, "Next")  # its centre is under the keys
    (terms,) = by_label(elements, "Terms")  # what of it shows above and beside the keys
    assert terms.window == "" and terms.bounds.top == 1100 and terms.bounds.bottom <= 1400
    keyboard = [e for e in elements if e.window == "keyboard"]
    assert [e.label for e in keyboard] == ["Go", "Use voice typing", "keys"]
    assert elements[-len(keyboard):] == tuple(keyboard)  # listed after the app
    listing = render(elements, SIZE)
    assert "-- keyboard: com.google.android.inputmethod.latin --" in listing
    assert screen.covered == 1
    keys = [c for w in screen.windows if w.kind == "keyboard" for c in w.covers]
    for e in elements:
        if e.window == "":
            assert not any(k.contains(e.center) for k in keys), e


# 6 -- system bars are not part of the app's screen ---------------------------------------
def test_status_and_navigation_bars_are_left_out_of_app_screens():
    app = node(node(cls="android.widget.Button", text="Pay", clickable="true",
                    bounds="[40,1000][1040,1140]"), bounds="[0,0][1080,2400]")
    xml = dump(status_bar(), app, nav_bar())
    elements = parse_elements(xml)
    assert [e.label for e in elements] == ["Pay"]
    listing = render(elements, SIZE)
    assert "WhatsApp" not in listing and "Battery" not in listing
    with_bars = parse_elements(xml, system_bars=True)
    assert {"Back", "Home", "12:22"} <= {e.label for e in with_bars}
    assert {e.window for e in with_bars} == {"", "bar"}


def test_the_notification_shade_stays_when_it_is_the_screen():
    pkg = "com.android.systemui"
    shade = node(
        node(text("WhatsApp", "[40,300][600,360]", pkg=pkg),
             text("6 messages from 3 chats", "[40,370][900,420]", pkg=pkg),
             clickable="true", pkg=pkg, bounds="[0,280][1080,450]"),
        node(cls="android.widget.Button", text="Clear all", clickable="true", pkg=pkg,
             bounds="[700,2000][1040,2100]"),
        pkg=pkg, bounds="[0,0][1080,2400]", res="com.android.systemui:id/notification_panel")
    elements = parse_elements(dump(shade, nav_bar()))
    assert [e.label for e in elements] == ["WhatsApp", "Clear all"]
    assert all(e.window == "" for e in elements)


# 7 -- stacks and duplicates ------------------------------------------------------------------
def test_stacked_nodes_become_one_element():
    stack = node(
        node(node(cls="android.widget.ImageView", clickable="true", desc="Like",
                  bounds="[500,500][532,532]"),
             cls="android.widget.FrameLayout", clickable="true", bounds="[500,500][532,532]"),
        node(cls="android.view.View", clickable="true", bounds="[0,0][1080,2400]"),
        node(cls="android.view.View", clickable="true", bounds="[0,0][1080,2400]"),
        bounds="[0,0][1080,2400]")
    elements = parse_elements(dump(stack))
    assert [(e.label, e.role) for e in elements] == [("Like", "button")]
    assert len({e.bounds for e in elements}) == len(elements)


# 8 -- unlabeled rows: a lone checkbox folds into its row; a lone labelled child lends its ----
def test_a_radio_row_is_one_labelled_checkable_element():
    rows = "".join(
        node(node(cls="android.widget.RadioButton", checkable="true",
                  checked="true" if i == 1 else "false",
                  bounds=f"[40,{300 + 150 * i}][120,{380 + 150 * i}]"),
             node(cls="android.widget.CheckedTextView", text=lang, checkable="true",
                  checked="true" if i == 1 else "false", res="android:id/title",
                  bounds=f"[160,{300 + 150 * i}][900,{380 + 150 * i}]"),
             cls="android.widget.LinearLayout", clickable="true",
             bounds=f"[0,{290 + 150 * i}][1080,{430 + 150 * i}]")
        for i, lang in enumerate(["English", "中文", "ไทย"]))
    elements = parse_elements(dump(node(rows)))
    assert [(e.label, e.role, e.checked) for e in elements] == [
        ("English", "radio", False), ("中文", "radio", True), ("ไทย", "radio", False)]
    assert all(e.checkable and e.clickable for e in elements)


def test_an_unlabeled_row_takes_the_label_of_its_one_labelled_control():
    row = node(node(cls="android.widget.CheckedTextView", text="Dark theme", checkable="true",
                    clickable="true", bounds="[200,300][900,380]"),
               node(cls="android.widget.ImageView", bounds="[40,300][120,380]"),
               cls="android.widget.LinearLayout", clickable="true", bounds="[0,280][1080,400]")
    toolbar = node(*(node(cls="android.widget.ImageButton", clickable="true", desc=d,
                          bounds=f"[{200 * i},500][{200 * i + 180},600]")
                     for i, d in enumerate(["Bold", "Italic"])),
                   clickable="true", bounds="[0,500][1080,600]")
    elements = parse_elements(dump(node(row, toolbar)))
    labels = [e.label for e in elements]
    assert labels[:2] == ["Dark theme", "Dark theme"]
    assert labels[2:] == ["", "Bold", "Italic"]  # two controls: no one label for the bar
    _, point = anchor_point(elements, text="Dark theme")
    assert elements[0].bounds.contains(point) and elements[1].bounds.contains(point)


# 9 -- a row's label is its title, not a wrapper's description ------------------------------
def test_a_row_is_labelled_by_its_title_not_the_first_description():
    rows = "".join(
        node(node(node(cls="android.widget.ImageView",
                            bounds=f"[8,{460 + 200 * i}][92,{540 + 200 * i}]"),
                  desc="Add to my Favorites switch button. Not Favorited",
                  bounds=f"[8,{460 + 200 * i}][92,{540 + 200 * i}]"),
             text(f"Company {i}", f"[270,{500 + 200 * i}][1000,{560 + 200 * i}]",
                  res="com.app:id/subtitle"),
             text(name, f"[270,{440 + 200 * i}][1000,{500 + 200 * i}]", res="com.app:id/title"),
             cls="android.widget.LinearLayout", clickable="true",
             bounds=f"[0,{420 + 200 * i}][1080,{600 + 200 * i}]")
        for i, name in enumerate(["Fikremariam Zewdie", "Paresh Patel"]))
    elements = parse_elements(dump(node(rows)))
    assert [e.text for e in elements] == ["Fikremariam Zewdie", "Paresh Patel"]
    assert elements[0].extra_texts[0] == "Company 0"


# 10 -- icon-font glyphs and invisible marks never reach labels nor break anchors ------------
def thai_bank() -> str:
    return dump(node(
        node(cls="android.widget.Button", text="\ue8b6 โอนเงิน", clickable="true",
             bounds="[40,400][520,520]"),
        node(cls="android.widget.Button", text="\u200fإرسال\u200f", clickable="true",
             bounds="[560,400][1040,520]"),
        node(cls="android.widget.TextView", text="\ue5cd", clickable="true", desc="null",
             bounds="[960,100][1040,180]"),
        node(cls="android.widget.TextView", text="ยอด\u200bเงิน\u200bคงเหลือ",
             bounds="[40,600][1040,680]"),
        pkg="com.kasikorn.retail.mbanking.wap"))


def test_private_use_glyphs_and_bidi_marks_are_cleaned_from_labels():
    elements = parse_elements(thai_bank())
    assert [e.label for e in elements] == ["โอนเงิน", "إرسال", "", "ยอดเงินคงเหลือ"]
    listing = render(elements, SIZE)
    assert "\ue8b6" not in listing and "\u200f" not in listing and "null" not in listing
    _, point = anchor_point(elements, text="\u200fإرسال")
    assert elements[1].bounds.contains(point)
    assert clean_label("\u2066Cart\u2069 \ue000") == "Cart"
    assert TextQuery("Settings").score("\u200eSettings\ue001") == 1
    assert normalise("ab\u200dc") == normalise("abc")


# also -- what is not a uiautomator dump says so ---------------------------------------------
@pytest.mark.parametrize("xml", [
    '<?xml version="1.0"?><hierarchy index="0" class="hierarchy" rotation="0">'
    '<android.widget.FrameLayout index="0" package="p" class="android.widget.FrameLayout" '
    'text="" bounds="[0,0][1080,2400]"/></hierarchy>',
    "<html><body><button>OK</button></body></html>",
    "<AppiumAUT><XCUIElementTypeApplication/></AppiumAUT>",
])
def test_xml_that_is_not_a_uiautomator_dump_raises(xml):
    with pytest.raises(UITreeError, match="not a uiautomator dump.*accepted"):
        parse_elements(xml)


def test_an_empty_hierarchy_is_an_empty_screen():
    assert parse_elements(dump()) == ()


# the anchor matcher reports ambiguity instead of choosing silently ------------------------
def test_an_ambiguous_anchor_names_its_candidates():
    xml = dump(node(*(node(cls="android.widget.Button", text="OK", clickable="true",
                           bounds=f"[{500 * i},500][{500 * i + 400},600]") for i in range(2))))
    elements = parse_elements(xml)
    found, _ = anchor_point(elements, text="OK")
    assert found.ambiguous and found.candidates == (elements[1],)
    anchorer = Anchorer(ScreenGeometry(1080, 2400))
    hit = anchorer.find_in_tree(AnchorTarget(text="OK"), elements)
    assert hit is not None and hit.candidates == (elements[1],)
    assert "ambiguous" in hit.detail and "[2]" in hit.detail
    unique = anchorer.find_in_tree(AnchorTarget(text="OK"), elements[:1])
    assert unique is not None and unique.candidates == () and "ambiguous" not in unique.detail


def test_the_keyboard_group_reaches_the_prompt_other_apps_overlays_do_not():
    from omg_agent.guards.injection import drop_foreign

    overlay = node(node(cls="android.widget.Button", text="Tap here", clickable="true",
                        pkg="com.evil.overlay", bounds="[300,600][700,700]"),
                   pkg="com.evil.overlay", bounds="[300,600][700,700]")
    elements = parse_elements(form_under_keyboard(overlay))
    shown = drop_foreign(elements, "com.app")
    assert {e.window for e in shown} == {"", "keyboard"}
    assert "Tap here" not in {e.label for e in shown}
    assert "Tap here" in {e.label for e in elements}  # listed as a popup, dropped by the guard


def test_a_result_names_the_row_by_the_text_the_anchor_matched():
    # relay round 27: a chat row found by "Bob" was reported as "item 'You: 马上到'", with the
    # matcher's own "(match tier 0)" — words the model never used
    row = UIElement(3, "android.widget.LinearLayout", "item", Bounds(0, 400, 1080, 560),
                    text="You: 马上到", extra_texts=("Bob", "10:02"), clickable=True)
    product = UIElement(4, "android.widget.FrameLayout", "item", Bounds(0, 600, 1080, 900),
                        text="¥5,109.00", desc="iPhone 15 128GB", clickable=True)
    anchorer = Anchorer(ScreenGeometry(1080, 2400))
    chat = anchorer.find_in_tree(AnchorTarget(text="Bob"), [row, product])
    shop = anchorer.find_in_tree(AnchorTarget(desc="iPhone 15", match="contains"),
                                 [row, product])
    assert chat is not None and chat.detail == "[3] item 'Bob'"
    assert shop is not None and shop.detail == "[4] item 'iPhone 15 128GB'"
