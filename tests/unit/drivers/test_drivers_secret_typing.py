"""SecretTyping: placeholders are typed as their values, the outcomes above the driver hold
only placeholders, and what goes into a password field where it is typed becomes a secret."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from PIL import Image

from omg_agent.core.actions import Action, ElementTarget, Tap, TypeText, parse_action
from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import Observation, UIElement
from omg_agent.core.secrets import SecretVault
from omg_agent.drivers.base import ActionOutcome, DeviceInfo, ExecResult
from omg_agent.drivers.secret_typing import SecretTyping
from omg_agent.errors import ActionRejected


def _field(i: int, *, password: bool = False, focused: bool = False) -> UIElement:
    return UIElement(id=i, cls="android.widget.EditText", role="input", editable=True,
                     password=password, focused=focused,
                     bounds=Bounds(0, 100 * i, 1000, 100 * i + 80))


def _screen(*elements: UIElement) -> Observation:
    return Observation(screenshot=Image.new("RGB", (100, 100)), elements=elements)


class ScriptedDriver:
    """Runs nothing: resolves element targets on the observation it is given (as a real
    driver does at execution time) and says what it typed, text included."""

    def __init__(self) -> None:
        self.ran: list[Action] = []

    def info(self) -> DeviceInfo:
        return DeviceInfo("fake-1", 100, 100, 160)

    def execute(self, actions: Sequence[Action],
                observation: Observation | None = None, *, review: Any = None) -> ExecResult:
        self.ran += actions
        outcomes = []
        for i, action in enumerate(actions):
            target = getattr(action, "target", None)
            element = (observation.element(target.id) if observation is not None
                       and isinstance(target, ElementTarget) else None)
            detail = f"typed {action.text!r}" if isinstance(action, TypeText) else "tapped"
            outcomes.append(ActionOutcome(i, action, True, detail, element=element))
        return ExecResult(tuple(outcomes), device_calls=1)


def _type(text: str, target: int | None = None) -> TypeText:
    data: dict = {"type": "type", "text": text}
    if target is not None:
        data["target"] = {"kind": "element", "id": target}
    action = parse_action(data)
    assert isinstance(action, TypeText)
    return action


def test_a_placeholder_is_typed_as_its_value_and_comes_back_as_the_placeholder() -> None:
    vault = SecretVault({"pw": "omg5865"})
    inner = ScriptedDriver()
    result = SecretTyping(inner, vault).execute([_type("{{secret:pw}}", 1)],
                                                _screen(_field(1)))
    assert [a.text for a in inner.ran if isinstance(a, TypeText)] == ["omg5865"]
    outcome = result.outcomes[0]
    assert isinstance(outcome.action, TypeText) and outcome.action.text == "{{secret:pw}}"
    assert "omg5865" not in outcome.detail and "{{secret:pw}}" in outcome.detail


def test_text_typed_into_a_password_field_of_the_screen_it_is_typed_on_is_learned() -> None:
    vault = SecretVault()
    login = _screen(_field(1), _field(2, password=True))
    SecretTyping(ScriptedDriver(), vault).execute(
        [_type("demo-user", 1), _type("pa55word-A", 2)], login)
    assert vault.names == ["password"] and vault.value("password") == "pa55word-A"


def test_untargeted_text_goes_to_the_field_a_tap_just_focused() -> None:
    vault = SecretVault()
    login = _screen(_field(1, focused=True), _field(2, password=True))
    tap = Tap(target=ElementTarget(id=2))
    SecretTyping(ScriptedDriver(), vault).execute([tap, _type("pa55word-B")], login)
    assert vault.value("password") == "pa55word-B"


def test_untargeted_text_into_a_focused_password_field_is_learned() -> None:
    vault = SecretVault()
    SecretTyping(ScriptedDriver(), vault).execute(
        [_type("pa55word-C")], _screen(_field(1, password=True, focused=True)))
    assert vault.value("password") == "pa55word-C"


def test_text_into_an_ordinary_field_is_not_a_secret() -> None:
    vault = SecretVault()
    SecretTyping(ScriptedDriver(), vault).execute([_type("hello world", 1)],
                                                  _screen(_field(1, focused=True)))
    assert len(vault) == 0


def test_an_unknown_placeholder_is_refused_before_anything_runs() -> None:
    inner = ScriptedDriver()
    with pytest.raises(ActionRejected, match="no secret named pin"):
        SecretTyping(inner, SecretVault()).execute([_type("{{secret:pin}}", 1)],
                                                   _screen(_field(1)))
    assert inner.ran == []
