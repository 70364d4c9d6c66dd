"""Login tasks: sign in with the password in the goal (the Sign in button moves between
visits), and sign in with a password the user gives when asked (a secret: sensitive).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from omg_agent.bench.suite.nav import a_tap, a_type, answer, ask, back, front, wait, where
from omg_agent.sim.expert.screen import Screen, tap, type_into
from omg_agent.sim.expert.tasks import LOGIN, Login, MoveContext, Moves, Task

log = logging.getLogger(__name__)


def welcome(user: str) -> str:
    return f'the Login app shows "Welcome, {user}"'


def sign_in(phone: Any, screen: Screen, user: str, password: str) -> Moves:
    """Moves that sign ``user`` in with ``password`` from any screen."""
    moves = front(phone, screen, LOGIN, [a_type("username", user), a_type("password", password),
                                         a_tap(res="sign_in")])
    if moves:
        return moves
    if where(phone, LOGIN) != "main":
        return [back()]
    app = phone.apps[LOGIN]
    user_box, pass_box = screen.find(res="username"), screen.find(res="password")
    moves = [type_into(user_box, user)] if user_box and app.field("username") != user else []
    # a model that was given the password as a {{secret:…}} placeholder cannot compare the
    # field with it (the field shows dots): a filled field is typed
    typed = app.field("password")
    retype = not typed if password.startswith("{{secret:") else typed != password
    moves += [type_into(pass_box, password)] if pass_box and retype else []
    button = screen.find(res="sign_in")
    return [*moves, tap(button)] if button else moves or [wait()]


@dataclass
class SignIn(Login):
    def __post_init__(self) -> None:
        super().__post_init__()
        self.criteria = welcome(self.user)

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        return sign_in(phone, screen, self.user, self.password or "")


@dataclass
class AskPassword(Task):
    """Sign in when only the user knows the password: ask, then type the answer."""

    user: str = "demo"

    def __post_init__(self) -> None:
        self.goal = f"Sign in to Login as {self.user}; ask me for the password"
        self.criteria = welcome(self.user)
        self.question = f"What is the password for {self.user}?"
        self.password = ""

    def setup(self, phone: Any) -> None:
        self.password = phone.apps[LOGIN].valid_password

    def check(self, phone: Any) -> bool:
        app = phone.apps[LOGIN]
        return bool(app.logged_in and app.user == self.user)

    def answer_user(self, question: str) -> str | None:
        return self.password or None

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        password = answer(ctx, self.question)
        if password is None:
            return [ask(self.question, secret=True)]
        return sign_in(phone, screen, self.user, password)
