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
