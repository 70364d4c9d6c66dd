"""Prompts that know where they are (issue 39 item 3): on a desktop the operator and the
planner are told "desktop", the foreground app and its window, in desktop words (click,
window, menu, keyboard shortcut); the phone's prompts are unchanged.

A FakeDriver that says it is a desktop, the real openai client on httpx.MockTransport."""

from __future__ import annotations

import dataclasses
import re
import typing
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from omg_agent.brain import prompts
from omg_agent.brain.llm import LLMClient
from omg_agent.brain.memory import MemoryBank
from omg_agent.brain.orchestrator import Orchestrator
from omg_agent.brain.prompts.desktop_words import SWAPS, for_desktop
from omg_agent.config import Settings
from omg_agent.core.observation import Observation
from omg_agent.drivers.base import DeviceInfo

from .fakes import (
    FakeDriver,
    FakeWorld,
    ScriptedModel,
    bundle,
    el,
    httpx,
    orchestrator,
    plan,
    user_text,
)
from .test_model_reads import UNION, _fields, _named_with

PHONE_WORDS = re.compile(r"android|phone|home screen|back button|launcher|(?<![`_])\btaps?\b",
                         re.IGNORECASE)
MODES = ["unified", "flat", "adaptive"]


class DesktopFakeDriver(FakeDriver):
    """The fake world as a desktop: its driver is ``desktop``, its window has a title."""

    def info(self) -> DeviceInfo:
        return dataclasses.replace(super().info(), driver="desktop")

    def observe(self, *, ocr: bool = False) -> Observation:
        obs = dataclasses.replace(super().observe(ocr=ocr), activity="Untitled — Edited")
        self.last_observation = obs
        return obs


def _world() -> FakeWorld:
    screen = ("TextEdit", [el(1, "File", role="item"), el(2, "Save", role="button"),
                           el(3, "Shopping list", role="input", editable=True)])
    return FakeWorld({"doc": screen}, lambda s, a, e: s, "doc")


@contextmanager
def desktop_run(model: ScriptedModel, planning: str) -> Iterator[Orchestrator]:
    config = Settings(base_url="http://model.test/v1", model="scripted", max_steps=4,
                      retry_backoff_s=0.001, retry_backoff_max_s=0.001, planning=planning)
    http = httpx.Client(transport=httpx.MockTransport(model.handler))
    with LLMClient(config, "operator", http_client=http) as llm, \
            MemoryBank(None, "unit") as memory:
        yield Orchestrator(DesktopFakeDriver(_world()), llm, llm, memory, config)


def _policy(contract: str, text: str, body: dict[str, Any]) -> Any:
    if contract == "TaskPlan":
        return plan({"description": "save the note"})
    if contract == "Replan":
        return {"status": "give_up", "response": "stop"}
    return bundle(goal_complete=True, answer="saved")


def _system(body: dict[str, Any]) -> str:
    return body["messages"][0]["content"]


# -- the operator and the planner on a desktop -------------------------------------------------
@pytest.mark.parametrize("planning", ["unified", "adaptive"])
def test_a_desktop_run_is_told_desktop_with_its_app_and_window(planning: str) -> None:
    model = ScriptedModel(_policy)
    with desktop_run(model, planning) as orch:
        orch.run("save the note as todo.txt")
    assert model.requests
    for body in model.requests:
        system, user = _system(body), user_text(body)
        assert "desktop" in system and PHONE_WORDS.search(system + user) is None, (
            PHONE_WORDS.search(system + user))
        assert 'Foreground app: TextEdit — window "Untitled — Edited"' in user
    operator = [b for b in model.requests if "You operate" in _system(b)]
    assert operator and "keyboard shortcut" in _system(operator[0])
    assert "click" in _system(operator[0]) and "menu" in _system(operator[0])
    if planning == "adaptive":
        assert "You are the planner" in _system(model.requests[0])


def test_a_phone_run_is_still_told_phone() -> None:
    model = ScriptedModel(_policy)
    world = FakeWorld({"home": ("com.omg.notes", [el(1, "Save")])}, lambda s, a, e: s,
                      "home")
    with orchestrator(world, model, planning="unified") as orch:
        orch.run("save the note")
    system = _system(model.requests[0])
    assert system == prompts.operator_system("unified")
    assert "Android phone" in system and "Foreground app: com.omg.notes" in user_text(
        model.requests[0])


# -- the templates ------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_the_desktop_operator_prompt_keeps_every_rule_in_desktop_words(mode: str) -> None:
    phone = prompts.operator_system(mode)
    desktop = prompts.operator_system(mode, device="desktop")
    assert PHONE_WORDS.search(desktop) is None
    assert desktop.startswith("You operate a desktop computer")
    assert "## This desktop" in desktop and "## This desktop" not in phone
    # every action type is named with every field it has, as in the phone's prompt
    missing = []
    for member in UNION:
        name = typing.get_args(member.model_fields["type"].annotation)[0]
        said = _named_with(desktop, name)
        missing += [f"{name}.{f}" for f in _fields(member) if f"`{f}`" not in said]
        assert f"`{name}`" in desktop, name
    assert missing == []
    for head in re.findall(r"^## .*$", phone, re.MULTILINE):
        assert head in desktop


@pytest.mark.parametrize("name", ["planner", "replan"])
def test_the_desktop_planner_prompts_say_desktop(name: str) -> None:
    text = prompts.render(name, device="desktop")
    assert PHONE_WORDS.search(text) is None and "desktop" in text
    assert text.count("\n") >= prompts.render(name).count("\n")  # nothing dropped


def test_the_phone_prompts_are_the_templates_as_they_were() -> None:
    for name in prompts.NAMES:
        assert prompts.render(name) == prompts.render(name, device="phone")
    for mode in MODES:
        assert prompts.operator_system(mode) == prompts.operator_system(mode, device="phone")


def test_a_template_edited_without_its_desktop_words_fails_loudly() -> None:
    phone, _ = SWAPS["planner"][0]
    with pytest.raises(ValueError, match="desktop wording expects"):
        for_desktop("planner", prompts.render("planner").replace(phone, "a device"))


def test_the_foreground_line_names_the_window_on_a_desktop_only() -> None:
    assert prompts.foreground_line("com.omg.shop", ".Main") == "Foreground app: com.omg.shop .Main"
    assert prompts.foreground_line("", "") == "Foreground app: ?"
    assert prompts.foreground_line("Calculator", "Calculator", "desktop") == (
        'Foreground app: Calculator — window "Calculator"')
    assert prompts.foreground_line("Finder", "", "desktop") == "Foreground app: Finder"
    assert prompts.device_of("desktop") == "desktop"
    assert {prompts.device_of(d) for d in ("adb", "u2", "")} == {"phone"}


def test_across_devices_the_operator_is_told_the_device_in_use() -> None:
    from omg_agent.drivers.desktop.router import DeviceRouter

    def policy(contract: str, text: str, body: dict[str, Any]) -> Any:
        if contract == "TaskPlan":
            return plan({"description": "read the code", "device": "phone"},
                        {"description": "type the code", "device": "desktop"})
        if contract == "Replan":
            return {"status": "give_up", "response": "stop"}
        return bundle(step_complete=True)

    model = ScriptedModel(policy)
    phone = FakeDriver(FakeWorld({"sms": ("com.omg.messages", [el(1, "Code 4711")])},
                                 lambda s, a, e: s, "sms"))
    router = DeviceRouter({"phone": phone, "desktop": DesktopFakeDriver(_world())})
    config = Settings(base_url="http://model.test/v1", model="scripted", max_steps=6,
                      retry_backoff_s=0.001, retry_backoff_max_s=0.001, planning="adaptive")
    http = httpx.Client(transport=httpx.MockTransport(model.handler))
    with LLMClient(config, "operator", http_client=http) as llm, \
            MemoryBank(None, "unit") as memory:
        Orchestrator(router, llm, llm, memory, config, route=router.route).run(
            "type the code from the message into the editor")
    operator = [(_system(b), user_text(b)) for b in model.requests
                if "You operate" in _system(b)]
    said = [("Android phone" in s, "desktop computer" in s, "com.omg.messages" in u,
             "TextEdit" in u) for s, u in operator]
    assert (True, False, True, False) in said and (False, True, False, True) in said
