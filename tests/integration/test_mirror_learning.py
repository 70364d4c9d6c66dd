"""Learning from takeovers (issue 16): a takeover on the vphone's Login screen is stored as
learned steps; the second run of the same task passes that screen with no model call and no
human, and ends done as the phone shows.

Run 1: the real Orchestrator (open_agent: secrets vault, secret typing, gate) with the model
double over HTTP; the scripted model asks for help on the sign-in screen; the "human" signs
in through the real mirror endpoints (HTTP with the cookie and the tab's key), then answers.
Run 2: the same task, nobody to ask; the model's requests are read from the double's log
together with the screen the phone showed when each one arrived.
"""

from __future__ import annotations

import json
import threading
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from omg_agent.brain.agent import open_agent
from omg_agent.brain.orchestrator import Orchestrator
from omg_agent.config import Settings
from omg_agent.core.geometry import pixel_to_norm
from omg_agent.drivers.adb import AdbDriver
from omg_agent.hitl.client import MirrorClient
from omg_agent.hitl.learn import LEARNED_DIR, LearnedStore, Learner
from omg_agent.hitl.server import Mirror
from omg_agent.sim.model_double import ModelDouble, contract_name
from omg_agent.taskrun import open_secrets

LOGIN = "com.omg.login"
STEP = "Sign in to the Login app as demo"
HELP = "I'm stuck on the sign-in screen: please sign in on the mirror, then answer done"


class StuckAtLogin:
    """Plans one step; on the sign-in form it asks the human; once signed in, it is done.
    Every request is noted with the Login app's screen at that moment."""

    def __init__(self, phone: Any) -> None:
        self.phone = phone
        self.calls: list[tuple[str, str, bool]] = []

    def _where(self) -> tuple[str, bool]:
        app = self.phone.apps[LOGIN]
        shown = app.screen.name if self.phone.foreground == LOGIN else self.phone.foreground
        return shown, bool(app.logged_in)

    def reply(self, request: dict[str, Any]) -> str:
        name = contract_name(request) or "operator"
        shown, signed_in = self._where()
        self.calls.append((name, shown, signed_in))
        plan = {"goal": STEP, "steps": [{"description": STEP, "complexity": 3,
                                          "success_criteria": "the app welcomes demo",
                                          "checks": [{"kind": "element",
                                                      "resource_id": f"{LOGIN}:id/welcome"}]}]}
        if name == "TaskPlan":
            return json.dumps(plan)
        if name == "Replan":
            if signed_in:
                return json.dumps({"status": "done", "plan": None, "response": "signed in"})
            return json.dumps({"status": "replanned", "plan": plan})
        if signed_in:
            return json.dumps({"thought": "welcome shows", "last_action_result": "success",
                               "goal_complete": True, "answer": "signed in"})
        if self.phone.foreground != LOGIN:
            action: dict[str, Any] = {"type": "launch", "app": LOGIN}
        else:
            action = {"type": "ask_user", "question": HELP}
        return json.dumps({"thought": "login", "last_action_result": "success",
                           "execute_now": {"intent": "act", "actions": [action]}})


def tap_id(human: MirrorClient, view: AdbDriver, resource_id: str) -> None:
    """A click on the element's middle, in the page's 0–1000 screen units."""
    obs = view.observe()
    element = next(e for e in obs.elements if e.resource_id == f"{LOGIN}:id/{resource_id}")
    x, y = pixel_to_norm(element.bounds.center, obs.size)
    human.tap(round(x), round(y))


def _run(vphone, tmp_path: Path, task: str, double: ModelDouble, ask: Any,
         learner_dir: Path, mirror: Mirror | None = None) -> tuple[Any, Learner]:
    settings = Settings(base_url=double.base_url, model="double", max_steps=10,
                        retry_backoff_s=0.001, retry_backoff_max_s=0.01, timeout_s=20,
                        runs_dir=tmp_path / "runs", planning="adaptive")
    with ExitStack() as stack:
        driver = stack.enter_context(AdbDriver(vphone.serial))
        secrets = open_secrets(stack, task, settings)
        learner = Learner(LearnedStore(learner_dir), secrets)
        orch: Orchestrator = open_agent(stack, driver, settings, task, ask_user=ask,
                                        secrets=secrets, learned=learner)
        if mirror is not None:
            mirror.learn(learner)
        return orch.run(task), learner


def _sign_out(vphone) -> None:
    """Out of the account through the phone's UI (the next visit moves the Sign in button)."""
    with AdbDriver(vphone.serial) as view:
        obs = view.observe()
        button = next(e for e in obs.elements if e.resource_id == f"{LOGIN}:id/sign_out")
        vphone.device.click(*button.bounds.center)


def test_a_takeover_on_the_login_screen_is_learned_and_replayed_with_no_model_or_human(
        vphone, tmp_path):
    phone = vphone.phone
    login = phone.apps[LOGIN]
    password = login.valid_password
    task = f"Sign in to Login as demo with password {{{{secret:login_pw={password}}}}}"
    learned = tmp_path / "runs" / LEARNED_DIR
    phone.start_activity(LOGIN)
    first_slot = login.signin_slot()

    # -- run 1: the model asks; the human signs in on the mirror ---------------------------
    model = StuckAtLogin(phone)
    with ModelDouble(model) as double, AdbDriver(vphone.serial) as view, \
            Mirror(view) as mirror:
        human = MirrorClient(mirror.url)  # the page's HTTP requests, cookie and key

        def helps() -> None:
            mirror.changes.wait(0, 1)
            while not any(p["kind"] == "ask" for p in mirror.channel.pending()):
                mirror.changes.wait(mirror.changes.version, 1)
            request = next(p for p in mirror.channel.pending() if p["kind"] == "ask")
            tap_id(human, view, "username")
            human.post("/api/act/type", {"text": "demo"})
            tap_id(human, view, "password")
            human.post("/api/act/type", {"text": password})
            tap_id(human, view, "sign_in")
            human.post("/api/answer", {"id": request["id"], "answer": "done"})

        helper = threading.Thread(target=helps, daemon=True)
        helper.start()
        first, learner1 = _run(vphone, tmp_path, task, double, mirror.channel.ask, learned,
                               mirror)
        helper.join(30)
    assert first.status == "done" and login.logged_in, (first, model.calls)
    assert login.logged_in and login.user == "demo"
    assert any(name == "DecisionBundle" and shown == "main" for name, shown, _ in model.calls)
    assert len(learner1.saved) == 1
    entries = LearnedStore(learned).entries()
    assert [e["app"] for e in entries] == [LOGIN] and entries[0]["intent"] == STEP
    stored = "\n".join(p.read_text(encoding="utf-8") for p in learned.rglob("*")
                       if p.is_file())
    assert password not in stored and "{{secret:login_pw}}" in stored  # never the secret
    assert "sign_in" in stored and "point" not in stored  # anchors, not coordinates

    # -- run 2: the same task; nobody to ask --------------------------------------------------
    _sign_out(vphone)
    assert not login.logged_in and login.screen.name == "main"
    assert login.signin_slot() != first_slot  # the Sign in button moved
    asked: list[str] = []
    model2 = StuckAtLogin(phone)
    with ModelDouble(model2) as double:
        second, learner2 = _run(vphone, tmp_path, task, double,
                                lambda q: asked.append(q) or None, learned)
        requests = len(double.requests)
    assert second.status == "done" and login.logged_in and login.user == "demo"
    assert asked == []  # no human
    on_login_screen = [c for c in model2.calls if c[0] != "TaskPlan" and c[1] == "main"]
    assert on_login_screen == []  # no model call for the sign-in screen
    assert requests == len(model2.calls) and learner2.replays[0]["ok"] is True
    assert LearnedStore(learned).store.get(entries[0]["key"]).meta["hits"] == 1


def test_a_password_the_run_does_not_know_is_never_learned(vphone, tmp_path):
    typed = "not-a-known-secret"
    phone = vphone.phone
    phone.start_activity(LOGIN)
    learned = LearnedStore(tmp_path / LEARNED_DIR)
    learner = Learner(learned, secrets=None)
    learner.intent = STEP
    with AdbDriver(vphone.serial) as view, Mirror(view) as mirror:
        mirror.learn(learner)
        human = MirrorClient(mirror.url)  # the page's HTTP requests, cookie and key
        tap_id(human, view, "username")
        human.post("/api/act/type", {"text": "demo"})
        tap_id(human, view, "password")
        human.post("/api/act/type", {"text": typed})
        tap_id(human, view, "forgot_password")  # leaves the screen
        human.post("/api/takeover", {"on": True})
        human.post("/api/takeover", {"on": False})
    assert learner.saved == [] and learned.entries() == []
    assert not (tmp_path / LEARNED_DIR).exists() or typed not in "".join(
        p.read_text() for p in (tmp_path / LEARNED_DIR).rglob("*") if p.is_file())
