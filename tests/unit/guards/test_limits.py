"""What the user stated is kept: a payment's limit, a send's text, a whole-name target —
from the task's words and ``--allow``, checked by the gate on the screen acted on."""

from __future__ import annotations

from decimal import Decimal

import pytest
from gate_screens import MESSAGES, SHOP, element, made_screen, observe, tap

from omg_agent.core.actions import Back, parse_action
from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import Observation, OcrBox
from omg_agent.guards.amounts import UNREADABLE, Limit, Money
from omg_agent.guards.authorisation import (
    Authorisation,
    names,
    parse_allow,
    parse_authorisations,
    same_message,
)
from omg_agent.guards.landing_target import target_element, text_at
from omg_agent.guards.payable import payment_amounts, total_rows
from omg_agent.guards.sensitive import Gate, message_text
from omg_agent.perception.anchor import Anchorer

A = Authorisation
KINDLE = "p15"  # ¥1,079.00 on a seed-0 phone


def cny(value: str) -> Money:
    return Money(Decimal(value), "CNY")


def at_most(value: str, currency: str | None = "CNY") -> Limit:
    return Limit(Money(Decimal(value), currency))


def tap_on(e):
    return parse_action({"type": "tap", "target": e.id})


# -- from the user's words ------------------------------------------------------------------
@pytest.mark.parametrize(("text", "expected"), [
    ("Pay for the order in Shop; you may pay at most 1 yuan", [A("payment", None,
                                                                 limit=at_most("1"))]),
    ("you can pay under ¥5", [A("payment", None, limit=Limit(cny("5"), inclusive=False))]),
    ("You can pay up to ¥100 in Shop.", [A("payment", "Shop", limit=at_most("100"))]),
    ("You may pay up to ¥1.5 in Shop.", [A("payment", "Shop", limit=at_most("1.5"))]),
    ("You may pay in Shop, but no more than $20", [A("payment", "Shop",
                                                     limit=at_most("20", "USD"))]),
    ("you may pay ¥100 in Shop", [A("payment", "Shop", limit=at_most("100"))]),
    ("You may pay at most one hundred dollars", [A("payment", None, limit=UNREADABLE)]),
    ("可以最多付100元", [A("payment", None, limit=at_most("100"))]),
    ("允许支付不超过100元", [A("payment", None, limit=at_most("100"))]),
    ("可以支付100元以内", [A("payment", None, limit=at_most("100"))]),
    ("可以付款，最多100元", [A("payment", None, limit=at_most("100"))]),
    ("You may pay", [A("payment", None)]),
    ("you may delete up to 3 notes", [A("delete", "3 notes")]),
])
def test_a_limit_the_user_states_is_kept(text, expected):
    assert parse_authorisations(text) == [
        A(a.cls, a.target, "task", a.limit, a.text) for a in expected]


@pytest.mark.parametrize(("text", "target", "said"), [
    ("Send hello to Alice", "Alice", "hello"),
    ("Send 'See you at 7' to Bob in Messages", "Bob", "See you at 7"),
    ("Send The meeting moved to 3pm to Alice in Messages", "Alice", "The meeting moved to 3pm"),
    ("在信息里给妈妈发送：晚上回家吃饭。", "妈妈", "晚上回家吃饭"),
    ("Reply Hi in the conversation with 张伟 in Messages", "张伟", "Hi"),
])
def test_a_send_named_in_the_task_authorises_its_text_only(text, target, said):
    assert parse_authorisations(text) == [A("send", target, "task", text=said)]


# -- from --allow -----------------------------------------------------------------------------
@pytest.mark.parametrize(("value", "expected"), [
    ("payment:<=100", [A("payment", None, "--allow", at_most("100", None))]),
    ("payment:Shop<=¥100", [A("payment", "Shop", "--allow", at_most("100"))]),
    ("payment:<5", [A("payment", None, "--allow", Limit(Money(Decimal(5)), inclusive=False))]),
    ("payment:¥1", [A("payment", None, "--allow", at_most("1"))]),
    ("payment: ≤ 1.079,00 €", [A("payment", None, "--allow", at_most("1079.00", "EUR"))]),
    ("send:Bob,payment:<=1,079.00", [A("send", "Bob", "--allow"),
                                     A("payment", None, "--allow", at_most("1079.00", None))]),
    ("send:138 1234 5678", [A("send", "138 1234 5678", "--allow")]),
])
def test_allow_names_a_limit_after_the_target(value, expected):
    assert parse_allow([value]) == expected


@pytest.mark.parametrize(("value", "error"), [
    ("payment:<=abc", "cannot read the amount 'abc' in 'payment:<=abc'"),
    ("payment:>=100", "cannot read the limit in 'payment:>=100'"),
    ("payment:=100", "cannot read the limit"),
    ("send:Bob<=5", "an amount limit applies to payment only"),
    ("send:Bob,Alice", "unknown sensitive class 'Alice'"),
    ("payment:" + "x" * 300, "longer than 200 characters"),
])
def test_a_limit_allow_cannot_read_is_a_one_line_error(value, error):
    with pytest.raises(ValueError, match=error) as caught:
        parse_allow([value])
    assert "\n" not in str(caught.value)


# -- whole names, never fragments --------------------------------------------------------------
@pytest.mark.parametrize(("target", "subject", "hit"), [
    ("¥1", "Pay ¥1,079.00", False),
    ("1", "Pay ¥1,079.00", False),
    ("079", "Pay ¥1,079.00", False),
    ("Bob", "Bob (mobile)", True),
    ("Bob", "Bobby", False),
    ("ＢＯＢ", "bob", True),
    ("Bob Smith", "Chat with Bob Smith", True),
    ("Smith Bob", "Chat with Bob Smith", False),
    ("138 1234 5678", "13812345678", True),
    ("138 1234 5678", "+86 138 1234 5678", True),
    ("1234", "+86 138 1234 5678", True),
    ("活动", "Promotions 活动", True),
    ("妈妈", "和妈妈的对话", False),
    ("shop", "com.omg.shop", True),
    ("", "anything", False),
])
def test_a_target_names_a_whole_word_or_number(target, subject, hit):
    assert names(target, subject) is hit


def test_messages_compare_case_width_spacing_and_quotes_aside():
    assert same_message("  See  YOU at 7 ", "'See you at 7'")
    assert same_message("晚上回家吃饭", "晚上回家吃饭。")
    assert not same_message("See you at 8", "See you at 7")
    assert not same_message("", "hello")


# -- the gate at the Shop's checkout -----------------------------------------------------------
@pytest.fixture
def checkout(make_phone):
    phone = make_phone(seed=0)
    phone.apps[SHOP].cart = {KINDLE: 1}
    phone.start_activity(SHOP)
    phone.apps[SHOP].push("checkout")
    obs = observe(phone)
    pay = element(obs, rid="pay")
    assert pay.text == "Pay ¥1,079.00"
    return obs, pay


def decide(auths, checkout):
    obs, pay = checkout
    return Gate(auths).check(tap_on(pay), pay, obs)


@pytest.mark.parametrize(("allow", "task"), [
    ("payment:¥1", ""),
    ("payment:<=1000", ""),
    ("payment:<1079", ""),
    ("payment:<=$2000", ""),
    ("payment:Shop<=¥1,078.99", ""),
    ("", "Pay for the order in Shop; you may pay at most 1 yuan"),
    ("payment", "Pay for the order in Shop; you may pay at most 1 yuan"),
    ("", "you can pay under ¥5"),
    ("", "You may pay at most one hundred dollars"),
])
def test_a_payment_beyond_a_stated_limit_is_asked(checkout, allow, task):
    decision = decide([*parse_allow([allow] if allow else []),
                       *parse_authorisations(task)], checkout)
    assert decision.needs_confirmation and decision.authorisation is None
    assert decision.sensitivity.cls == "payment"
    assert "beyond your limit" in decision.sensitivity.reason
    assert decision.sensitivity.describe == f'tap "Pay ¥1,079.00" (button, {SHOP})'


@pytest.mark.parametrize("allow", ["payment:<=¥2,000", "payment:<=1079", "payment:<1079.01",
                                   "payment:Shop<=2000", "payment:¥1,079.00", "payment"])
def test_a_payment_within_the_limit_is_allowed_without_a_question(checkout, allow):
    decision = decide(parse_allow([allow]), checkout)
    assert decision.allowed and decision.authorisation == parse_allow([allow])[0]
    assert decision.sensitivity.amounts == (cny("1079.00"),)
    assert decision.sensitivity.text is None


def test_the_gate_reads_the_label_and_the_total_row(checkout):
    obs, pay = checkout
    assert payment_amounts(pay, obs) == (cny("1079.00"),)
    assert total_rows(obs) == ["Total: ¥1,079.00"]
    assert decide(parse_allow(["payment:Bob<=2000"]), checkout).needs_confirmation


def _pay_screen(*rows: dict) -> Observation:
    return made_screen(SHOP, [
        {"text": "Checkout", "bounds": (0, 100, 1080, 250)},
        *rows,
        {"role": "button", "cls": "android.widget.Button", "clickable": True,
         "text": "Pay now", "resource_id": f"{SHOP}:id/pay", "bounds": (40, 2000, 1040, 2150)},
    ])


def _decide_on(obs: Observation, allow: str = "payment:<=¥100"):
    pay = obs.elements[-1]
    return Gate(parse_allow([allow])).check(tap_on(pay), pay, obs)


def test_no_amount_on_the_screen_is_asked():
    obs = _pay_screen({"text": "Pixel 8 × 1", "bounds": (40, 500, 1040, 600)})
    decision = _decide_on(obs)
    assert decision.needs_confirmation
    assert "no amount could be read" in decision.sensitivity.reason
    assert _decide_on(obs, "payment").allowed  # no limit: nothing to read


def test_a_total_beside_its_label_and_the_highest_amount_count():
    split = _pay_screen({"text": "Total", "bounds": (40, 1800, 500, 1900)},
                        {"text": "¥2,500.00", "bounds": (600, 1810, 1040, 1890)},
                        {"text": "¥5.00 shipping", "bounds": (600, 1000, 1040, 1100)})
    assert payment_amounts(split.elements[-1], split) == (cny("2500.00"),)
    assert _decide_on(split, "payment:<=3000").allowed
    assert _decide_on(split, "payment:<=2000").needs_confirmation
    both = _pay_screen({"text": "合计 ¥99.00", "bounds": (40, 1800, 1040, 1900)},
                       {"text": "应付 ¥199.00", "bounds": (40, 1700, 1040, 1800)})
    assert _decide_on(both, "payment:<=150").needs_confirmation
    assert _decide_on(both, "payment:<=199").allowed


def test_a_subtotal_alone_is_not_the_total():
    obs = _pay_screen({"text": "Subtotal ¥50.00", "bounds": (40, 1800, 1040, 1900)})
    assert _decide_on(obs).needs_confirmation


def test_an_amount_in_another_currency_is_asked():
    obs = _pay_screen({"text": "Total: $50.00", "bounds": (40, 1800, 1040, 1900)})
    decision = _decide_on(obs)
    assert decision.needs_confirmation and "$50.00 is beyond" in decision.sensitivity.reason
    assert _decide_on(obs, "payment:<=100").allowed  # no currency stated: the number


def test_texts_inside_the_button_are_its_amount():
    obs = made_screen(SHOP, [
        {"role": "button", "cls": "android.widget.FrameLayout", "clickable": True,
         "resource_id": f"{SHOP}:id/pay", "bounds": (40, 1800, 1040, 1950)},
        {"text": "Pay", "bounds": (80, 1820, 300, 1900)},
        {"text": "¥12.00", "bounds": (600, 1820, 1000, 1900)},
        {"text": "¥999.00", "editable": True, "role": "input",
         "bounds": (40, 1000, 1040, 1100)},
    ])
    button = obs.elements[0]
    assert payment_amounts(button, obs) == (cny("12.00"),)
    assert Gate(parse_allow(["payment:<=20"])).check(tap_on(button), button, obs).allowed


def test_an_anchors_words_are_not_the_screens_amount():
    web = made_screen("com.android.chrome", [
        {"role": "web", "cls": "android.webkit.WebView", "bounds": (0, 200, 1080, 2200)}])
    obs = Observation(web.screenshot, web.elements, package=web.package,
                      ocr=(OcrBox("Pay ¥1,079.00", Bounds(300, 1500, 780, 1600), 0.9),))
    tapped = parse_action({"type": "tap", "target": "text=Pay ¥1"})
    gate = Gate(parse_allow(["payment:<=¥2"]))
    assert payment_amounts(None, obs, "Pay ¥1") == ()
    assert gate.check(tapped, None, obs, ocr_text="Pay ¥1").needs_confirmation
    assert payment_amounts(None, obs, "Pay ¥1,079.00") == (cny("1079.00"),)
    assert gate.check(tapped, None, obs, ocr_text="Pay ¥1,079.00").needs_confirmation
    assert Gate(parse_allow(["payment:<=¥1079"])).check(
        tapped, None, obs, ocr_text="Pay ¥1,079.00").allowed


# -- sends: the text the user gave --------------------------------------------------------------
@pytest.fixture
def bobs_thread(make_phone):
    phone = make_phone()
    phone.start_activity(MESSAGES)
    tap(phone, desc="Bob")
    tap(phone, rid="compose")
    return phone


def _send(phone, task: str, typed: str):
    phone.input_text(typed)
    obs = observe(phone)
    send = element(obs, rid="send")
    return Gate(parse_authorisations(task)).check(tap_on(send), send, obs)


def test_send_passes_with_the_users_text_only(bobs_thread):
    assert _send(bobs_thread, "Send See you at 7 to Bob in Messages", "see  you AT 7").allowed
    bobs_thread.key(67)  # nothing: the field keeps what was typed; type more below
    decision = _send(bobs_thread, "Send See you at 7 to Bob in Messages", " and bring cash")
    assert decision.needs_confirmation
    assert "is not the one you gave ('See you at 7')" in decision.sensitivity.reason


def test_a_permission_naming_only_the_recipient_never_frees_the_text_the_user_gave(
        bobs_thread):
    """Attacker probe: with "you may send messages to Bob" (or --allow send:Bob) beside
    "Send See you at 7 to Bob", a hostile model sent "Transfer approved" unasked."""
    task = "Send See you at 7 to Bob in Messages; you may send messages to Bob"
    assert _send(bobs_thread, task, "Transfer approved").needs_confirmation


def test_typing_with_submit_and_enter_send_what_the_box_will_hold(bobs_thread):
    gate = Gate(parse_authorisations("Send hello to Bob in Messages"))
    obs = observe(bobs_thread)
    box = element(obs, rid="compose")
    typed = parse_action({"type": "type", "text": "hello", "target": box.id, "submit": True})
    other = parse_action({"type": "type", "text": "bye", "target": box.id, "submit": True})
    assert gate.check(typed, box, obs).allowed
    assert gate.check(other, box, obs).needs_confirmation
    bobs_thread.input_text("hello")
    enter = parse_action({"type": "key", "key": "enter"})
    obs = observe(bobs_thread)
    assert gate.check(enter, None, obs).allowed
    appended = parse_action({"type": "type", "text": " there", "target": box.id,
                             "submit": True})
    assert gate.check(appended, element(obs, rid="compose"), obs).needs_confirmation


def test_message_text_is_the_focused_box_or_one_that_all_agree_on():
    def box(text: str, focused: bool = False, rid: str = "compose") -> dict:
        return {"role": "input", "editable": True, "text": text, "focused": focused,
                "resource_id": f"{MESSAGES}:id/{rid}", "bounds": (0, 2000, 800, 2100)}

    assert message_text(made_screen(MESSAGES, [box("a"), box("b", focused=True)])) == "b"
    assert message_text(made_screen(MESSAGES, [box("a"), box("b")])) is None
    assert message_text(made_screen(MESSAGES, [box("a"), box("a")])) == "a"
    assert message_text(made_screen(MESSAGES, [box("x", rid="search"), box("a")])) == "a"
    assert message_text(made_screen(MESSAGES, [box("Bob", rid="recipient"), box("")])) == ""
    assert message_text(made_screen(MESSAGES, [])) is None


def test_authorisations_say_what_they_allow():
    assert str(A("payment", "Shop", limit=at_most("100"))) == "payment to 'Shop', at most ¥100"
    assert str(A("send", "Bob", text="hi")) == "send to 'Bob', text 'hi'"
    assert str(A("delete")) == "any delete"


# -- the corners mutation testing found (docs/mutation.md) ----------------------------------
def test_the_buttons_own_label_is_its_amount_when_nothing_is_inside():
    obs = _pay_screen()
    button = made_screen(SHOP, [{"role": "button", "cls": "android.widget.Button",
                                 "clickable": True, "text": "Pay ¥300.00",
                                 "bounds": (40, 2000, 1040, 2150)}]).elements[0]
    assert payment_amounts(button, obs) == (cny("300.00"),)


def test_total_rows_merge_texts_split_rows_and_rows_on_the_edge():
    merged = made_screen(SHOP, [{"text": "Total", "extra_texts": ("¥5.00",),
                                 "bounds": (40, 1800, 1040, 1900)}])
    assert total_rows(merged) == ["Total ¥5.00"]
    two = made_screen(SHOP, [
        {"text": "Amount to pay: ¥300.00", "bounds": (40, 1000, 1040, 1100)},
        {"text": "Total", "bounds": (40, 1800, 500, 1900)},
        {"text": "¥100.00", "bounds": (600, 1700, 1000, 1900)},  # centre on the top edge
        {"text": "¥7.00", "bounds": (600, 1860, 1000, 1940)},  # centre on the bottom edge
    ])
    rows = total_rows(two)
    assert rows[0] == "Amount to pay: ¥300.00"
    assert "¥100.00" in rows and "¥7.00" in rows
    assert total_rows(made_screen(SHOP, [{"text": "Amount pay to ¥3.00",
                                          "bounds": (0, 0, 10, 10)}])) == []


def test_search_and_recipient_boxes_are_known_by_description_and_hint_too():
    def box(text: str, **more) -> dict:
        return {"role": "input", "editable": True, "text": text,
                "resource_id": f"{MESSAGES}:id/input", "bounds": (0, 2000, 800, 2100), **more}

    for other in ({"desc": "Search"}, {"hint": "Search messages"}, {"desc": "To"},
                  {"hint": "Recipient"}):
        assert message_text(made_screen(MESSAGES, [box("x", **other), box("a")])) == "a"


def test_ocr_text_under_a_point_is_the_smallest_box_there():
    web = made_screen("com.android.chrome", [
        {"role": "web", "cls": "android.webkit.WebView", "bounds": (0, 200, 1080, 2200)}])
    obs = Observation(web.screenshot, web.elements, package=web.package, ocr=(
        OcrBox("Checkout Pay now", Bounds(100, 1400, 1000, 1700), 0.9),
        OcrBox("Pay now", Bounds(300, 1500, 780, 1600), 0.9)))
    assert text_at(obs, (540, 1550)) == "Pay now"
    assert text_at(obs, (540, 300)) is None


def test_an_action_without_a_target_lands_on_nothing_unless_it_types(bobs_thread):
    obs = observe(bobs_thread)
    anchorer = Anchorer(obs.screen)
    assert obs.focused is not None
    assert target_element(Back(), obs, anchorer) is None
    typing = parse_action({"type": "type", "text": "hi"})
    assert target_element(typing, obs, anchorer) == obs.focused


def test_more_authorisations_join_the_gates():
    gate = Gate(parse_allow(["send"])).with_authorisations(parse_allow(["payment"]))
    assert [a.cls for a in gate.authorisations] == ["send", "payment"]


@pytest.mark.parametrize(("typed", "given", "same"), [
    ('"hello".', "hello", True), ("hello.”", "hello", True), ("晚上 回家", "晚上回家", True),
    ("see you", "seeyou", False)])
def test_message_quotes_stops_and_spaces(typed, given, same):
    assert same_message(typed, given) is same


def test_a_target_is_a_whole_word_between_spaces():
    assert names("妈妈", "妈妈 的 手机")


@pytest.mark.parametrize(("value", "expected"), [
    ("payment:<=12,5 €", [A("payment", None, "--allow", at_most("12.5", "EUR"))]),
    ("send:Xavier", [A("send", "Xavier", "--allow")]),
    ("send:" + "x" * 195, [A("send", "x" * 195, "--allow")]),  # 200 characters
])
def test_allow_items_at_the_edges(value, expected):
    assert parse_allow([value]) == expected


def test_allow_errors_name_what_is_accepted():
    with pytest.raises(ValueError, match="choose from: payment, delete, send"):
        parse_allow(["5"])
    with pytest.raises(ValueError, match="longer than 200"):
        parse_allow(["send:" + "x" * 196])


@pytest.mark.parametrize(("text", "expected"), [
    ("You may send messages to Bob When he asks", [A("send", "Bob")]),
    ("you may send messages to Xavier", [A("send", "Xavier")]),
    ("You may delete The old notes", [A("delete", "old notes")]),
    ("You may send messages", [A("send", None)]),
    ("可以发送消息", [A("send", None)]),
    ("Send Hi to My sister in Messages", []),
])
def test_targets_drop_articles_stop_words_and_generic_objects(text, expected):
    assert parse_authorisations(text) == expected


# -- a limit stated with a purchase grants within it; stated alone, it restricts ------------
@pytest.mark.parametrize(("text", "target", "limit"), [
    ("Buy a cable in Shop, spend no more than ¥50", "Shop", at_most("50")),
    ("Buy a phone; the budget is under $300", None, Limit(Money(Decimal(300), "USD"),
                                                          inclusive=False)),
    ("最多花100元买一个充电宝", None, at_most("100")),
    ("Buy a phone, at most one hundred dollars", None, UNREADABLE),
])
def test_a_spending_limit_with_a_purchase_grants_within_it(text, target, limit):
    assert parse_authorisations(text) == [A("payment", target, limit=limit)]


@pytest.mark.parametrize(("text", "limit"), [
    ("Look at the cart in Shop; never spend more than ¥50", at_most("50")),
    ("Check the prices in Shop. The budget is ¥100.", at_most("100")),
])
def test_a_spending_limit_alone_is_a_restriction(text, limit):
    assert parse_authorisations(text) == [A("payment", None, limit=limit, grants=False)]


@pytest.mark.parametrize("text", ["Buy at most 2 cables in Shop", "Buy the ¥50 cable in Shop",
                                  "Open the note that is under ¥5 in Notes"])
def test_counts_prices_and_other_sentences_are_no_restriction(text):
    assert parse_authorisations(text) == []


def test_a_restriction_alone_lets_nothing_through_and_holds_an_allow(checkout):
    spend = parse_authorisations("Look at the order in Shop, spending no more than ¥50")
    alone = decide(spend, checkout)
    assert alone.needs_confirmation and "beyond" not in alone.sensitivity.reason
    held = decide([*spend, *parse_allow(["payment"])], checkout)
    assert held.needs_confirmation
    assert "¥1,079.00 is beyond your limit (at most ¥50)" in held.sensitivity.reason
    roomy = parse_authorisations("Look at the order in Shop, spending no more than ¥2,000")
    assert decide([*roomy, *parse_allow(["payment"])], checkout).allowed
    assert str(spend[0]) == "payment limited to at most ¥50"


def test_a_permission_with_no_text_stated_anywhere_lets_any_text_through(bobs_thread):
    assert _send(bobs_thread, "Open Bob's chat; you may send messages to Bob",
                 "Transfer approved").allowed
