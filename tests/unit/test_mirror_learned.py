"""Learned steps (issue 16): the screen signature, the store's key and ``omg-agent memory
learned`` listing and deleting entries."""

from __future__ import annotations

import json

from PIL import Image
from typer.testing import CliRunner

from omg_agent.cli import app
from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import Observation, UIElement
from omg_agent.flows.model import AssertVisible, Flow, Selector, TapOn
from omg_agent.hitl.learn import LearnedStore, screen_signature

APP = "com.omg.login"


def _screen(button_top: int, typed: str = "", extra: str = "") -> Observation:
    ids = ["username", "password", "sign_in", *([extra] if extra else [])]
    elements = tuple(
        UIElement(id=i, cls="android.widget.EditText" if n != "sign_in" else
                  "android.widget.Button", role="input", bounds=Bounds(
                      0, button_top + 60 * i if n == "sign_in" else 60 * i, 100,
                      button_top + 60 * i + 40 if n == "sign_in" else 60 * i + 40),
                  text=typed if n == "username" else "", editable=n != "sign_in",
                  resource_id=f"{APP}:id/{n}")
        for i, n in enumerate(ids))
    return Observation(screenshot=Image.new("RGB", (100, 400)), elements=elements,
                       package=APP, activity=".LoginActivity", screen_hash="")


def test_the_signature_is_the_screens_structure_not_its_texts_or_positions():
    plain = screen_signature(_screen(200))
    assert screen_signature(_screen(320, typed="demo")) == plain  # moved button, typed text
    assert screen_signature(_screen(200, extra="error")) != plain  # another element


def _flow() -> Flow:
    return Flow(commands=(TapOn(selector=Selector(id="sign_in"), line=1),
                          AssertVisible(selector=Selector(id="welcome"), line=2)),
                app_id=APP, name="learned")


def test_an_entry_is_found_by_app_screen_and_intent_only(tmp_path):
    store = LearnedStore(tmp_path)
    obs = _screen(200)
    store.put(APP, screen_signature(obs), "Sign in as demo", _flow())
    assert store.find(_screen(260), "please sign in as demo") is not None  # same intent
    assert store.find(obs, "Sign out") is None
    assert store.find(_screen(200, extra="error"), "Sign in as demo") is None


def test_memory_learned_lists_and_deletes(tmp_path):
    store = LearnedStore(tmp_path)
    entry = store.put(APP, screen_signature(_screen(200)), "Sign in as demo", _flow())
    runner = CliRunner()
    listed = runner.invoke(app, ["memory", "learned", "--dir", str(tmp_path), "--json"])
    assert listed.exit_code == 0, listed.output
    rows = json.loads(listed.output)
    assert [(r["id"], r["app"], r["intent"]) for r in rows] == [
        (entry.key, APP, "Sign in as demo")]
    assert rows[0]["steps"] == ["tapOn id='sign_in'", "assertVisible id='welcome'"]
    table = runner.invoke(app, ["memory", "learned", "--dir", str(tmp_path)],
                          env={"COLUMNS": "200"})
    assert entry.key in table.output and "Sign in as demo" in table.output
    wrong = runner.invoke(app, ["memory", "learned", "--dir", str(tmp_path), "--delete", "x"])
    assert wrong.exit_code != 0 and entry.key in wrong.output
    gone = runner.invoke(app, ["memory", "learned", "--dir", str(tmp_path), "--delete",
                               entry.key])
    assert gone.exit_code == 0 and store.entries() == []
    assert not (tmp_path / entry.key).exists()
    empty = runner.invoke(app, ["memory", "learned", "--dir", str(tmp_path)])
    assert "no learned steps" in empty.output


# -- what is never learned (issue 34) --------------------------------------------------------
class _Phone:
    """A driver double that only shows a screen (gestures are the learner's input here)."""

    def __init__(self, screen: Observation) -> None:
        self.screen = screen

    def observe(self) -> Observation:
        return self.screen


def _takeover(learner, gestures) -> object:
    """The human's ``gestures`` on the login screen, then the agent looks at another."""
    phone = _Phone(_screen(200))
    learner.intent = "Sign in as demo"
    for action in gestures:
        learner.gesture(phone, action)
    return learner.resume(obs=_screen(200, extra="welcome"))


def _sign_in_tap():
    from omg_agent.core.actions import AnchorTarget, Tap

    return Tap(target=AnchorTarget(resource_id=f"{APP}:id/sign_in"))


def test_a_takeover_that_leaves_the_screen_is_learned(tmp_path):
    from omg_agent.hitl.learn import Learner

    learner = Learner(LearnedStore(tmp_path))
    assert _takeover(learner, [_sign_in_tap()]) is not None  # the control: it is learned
    assert len(learner.store.entries()) == 1


def test_a_home_press_during_an_approval_wait_is_never_learned(tmp_path):
    """Was: Home pressed on the mirror while the gate waited for a yes became a learned
    step, replayed by the next run."""
    from omg_agent.core.actions import Home, Key
    from omg_agent.hitl.learn import Learner

    for press in (Home(), Key(key="home"), Key(key=3), Key(key="back"), _sign_in_tap()):
        learner = Learner(LearnedStore(tmp_path / type(press).__name__ / str(
            getattr(press, "key", ""))))
        learner.watch_approvals(lambda: True)
        assert _takeover(learner, [press]) is None
        assert learner.store.entries() == [], press


def test_a_system_key_spoils_a_takeover_whoever_pressed_it(tmp_path):
    from omg_agent.core.actions import Home, Key
    from omg_agent.hitl.learn import Learner

    for i, press in enumerate((Home(), Key(key="home"), Key(key=3), Key(key="recents"),
                               Key(key="power"))):
        learner = Learner(LearnedStore(tmp_path / str(i)))
        assert _takeover(learner, [_sign_in_tap(), press]) is None, press
        assert learner.store.entries() == []


def test_the_mirror_tells_the_learner_when_an_approval_waits_on_its_page(tmp_path):
    import threading

    from omg_agent.core.actions import Home
    from omg_agent.guards.confirmation import ConfirmationRequest
    from omg_agent.hitl.learn import Learner
    from omg_agent.hitl.server import Mirror

    mirror = Mirror(_Phone(_screen(200)), video=False)
    learner = Learner(LearnedStore(tmp_path))
    mirror.learn(learner)
    answers: list[object] = []
    asking = threading.Thread(target=lambda: answers.append(mirror.channel.confirm(
        ConfirmationRequest("payment", 'tap "Pay ¥1,079.00"', "the label says 'pay'"))))
    asking.start()
    opened = threading.Event()
    while not mirror.channel.pending():  # the question is on the page
        opened.wait(0.01)
    assert _takeover(learner, [Home(), _sign_in_tap()]) is None
    mirror.channel.answer(mirror.channel.pending()[0]["id"], False)
    asking.join(5)
    mirror.close()
    assert answers == [False] and learner.store.entries() == []
