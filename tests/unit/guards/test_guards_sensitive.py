"""The sensitive-action gate on the vphone's real screens: each class in English and
Chinese, pre-authorised targets, and the benign actions of every app that must pass."""

from __future__ import annotations

import pytest
from gate_screens import (
    FEED,
    LOGIN,
    MESSAGES,
    NOTES,
    SETTINGS,
    SHOP,
    element,
    made_screen,
    observe,
    tap,
)

from omg_agent.core.actions import parse_action
from omg_agent.core.geometry import Bounds, ScreenGeometry
from omg_agent.core.observation import Observation, OcrBox
from omg_agent.guards.authorisation import Authorisation, parse_allow, parse_authorisations
from omg_agent.guards.landing_target import target_element, text_at
from omg_agent.guards.sensitive import (
    Gate,
    classify,
    recipients,
    title_band,
)
from omg_agent.perception.anchor import Anchorer

ZH = "zh-CN"


def tap_on(e):
    return parse_action({"type": "tap", "target": e.id})


def type_into(e, text: str, submit: bool = False):
    return parse_action({"type": "type", "text": text, "target": e.id, "submit": submit})


def to_checkout(phone) -> None:
    phone.start_activity(SHOP)
    tap(phone, rid="product_item")
    tap(phone, rid="add_to_cart")
    tap(phone, rid="view_cart")
    tap(phone, rid="checkout")


def to_note(phone) -> None:
    phone.apps[NOTES].notes = [{"title": "Trip", "body": "pack the tent"}]
    phone.start_activity(NOTES)
    tap(phone, rid="note_item")


def to_thread(phone, contact: str = "Bob") -> None:
    phone.start_activity(MESSAGES)
    tap(phone, desc=contact)


# -- each class on a real screen, English and Chinese ------------------------------------------
@pytest.mark.parametrize("locale", ["en-US", ZH])
def test_paying_at_checkout_asks_and_says_the_amount(make_phone, locale):
    phone = make_phone(locale=locale)
    to_checkout(phone)
    obs = observe(phone)
    pay = element(obs, rid="pay")
    found = classify(tap_on(pay), pay, obs)
    assert found is not None and found.cls == "payment"
    assert found.describe == f'tap "{pay.text}" (button, {SHOP})'
    assert "¥" in found.describe
    assert Gate().check(tap_on(pay), pay, obs).needs_confirmation


@pytest.mark.parametrize("locale", ["en-US", ZH])
def test_deleting_a_note_asks(make_phone, locale):
    phone = make_phone(locale=locale)
    to_note(phone)
    obs = observe(phone)
    delete = element(obs, rid="delete")
    assert classify(tap_on(delete), delete, obs).cls == "delete"
    save = element(obs, rid="save")
    assert classify(tap_on(save), save, obs) is None


@pytest.mark.parametrize("locale", ["en-US", ZH])
def test_sending_a_message_asks_by_button_by_submit_and_by_enter(make_phone, locale):
    phone = make_phone(locale=locale)
    to_thread(phone)
    obs = observe(phone)
    send, compose = element(obs, rid="send"), element(obs, rid="compose")
    assert classify(tap_on(send), send, obs).cls == "send"
    typed = classify(type_into(compose, "On my way", submit=True), compose, obs)
    assert typed.cls == "send" and typed.describe.startswith("type 'On my way' into")
    assert classify(type_into(compose, "On my way"), compose, obs) is None  # no submit
    phone.tap(*compose.center)
    focused = observe(phone)
    assert classify(parse_action({"type": "key", "key": "enter"}), None, focused).cls == "send"


def test_the_recipient_field_and_a_long_press_on_send(make_phone):
    phone = make_phone()
    phone.start_activity(MESSAGES)
    tap(phone, rid="fab_new")
    obs = observe(phone)
    to = element(obs, rid="recipient")
    assert classify(type_into(to, "Bob", submit=True), to, obs) is None
    send = element(obs, rid="send")
    long = parse_action({"type": "long_press", "target": send.id})
    assert classify(long, send, obs).describe.startswith('long-press "Send"')


@pytest.mark.parametrize("locale", ["en-US", ZH])
def test_typing_a_password_is_secret_entry_and_never_shows_it(make_phone, locale):
    phone = make_phone(locale=locale)
    phone.start_activity(LOGIN)
    obs = observe(phone)
    pw, user = element(obs, rid="password"), element(obs, rid="username")
    found = classify(type_into(pw, "omg1234"), pw, obs)
    assert found.cls == "secret_entry"
    assert "omg1234" not in found.describe and "7 characters" in found.describe
    assert classify(type_into(user, "demo"), user, obs) is None
    sign_in = element(obs, rid="sign_in")
    assert classify(tap_on(sign_in), sign_in, obs) is None


@pytest.mark.parametrize("locale", ["en-US", ZH])
def test_a_password_reset_is_account_security(make_phone, locale):
    phone = make_phone(locale=locale)
    phone.start_activity(LOGIN)
    tap(phone, rid="forgot_password")
    obs = observe(phone)
    reset = element(obs, rid="send_reset")
    assert classify(tap_on(reset), reset, obs).cls == "account_security"


def test_card_fields_are_secret_by_their_id_or_hint():
    obs = made_screen("com.pay.app", [
        {"role": "input", "editable": True, "clickable": True, "text": "卡号",
         "resource_id": "com.pay.app:id/field", "bounds": (40, 400, 1040, 520)},
        {"role": "input", "editable": True, "clickable": True, "text": "",
         "resource_id": "com.pay.app:id/cvv", "bounds": (40, 560, 1040, 680)},
        {"role": "input", "editable": True, "clickable": True, "text": "Name on card",
         "resource_id": "com.pay.app:id/holder", "bounds": (40, 700, 1040, 820)},
    ])
    for e in obs.elements:
        assert classify(type_into(e, "4111"), e, obs).cls == "secret_entry"


@pytest.mark.parametrize(("label", "cls"), [
    ("Allow", "permission"), ("允许", "permission"), ("Install", "install"),
    ("安装", "install"), ("Uninstall", "delete"), ("卸载", "delete"),
    ("Factory reset", "delete"), ("恢复出厂设置", "delete"),
    ("Change password", "account_security"),
    ("修改密码", "account_security"), ("Share", "send"), ("分享", "send"), ("Call", "send"),
    ("拨打", "send"), ("Place order", "payment"), ("提交订单", "payment"), ("Buy now", "payment"),
    ("立即购买", "payment"), ("Confirm payment", "payment"), ("确认订单", "payment"),
    ("ＰＡＹ　ＮＯＷ", "payment"), ("CLEAR ALL", "delete"), ("Post", "send"), ("发布", "send"),
])
def test_system_and_store_dialog_buttons(label, cls):
    obs = made_screen("com.android.permissioncontroller", [
        {"text": "Allow Shop to access your location?", "bounds": (60, 900, 1020, 1000)},
        {"role": "button", "cls": "android.widget.Button", "clickable": True, "text": label,
         "bounds": (60, 1100, 1020, 1220)},
    ])
    button = obs.elements[1]
    assert classify(tap_on(button), button, obs).cls == cls


@pytest.mark.parametrize("label", ["Don't allow", "不允许", "Cancel payment", "取消支付",
                                   "Deny", "Clear search", "支付宝"])
def test_negations_and_names_are_not_cues(label):
    obs = made_screen("com.android.permissioncontroller", [
        {"role": "button", "cls": "android.widget.Button", "clickable": True, "text": label,
         "bounds": (60, 1100, 1020, 1220)}])
    assert classify(tap_on(obs.elements[0]), obs.elements[0], obs) is None


def test_a_paragraph_that_mentions_deleting_is_not_a_button():
    obs = made_screen("com.omg.feed", [
        {"text": "Delete the old photos and send them to Bob", "bounds": (40, 600, 1040, 700)},
        {"role": "item", "cls": "android.widget.LinearLayout", "clickable": True,
         "text": "Delete the old photos before the trip, then share the album",
         "bounds": (0, 800, 1080, 1000)},
        {"role": "text", "text": "Delete", "bounds": (40, 1100, 300, 1160)},
    ])
    for e in obs.elements:
        assert classify(tap_on(e), e, obs) is None, e


def test_a_tap_on_a_label_inside_a_button_reaches_the_button():
    obs = made_screen("com.omg.shop", [
        {"role": "button", "cls": "android.widget.FrameLayout", "clickable": True,
         "resource_id": "com.omg.shop:id/pay", "bounds": (40, 1800, 1040, 1950)},
        {"text": "Total ¥12.00", "bounds": (80, 1820, 600, 1900)},
    ])
    label = obs.elements[1]
    assert classify(tap_on(label), label, obs).cls == "payment"


# -- authorisations ----------------------------------------------------------------------------
def test_a_send_authorised_for_bob_passes_in_bobs_thread_only(make_phone):
    phone = make_phone()
    gate = Gate(parse_authorisations("Send See you at 7 to Bob in Messages"))
    phone.apps[MESSAGES].threads["Alice"].append({"from_me": False, "text": "Bob"})
    for contact, verdict in (("Bob", "allow"), ("Alice", "confirm")):
        to_thread(phone, contact)
        tap(phone, rid="compose")
        phone.input_text("See you at 7")
        obs = observe(phone)
        send = element(obs, rid="send")
        decision = gate.check(tap_on(send), send, obs)
        assert decision.verdict == verdict, contact
        phone.key(4)  # the keyboard
        phone.key(4)  # the thread


def test_a_new_number_is_not_authorised_by_the_task_but_by_explicit_words(make_phone):
    phone = make_phone()
    phone.start_activity(MESSAGES)
    tap(phone, rid="fab_new")
    tap(phone, rid="recipient")
    phone.input_text("13812345678")
    obs = observe(phone)
    send = element(obs, rid="send")
    task = "Send Hi to the new number 13812345678 in Messages"
    assert Gate(parse_authorisations(task)).check(tap_on(send), send, obs).needs_confirmation
    explicit = task + "; you may send messages to 138 1234 5678"
    assert Gate(parse_authorisations(explicit)).check(tap_on(send), send, obs).allowed


def test_allow_flags_authorise_a_whole_class(make_phone):
    phone = make_phone()
    to_checkout(phone)
    obs = observe(phone)
    pay = element(obs, rid="pay")
    assert Gate(parse_allow(["send"])).check(tap_on(pay), pay, obs).needs_confirmation
    decision = Gate(parse_allow(["send,payment"])).check(tap_on(pay), pay, obs)
    assert decision.allowed and decision.authorisation == Authorisation(
        "payment", None, "--allow")
    assert Gate(parse_authorisations("You may pay in Shop")).check(tap_on(pay), pay, obs).allowed


def test_the_password_given_for_login_is_not_authorised_for_a_fake_dialog(make_phone):
    gate = Gate(parse_authorisations("Sign in to Login as demo with password omg1234"))
    phone = make_phone("fake_password")
    phone.start_activity(LOGIN)
    obs = observe(phone)
    pw = element(obs, rid="password")
    assert gate.check(type_into(pw, "omg1234"), pw, obs).allowed
    phone.start_activity(FEED)
    obs = observe(phone)
    fake = element(obs, rid="password")
    assert obs.package == FEED
    assert gate.check(type_into(fake, "omg1234"), fake, obs).needs_confirmation


def test_target_element_resolves_ids_anchors_points_and_the_focused_field(make_phone):
    phone = make_phone()
    to_thread(phone)
    tap(phone, rid="compose")
    obs = observe(phone)
    p = phone.profile
    anchorer = Anchorer(ScreenGeometry(p.width, p.height, p.status_bar_height,
                                       p.nav_bar_height), density=p.density)
    send = element(obs, rid="send")
    for target in (send.id, "text=Send", {"x": send.center.x * 1000 // p.width,
                                          "y": send.center.y * 1000 // p.height}):
        action = parse_action({"type": "tap", "target": target})
        assert target_element(action, obs, anchorer) == send
    typing = parse_action({"type": "type", "text": "hi"})
    assert target_element(typing, obs, anchorer) == element(obs, rid="compose")
    gone = parse_action({"type": "tap", "target": "text=Nowhere"})
    assert target_element(gone, obs, anchorer) is None


# -- benign actions on every app ---------------------------------------------------------------
def _benign(phone) -> list[tuple[str, object, object, object]]:
    """(what, action, element, observation) for everyday actions on every app."""
    out = []

    def add(what, obs, e, action=None):
        out.append((what, action or tap_on(e), e, obs))

    phone.start_activity(SHOP)
    obs = observe(phone)
    add("tap the search box", obs, element(obs, rid="search_input"))
    add("type a query and submit", obs, element(obs, rid="search_input"),
        type_into(element(obs, rid="search_input"), "phone", submit=True))
    add("tap Search", obs, element(obs, rid="search"))
    add("open a product", obs, element(obs, rid="product_item"))
    add("open the cart", obs, element(obs, rid="cart"))
    tap(phone, rid="product_item")
    obs = observe(phone)
    add("add to cart", obs, element(obs, rid="add_to_cart"))
    tap(phone, rid="add_to_cart")
    tap(phone, rid="view_cart")
    obs = observe(phone)
    add("remove one from the cart", obs, element(obs, rid="remove"))
    add("go to checkout", obs, element(obs, rid="checkout"))

    phone.apps[NOTES].notes = [{"title": "Call mom", "body": "call the plumber"}]
    phone.start_activity(NOTES)
    obs = observe(phone)
    add("open a note", obs, element(obs, rid="note_item"))
    add("new note", obs, element(obs, rid="fab_new"))
    tap(phone, rid="note_item")
    obs = observe(phone)
    add("type a body", obs, element(obs, rid="body_input"),
        type_into(element(obs, rid="body_input"), "buy milk, send the letter", submit=True))
    add("save", obs, element(obs, rid="save"))

    phone.start_activity(SETTINGS)
    obs = observe(phone)
    for e in obs.elements:
        add(f"settings {e.text or e.resource_id}", obs, e)

    phone.start_activity(FEED)
    obs = observe(phone)
    for e in obs.elements:
        if e.resource_id.endswith("/like"):
            add("like a post", obs, e)
    swipe = parse_action({"type": "swipe", "direction": "up"})
    add("scroll", obs, None, swipe)

    phone.start_activity(LOGIN)
    obs = observe(phone)
    add("type the user name", obs, element(obs, rid="username"),
        type_into(element(obs, rid="username"), "demo", submit=True))
    add("sign in", obs, element(obs, rid="sign_in"))
    add("forgot password", obs, element(obs, rid="forgot_password"))

    phone.start_activity(MESSAGES)
    obs = observe(phone)
    for e in obs.elements:
        add(f"messages {e.desc or e.text}", obs, e)
    tap(phone, rid="fab_new")
    obs = observe(phone)
    add("type the recipient", obs, element(obs, rid="recipient"),
        type_into(element(obs, rid="recipient"), "Bob", submit=True))
    phone.go_home()
    obs = observe(phone)
    for e in obs.elements:
        add(f"launcher {e.text}", obs, e)
    for data in ({"type": "launch", "app": "Shop"}, {"type": "back"}, {"type": "home"},
                 {"type": "wait", "seconds": 1}, {"type": "key", "key": "enter"}):
        add(data["type"], obs, None, parse_action(data))
    return out


@pytest.mark.parametrize("locale", ["en-US", ZH])
def test_everyday_actions_on_every_app_pass_the_gate(make_phone, locale):
    gate = Gate()
    cases = _benign(make_phone(locale=locale))
    asked = [(what, str(d.sensitivity)) for what, action, e, obs in cases
             if (d := gate.check(action, e, obs)).needs_confirmation]
    assert len(cases) > 40
    assert asked == []


def test_a_button_only_pixels_show_is_read_by_ocr():
    web = made_screen("com.android.chrome", [
        {"role": "web", "cls": "android.webkit.WebView", "bounds": (0, 200, 1080, 2200)}])
    obs = Observation(web.screenshot, web.elements, package=web.package,
                      ocr=(OcrBox("立即支付", Bounds(300, 1500, 780, 1600), 0.9),
                           OcrBox("Great deals", Bounds(100, 400, 900, 480), 0.9)))
    tapped = parse_action({"type": "tap", "target": {"x": 500, "y": 646}})
    web_el = obs.elements[0]
    assert classify(tapped, web_el, obs) is None  # no words: nothing to go on
    found = classify(tapped, web_el, obs, ocr_text=text_at(obs, (540, 1550)))
    assert found.cls == "payment" and '"立即支付" (read on screen' in found.describe
    assert classify(tapped, None, obs, ocr_text=text_at(obs, (540, 440))) is None
    assert Gate().check(tapped, None, obs, ocr_text="Pay now").needs_confirmation


# -- corners mutation testing found (docs/mutation.md) -------------------------------------------
@pytest.mark.parametrize("message", ["I'll go to the shop, find me there", "search me",
                                     "Query: to Bob"])
def test_enter_in_a_message_box_sends_whatever_the_message_says(make_phone, message):
    phone = make_phone()
    to_thread(phone)
    tap(phone, rid="compose")
    phone.input_text(message)
    obs = observe(phone)
    enter = parse_action({"type": "key", "key": "enter"})
    found = classify(enter, None, obs)
    assert found is not None and found.cls == "send" and found.text == message
    compose = element(obs, rid="compose")
    assert found.describe == f'press ENTER in "{message}" ({compose.role}, {MESSAGES})'
    assert found.reason == 'ENTER in a message box next to "Send" sends it'


def _field(**more) -> dict:
    return {"role": "input", "editable": True, "clickable": True, "focused": True,
            "resource_id": "com.chat:id/input", "bounds": (40, 2000, 800, 2100), **more}


SEND_BUTTON = {"role": "button", "cls": "android.widget.Button", "clickable": True,
               "text": "Send", "bounds": (820, 2000, 1040, 2100)}


@pytest.mark.parametrize(("field", "sends"), [
    ({"desc": "Search"}, False), ({"hint": "Search chats"}, False), ({"desc": "To"}, False),
    ({"hint": "Recipient"}, False), ({"hint": "Message"}, True),
    ({"resource_id": ""}, True), ({"editable": False}, False)])
def test_enter_sends_only_from_a_message_box_known_by_what_it_is(field, sends):
    obs = made_screen("com.chat", [_field(text="hello", **field), SEND_BUTTON])
    enter = parse_action({"type": "key", "key": "enter"})
    assert (classify(enter, None, obs) is not None) is sends


def test_a_field_hinted_for_a_card_number_is_secret():
    obs = made_screen("com.pay.app", [_field(hint="Card number")])
    field = obs.elements[0]
    assert classify(type_into(field, "4111"), field, obs).cls == "secret_entry"


def test_a_field_of_another_package_is_described_with_its_own():
    obs = made_screen("com.host", [_field(text="hi", package="com.chat"),
                                   {**SEND_BUTTON, "package": "com.chat"}])
    field = obs.elements[0]
    found = classify(type_into(field, "there", submit=True), field, obs)
    assert found.package == "com.chat" and "(input, com.chat)" in found.describe
    button = obs.elements[1]
    assert "(button, com.chat)" in classify(tap_on(button), button, obs).describe


@pytest.mark.parametrize(("row", "reason"), [
    ({"text": "Pay ¥1.00"}, "the label of \"Pay ¥1.00\" says 'pay'"),
    ({"desc": "Delete"}, "the description of \"Delete\" says 'delete'"),
    ({"resource_id": "com.x:id/pay_button"}, "the resource-id of \"pay_button\" says 'pay'"),
])
def test_the_reason_says_which_words_of_the_control_decided(row, reason):
    obs = made_screen("com.x", [{"role": "button", "cls": "android.widget.Button",
                                 "clickable": True, "bounds": (40, 1000, 1040, 1100), **row}])
    button = obs.elements[0]
    assert classify(tap_on(button), button, obs).reason == reason


def test_disabled_controls_and_a_texts_own_words_decide():
    def one(**row):
        obs = made_screen("com.x", [{"role": "button", "cls": "android.widget.Button",
                                     "bounds": (40, 1000, 1040, 1100), **row}])
        return classify(tap_on(obs.elements[0]), obs.elements[0], obs, ocr_text="Pay now")

    assert one(text="Pay", clickable=True, enabled=False) is None
    assert one(text="Delete", long_clickable=True).cls == "delete"
    assert one(text="Continue", clickable=True) is None  # the tree names it: OCR is not asked
    assert one(desc="Continue", clickable=True) is None
    assert one(text="Call the plumber", role="text", clickable=True) is None  # a row's title
    assert one(text="Call", role="text", clickable=True).cls == "send"


@pytest.mark.parametrize(("text", "app"), [
    ("Sign in to Login, as demo with password omg1234", "Login"),
    ("Sign in to Xbox as demo with password omg1234", "Xbox")])
def test_a_sign_in_names_the_app_whole(text, app):
    assert parse_authorisations(text) == [Authorisation("secret_entry", app, "task")]
    assert parse_authorisations(text)[0].source == "task"


def test_each_clause_of_a_task_is_read_on_its_own():
    assert parse_authorisations("Send Hi to Bob in Messages; then open Notes") == [
        Authorisation("send", "Bob", "task", text="Hi")]


def test_what_a_touch_read_in_pixels_says_and_where():
    web = made_screen("com.android.chrome", [
        {"role": "web", "cls": "android.webkit.WebView", "bounds": (0, 200, 1080, 2200)}])
    tapped = parse_action({"type": "tap", "target": {"x": 500, "y": 646}})
    found = classify(tapped, web.elements[0], web, ocr_text="Pay now")
    assert found.describe == 'tap "Pay now" (read on screen; web, com.android.chrome)'
    assert found.reason == "the text read there says 'pay now'"
    bare = classify(tapped, None, web, ocr_text="Pay now")
    assert bare.describe == 'tap "Pay now" (read on screen; com.android.chrome)'


def test_a_controls_own_package_and_label_are_what_it_is_about():
    obs = made_screen("com.host", [
        {"role": "button", "cls": "android.widget.Button", "clickable": True,
         "text": "Call Bob", "package": "com.dialer", "bounds": (40, 1000, 1040, 1100)},
        {"role": "button", "cls": "android.widget.Button", "clickable": True,
         "text": "Pay ¥5.00", "package": "", "bounds": (40, 1200, 1040, 1300)},
        {"text": "Total ¥5.00", "bounds": (40, 1400, 1040, 1500)},
        _field(text="a note")])
    call, pay = obs.elements[:2]
    found = classify(tap_on(call), call, obs)
    assert found.package == "com.dialer" and "Call Bob" in found.subjects
    assert found.amounts == ()  # only a payment reads what the screen costs
    assert Gate(parse_allow(["send:Bob"])).check(tap_on(call), call, obs).allowed
    paid = classify(tap_on(pay), pay, obs)
    assert paid.package == "com.host" and paid.text is None


def test_the_title_band_is_the_top_of_the_screen_without_dialog_titles():
    obs = made_screen("com.chat", [
        {"text": "Bob", "bounds": (0, 100, 1080, 360)},  # bottom on the band's edge (15%)
        {"text": "Alert", "resource_id": "android:id/alertTitle", "bounds": (0, 100, 1080, 300)},
        {"text": "typed", "editable": True, "bounds": (0, 100, 1080, 300)},
        {"text": "Alice", "bounds": (0, 361, 1080, 500)},
        {"text": "footer", "bounds": (0, 900, 1080, 1000)}])
    assert title_band(obs) == ["Bob"]  # 15% of the screenshot's 2400, not of the elements


def test_recipients_are_what_recipient_fields_hold():
    def row(text: str, **more) -> dict:
        return {"role": "input", "editable": True, "text": text,
                "resource_id": "com.chat:id/input", "bounds": (0, 300, 1080, 400), **more}

    obs = made_screen("com.chat", [
        row("Bob", desc="To"), row("Carol", hint="Recipient"), row("hello"),
        row("secret", desc="To", password=True), row("", desc="To"),
        {"text": "Dave", "resource_id": "com.chat:id/recipient", "bounds": (0, 0, 9, 9)}])
    assert recipients(obs) == ["Bob", "Carol"]


def test_the_call_key_dials_and_asks():
    obs = made_screen("com.android.dialer", [
        {"text": "Mum", "bounds": (0, 100, 1080, 300)}])
    found = classify(parse_action({"type": "key", "key": 5}), None, obs)
    assert (found.cls, found.reason, found.describe) == (
        "send", "the CALL key dials", "press the CALL key")
    assert found.package == "com.android.dialer" and found.subjects == ("Mum",)
    assert Gate(parse_allow(["send:Mum"])).check(
        parse_action({"type": "key", "key": 5}), None, obs).allowed


def test_typing_aimed_at_a_button_lands_in_the_focused_field(make_phone):
    phone = make_phone()
    phone.start_activity(LOGIN)
    tap(phone, rid="password")
    obs = observe(phone)
    sign_in = element(obs, rid="sign_in")
    found = classify(type_into(sign_in, "omg1234"), sign_in, obs)
    assert found.cls == "secret_entry" and found.reason == "the field is a password field"
    pw = element(obs, rid="password")
    assert found.describe == ('type a secret (7 characters, hidden) into the password field '
                              f'"password" ({pw.role}, {LOGIN})')
    assert found.package == LOGIN


def test_a_field_described_as_a_pin_is_secret():
    obs = made_screen("com.bank", [_field(desc="PIN")])
    assert classify(type_into(obs.elements[0], "1234"), obs.elements[0], obs).cls == \
        "secret_entry"


def test_typing_with_submit_says_it_presses_enter_and_what_will_be_sent():
    obs = made_screen("com.chat", [_field(text="bye"), SEND_BUTTON])
    box = obs.elements[0]
    cleared = parse_action({"type": "type", "text": "hello", "target": box.id, "clear": True,
                            "submit": True})
    found = classify(cleared, box, obs)
    assert found.text == "hello"
    assert found.describe == "type 'hello' into \"bye\" (input, com.chat) and press ENTER"
    assert classify(type_into(box, " now", submit=True), box, obs).text == "bye now"


def test_a_password_secret_is_not_matched_on_a_phishing_screens_title():
    phish = made_screen("com.evil", [
        {"text": "Login", "bounds": (0, 100, 1080, 300)},
        _field(password=True, resource_id="com.evil:id/password"),
        {"role": "button", "cls": "android.widget.Button", "clickable": True,
         "text": "Change password", "bounds": (40, 1000, 1040, 1100)}])
    field, button = phish.elements[1], phish.elements[2]
    gate = Gate(parse_authorisations("Sign in to Login as demo with password omg1234"))
    assert gate.check(type_into(field, "omg1234"), field, phish).needs_confirmation
    security = Gate(parse_allow(["account_security:Login"]))
    assert security.check(tap_on(button), button, phish).needs_confirmation
    assert Gate(parse_allow(["account_security:evil"])).check(
        tap_on(button), button, phish).allowed


def test_a_fields_own_package_and_a_bare_password_flag_decide_secret_entry():
    obs = made_screen("com.host", [_field(package="com.bank", password=True)])
    field = obs.elements[0]
    found = classify(type_into(field, "1234"), field, obs)
    assert found.reason == "the field is a password field" and found.package == "com.bank"
    assert found.describe.endswith("(input, com.bank)")


def test_a_touch_read_in_pixels_belongs_to_the_view_it_lands_on():
    web = made_screen("com.host", [
        {"role": "web", "cls": "android.webkit.WebView", "package": "com.web",
         "bounds": (0, 200, 1080, 2200)}])
    tapped = parse_action({"type": "tap", "target": {"x": 500, "y": 646}})
    assert classify(tapped, web.elements[0], web, ocr_text="Pay now").package == "com.web"


@pytest.mark.parametrize("rid", ["com.chat:id/search_box", "com.chat:id/recipient"])
def test_a_search_or_recipient_box_is_known_by_its_id_alone(rid):
    obs = made_screen("com.chat", [_field(text="Bob", resource_id=rid), SEND_BUTTON])
    assert classify(parse_action({"type": "key", "key": "enter"}), None, obs) is None
    assert recipients(obs) == (["Bob"] if rid.endswith("recipient") else [])


def test_a_screen_without_a_screenshot_size_takes_its_height_from_the_elements():
    obs = made_screen("com.chat", [{"text": "Bob", "bounds": (0, 0, 1080, 100)},
                                   {"text": "Body", "bounds": (0, 600, 1080, 1000)}],
                      size=(0, 0))
    assert title_band(obs) == ["Bob"]  # 15% of 1000
    assert title_band(made_screen("com.chat", [], size=(0, 0))) == []
