"""An answer is a secret only when the operator's question asked for a secret value (its
``ask_user`` carries ``secret: true``) — issue 35 §5. No word of the question decides it, and
a yes, a no or a short word is never a secret, flagged or not: the probe's "Signing in
failed twice … Should I try once more? (yes / no)" once turned "yes" into
``{{secret:password}}`` in every later prompt, the trace and the CLI."""

from __future__ import annotations

from typing import Any

import pytest

from omg_agent.core.actions import Action
from omg_agent.core.observation import UIElement
from omg_agent.core.secrets import SecretVault

from .fakes import (
    FakeWorld,
    ScriptedModel,
    bundle,
    contract,
    el,
    orchestrator,
    plan,
    user_text,
)

RETRY = ("Signing in failed twice with the password you gave. Should I try once more? "
         "(yes / no)")


def _world() -> FakeWorld:
    def stay(screen: str, action: Action, element: UIElement | None) -> str:
        return screen

    return FakeWorld({"login": ("com.omg.login", [el(1, "Sign in")])}, stay, "login")


def _run(question: str, flagged: bool, answer: str) -> tuple[SecretVault, str]:
    """One question with ``answer``; the vault after it and the next operator request."""
    ask = {"type": "ask_user", "question": question, **({"secret": True} if flagged else {})}
    script = [bundle(ask), bundle(goal_complete=True, answer="ok")]

    def policy(name: str, text: str, body: dict[str, Any]) -> Any:
        if name == "TaskPlan":
            return plan({"description": "Sign in"})
        if name == "Replan":
            return {"status": "replanned", "plan": plan({"description": "Sign in"})}
        return script.pop(0) if len(script) > 1 else script[0]

    vault, model = SecretVault(), ScriptedModel(policy)
    with orchestrator(_world(), model, ask_user=lambda q: answer, secrets=vault,
                      max_steps=3) as orch:
        orch.run("Sign in to Login as demo")
    after = [user_text(b) for b in model.requests if contract(b) == "DecisionBundle"][1:]
    assert after, model.contracts()
    return vault, "\n".join(after)


@pytest.mark.parametrize("flagged", [True, False])
@pytest.mark.parametrize("answer", ["yes", "no", "好", "okay", "go ahead", "不要"])
def test_yes_and_no_are_never_secrets(flagged: bool, answer: str) -> None:
    vault, later = _run(RETRY, flagged, answer)
    assert len(vault) == 0, vault.names
    assert "{{secret:" not in later and answer in later


def test_a_flagged_question_keeps_its_answer_secret() -> None:
    vault, later = _run("What is the password for demo?", True, "omg5865")
    assert vault.value("password") == "omg5865"
    assert "omg5865" not in later and "{{secret:password}}" in later


def test_an_unflagged_question_about_a_password_is_no_secret_by_its_words() -> None:
    vault, later = _run("Which of the password hints fits: blue or green?", False,
                        "green-blue")
    assert len(vault) == 0 and "green-blue" in later
