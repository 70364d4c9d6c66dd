"""Login / 登录: a sign-in form with a password field, a "Forgot password?" page and a
welcome screen.

Its hazard is a **moving button**: the "Sign in / 登录" button lands in one of a few rows
below the form, chosen from the phone's seed and the visit count, so an agent that replays
remembered coordinates misses it. The valid credentials are fixed per seed and exposed
host-side as ``valid_user`` / ``valid_password`` for tests and task setup. The typed
password never leaves the app: the view shows dots and ``state()`` reports only its length.
"""

from __future__ import annotations

import random

from omg_agent.vphone.apps.base import App, AppEnv, Screen
from omg_agent.vphone.apps.textfit import clipped
from omg_agent.vphone.ui.kit import MUTED, PRIMARY, Kit
from omg_agent.vphone.ui.view import View

TEAL = (0, 128, 128)
ERROR_RED = (200, 50, 50)
SLOTS = 4  # rows the Sign in button may occupy
SLOT_DP = 60


class LoginApp(App):
    package = "com.omg.login"
    label = "Login"
    label_zh = "登录"
    glyph = "🔑"
    color = TEAL
    activities = {"main": ".LoginActivity", "forgot": ".ForgotPasswordActivity",
                  "welcome": ".WelcomeActivity"}
    valid_user = "demo"

    def __init__(self, env: AppEnv) -> None:
        self._seed = env.rng.getrandbits(64)  # own stream: clear_app redraws the same data
        super().__init__(env)

    def reset_data(self) -> None:
        rng = random.Random(self._seed)
        self.valid_password = f"omg{rng.randint(1000, 9999)}"
        self.logged_in = False
        self.user: str | None = None
        self.attempts = 0
        self.failures = 0
        self.visits = 0
        self.reset_requests: list[str] = []

    def reset_ui(self) -> None:
        super().reset_ui()
        self.stack = [Screen("welcome" if self.logged_in else "main")]
        self.error = ""
        self.notice = ""

    def on_launch(self) -> None:
        self.visits += 1

    def back(self) -> bool:
        popped_forgot = self.focus is None and self.screen.name == "forgot"
        handled = super().back()
        if popped_forgot:
            self.visits += 1
        return handled

    def on_enter(self, key: str) -> bool:
        if key == "username":
            self.focus = "password"
            return True
        if key == "password":
            self._sign_in()
            return True
        return False

    def signin_slot(self) -> int:
        """The row (0..SLOTS-1) the Sign in button sits in on this visit."""
        return random.Random(self._seed + self.visits).randrange(SLOTS)

    # -- actions -------------------------------------------------------------------------
    def _sign_in(self) -> None:
        self.attempts += 1
        user, password = self.field("username").strip(), self.field("password")
        if not user or not password:
            self.error = self.t("Enter username and password", "请输入用户名和密码")
            return
        if user == self.valid_user and password == self.valid_password:
            self.logged_in, self.user, self.error = True, user, ""
            self.stack = [Screen("welcome")]
            self.focus = None
            return
        self.failures += 1
        self.fields["password"] = ""  # as real apps do: the password must be typed again
        self.error = "Wrong username or password 用户名或密码错误"

    def _sign_out(self) -> None:
        self.logged_in, self.user = False, None
        self.fields = {}
        self.error = ""
        self.stack = [Screen("main")]
        self.visits += 1

    def _forgot(self) -> None:
        self.notice = ""
        self.push("forgot")

    def _send_reset(self) -> None:
        email = self.field("email").strip()
        if "@" not in email:
            self.notice = self.t("Enter a valid email", "请输入有效的邮箱")
            return
        self.reset_requests.append(email)
        self.notice = self.t(f"Reset link sent to {email}", f"重置链接已发送至 {email}")

    # -- building ------------------------------------------------------------------------
    def build(self, kit: Kit) -> View:
        root = kit.root()
        name = self.screen.name
        if name == "welcome":
            self._build_welcome(kit, root)
        elif name == "forgot":
            self._build_forgot(kit, root)
        else:
            self._build_form(kit, root)
        return root

    def _field(self, kit: Kit, root: View, y: int, label: str, key: str, hint: str,
               password: bool = False) -> None:
        root.add(kit.text(kit.row(y, 24), label, size=14, color=MUTED))
        root.add(clipped(kit, kit.edit(kit.row(y + kit.dp(26), 56), key, self.field(key),
                                       hint=hint, focused=self.focus == key,
                                       password=password,
                                       resource_id=f"{self.package}:id/{key}")))

    def _build_form(self, kit: Kit, root: View) -> None:
        root.add(kit.app_bar("Login 登录", color=TEAL))
        y = kit.content[1] + kit.dp(80)
        root.add(kit.text(kit.row(y, 40), "Welcome back 欢迎回来", size=24, bold=True,
                          align="center", resource_id=f"{self.package}:id/headline"))
        y += kit.dp(60)
        self._field(kit, root, y, self.t("Username", "用户名"), "username",
                    self.t("Username", "用户名"))
        y += kit.dp(92)
        self._field(kit, root, y, self.t("Password", "密码"), "password",
                    self.t("Password", "密码"), password=True)
        y += kit.dp(88)
        if self.error:
            root.add(kit.text(kit.row(y, 28), self.error, size=14, color=ERROR_RED,
                              resource_id=f"{self.package}:id/error"))
        zone = y + kit.dp(36)
        by = zone + self.signin_slot() * kit.dp(SLOT_DP)
        root.add(kit.button(kit.row(by, 52), "Sign in 登录", self._sign_in, color=TEAL,
                            resource_id=f"{self.package}:id/sign_in"))
        root.add(kit.text(kit.row(zone + SLOTS * kit.dp(SLOT_DP), 32),
                          "Forgot password? 忘记密码？", size=15, color=PRIMARY, align="center",
                          on_click=self._forgot,
                          resource_id=f"{self.package}:id/forgot_password"))

    def _build_forgot(self, kit: Kit, root: View) -> None:
        root.add(kit.app_bar(self.t("Reset password", "重置密码"), on_back=self.back,
                             color=TEAL))
        y = kit.content[1] + kit.dp(80)
        root.add(kit.text(kit.row(y, 32), self.t("We'll email you a reset link.",
                                                 "我们会把重置链接发到你的邮箱。"),
                          color=MUTED))
        self._field(kit, root, y + kit.dp(48), self.t("Email", "邮箱"), "email",
                    "name@example.com")
        y += kit.dp(148)
        root.add(kit.button(kit.row(y, 52), self.t("Send reset link", "发送重置链接"),
                            self._send_reset, color=TEAL,
                            resource_id=f"{self.package}:id/send_reset"))
        if self.notice:
            root.add(kit.text(kit.row(y + kit.dp(64), 32), self.notice, size=14,
                              color=MUTED, align="center",
                              resource_id=f"{self.package}:id/notice"))

    def _build_welcome(self, kit: Kit, root: View) -> None:
        root.add(kit.app_bar(self.t("Account", "账户"), color=TEAL))
        y = kit.content[1] + kit.dp(140)
        side = kit.dp(96)
        cx = kit.width // 2
        root.add(kit.view("android.widget.ImageView", (cx - side // 2, y, cx + side // 2,
                                                       y + side), kind="icon",
                          desc=self.user or "", style={"bg": TEAL, "glyph": "👤",
                                                       "fg": (255, 255, 255)}))
        y += side + kit.dp(24)
        root.add(kit.text(kit.row(y, 40), f"Welcome, {self.user}", size=24, bold=True,
                          align="center", resource_id=f"{self.package}:id/welcome"))
        root.add(kit.text(kit.row(y + kit.dp(44), 28), self.t("You are signed in.", "你已登录。"),
                          color=MUTED, align="center"))
        root.add(kit.button(kit.row(y + kit.dp(100), 52), self.t("Sign out", "退出登录"),
                            self._sign_out, color=(120, 120, 128),
                            resource_id=f"{self.package}:id/sign_out"))

    def state(self) -> dict:
        return {
            "screen": self.screen.name,
            "logged_in": self.logged_in,
            "user": self.user,
            "attempts": self.attempts,
            "failures": self.failures,
            "username": self.field("username"),
            "password_len": len(self.field("password")),
            "visits": self.visits,
            "signin_slot": self.signin_slot(),
            "reset_requests": list(self.reset_requests),
        }
