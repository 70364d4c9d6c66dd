"""Login / 登录 on a real VirtualPhone: signing in and out, failures, the hidden password,
the Sign in button that moves between visits, and the forgot-password page."""

from __future__ import annotations

import re

import pytest

from omg_agent.perception.uitree import parse_elements
from omg_agent.vphone.phone import VirtualPhone
from omg_agent.vphone.ui.view import View

PKG = "com.omg.login"
KEY_HOME, KEY_BACK, KEY_ENTER = 3, 4, 66


def find(phone: VirtualPhone, *, text: str | None = None, rid: str | None = None,
         desc: str | None = None) -> View | None:
    return phone.find_view(text=text, resource_id=rid and f"{PKG}:id/{rid}", desc=desc)


def tap(phone: VirtualPhone, **how: str) -> None:
    view = find(phone, **how)
    assert view is not None, f"no view matching {how}"
    phone.tap(*view.center)


def login_state(phone: VirtualPhone) -> dict:
    return phone.state()["apps"][PKG]


def type_credentials(phone: VirtualPhone, user: str, password: str) -> None:
    tap(phone, rid="username")
    phone.input_text(user)
    tap(phone, rid="password")
    phone.input_text(password)


@pytest.fixture
def phone() -> VirtualPhone:
    ph = VirtualPhone(seed=4)
    assert ph.start_activity(PKG)
    return ph


def test_valid_credentials_sign_in(phone):
    app = phone.apps[PKG]
    type_credentials(phone, "demo", app.valid_password)
    xml = phone.dump_xml()
    assert app.valid_password not in xml
    assert 'password="true"' in xml and "•" * len(app.valid_password) in xml
    assert login_state(phone)["password_len"] == len(app.valid_password)
    assert app.valid_password not in str(phone.state())
    tap(phone, rid="sign_in")
    state = login_state(phone)
    assert state["logged_in"] is True and state["user"] == "demo"
    assert state["attempts"] == 1 and state["failures"] == 0
    assert find(phone, rid="welcome").text == "Welcome, demo"
    assert phone.focus() == (PKG, ".WelcomeActivity")


def test_wrong_password_shows_an_error_and_clears_the_field(phone):
    type_credentials(phone, "demo", "nope")
    tap(phone, rid="sign_in")
    state = login_state(phone)
    assert state["logged_in"] is False
    assert state["attempts"] == 1 and state["failures"] == 1
    assert state["password_len"] == 0
    assert find(phone, rid="error").text == "Wrong username or password 用户名或密码错误"
    tap(phone, rid="sign_in")  # empty password now
    assert find(phone, rid="error").text == "Enter username and password"
    assert login_state(phone)["attempts"] == 2


def test_enter_moves_to_password_then_submits(phone):
    tap(phone, rid="username")
    phone.input_text("demo")
    phone.key(KEY_ENTER)
    phone.input_text(phone.apps[PKG].valid_password)
    phone.key(KEY_ENTER)
    assert login_state(phone)["logged_in"] is True


def sign_in_tops(seed: int, visits: int = 10) -> list[int]:
    ph = VirtualPhone(seed=seed)
    tops = []
    for _ in range(visits):
        ph.start_activity(PKG)
        tops.append(find(ph, rid="sign_in").bounds[1])
        ph.key(KEY_HOME)
    return tops


def test_sign_in_button_moves_between_visits_deterministically():
    tops = sign_in_tops(21)
    assert len(set(tops)) >= 2
    assert tops == sign_in_tops(21)
    assert tops != sign_in_tops(22)


def test_moved_button_still_works_and_never_covers_the_form():
    ph = VirtualPhone(seed=21)
    for _ in range(6):
        ph.start_activity(PKG)
        button = find(ph, rid="sign_in")
        password = find(ph, rid="password")
        forgot = find(ph, rid="forgot_password")
        assert password.bounds[3] < button.bounds[1] and button.bounds[3] < forgot.bounds[1]
        ph.key(KEY_HOME)
    ph.start_activity(PKG)
    type_credentials(ph, "demo", ph.apps[PKG].valid_password)
    tap(ph, rid="sign_in")
    assert login_state(ph)["logged_in"] is True


def test_sign_out_returns_to_the_form(phone):
    type_credentials(phone, "demo", phone.apps[PKG].valid_password)
    tap(phone, rid="sign_in")
    phone.force_stop(PKG)
    phone.start_activity(PKG)
    assert login_state(phone)["screen"] == "welcome"  # still signed in after a restart
    tap(phone, rid="sign_out")
    state = login_state(phone)
    assert state["logged_in"] is False and state["user"] is None
    assert state["screen"] == "main" and state["password_len"] == 0


def test_forgot_password_page(phone):
    tap(phone, rid="forgot_password")
    assert phone.focus() == (PKG, ".ForgotPasswordActivity")
    tap(phone, rid="email")
    phone.input_text("not-an-email")
    tap(phone, rid="send_reset")
    assert find(phone, rid="notice").text == "Enter a valid email"
    phone.clear_text()
    phone.input_text("demo@example.com")
    tap(phone, rid="send_reset")
    assert login_state(phone)["reset_requests"] == ["demo@example.com"]
    phone.key(KEY_BACK)  # drops the keyboard focus
    phone.key(KEY_BACK)
    assert login_state(phone)["screen"] == "main"


def test_password_follows_the_seed():
    assert VirtualPhone(seed=1).apps[PKG].valid_password == \
        VirtualPhone(seed=1).apps[PKG].valid_password
    assert VirtualPhone(seed=1).apps[PKG].valid_password != \
        VirtualPhone(seed=2).apps[PKG].valid_password


def test_an_empty_field_shows_its_placeholder_as_text_and_says_so_in_hint() -> None:
    """Android 14's uiautomator dump: an empty EditText reports its placeholder as its text
    (what TextView gives accessibility) and carries ``hint``; perception reads the field as
    empty with a hint. An Android 10 dump has no ``hint`` attribute."""
    phone = VirtualPhone("default", seed=0)
    phone.start_activity("com.omg.login")
    xml = phone.dump_xml()
    [node] = re.findall(r'<node [^>]*resource-id="com.omg.login:id/username"[^>]*>', xml)
    assert 'text="Username"' in node and 'hint="Username"' in node
    assert 'visible-to-user="true"' in node and "drawing-order=" in node
    username = next(e for e in parse_elements(xml) if e.resource_id.endswith("username"))
    assert (username.text, username.hint) == ("", "Username")
    old = VirtualPhone("legacy", seed=0)
    old.start_activity("com.omg.login")
    assert "hint=" not in old.dump_xml()
