"""The operator's macro hook: offers after two repetitions, runs an accepted macro, keeps
it in the store so a later run is offered it from the start."""

from __future__ import annotations

from types import SimpleNamespace

from omg_agent.core.actions import RunMacro, Tap
from omg_agent.drivers.base import ActionOutcome, ExecResult
from omg_agent.macros.session import MacroSession, run_requested
from omg_agent.macros.store import MacroStore
from tests.unit.macros.listphone import ListPhone


def like_turn(session: MacroSession, phone: ListPhone, n: int) -> None:
    obs = phone.observe()
    button = next(e for e in obs.elements if e.desc == f"Like post {n}")
    outcome = ActionOutcome(0, Tap(target={"kind": "element", "id": button.id}), True,
                            "tap", tuple(button.center), "element", button)
    phone.tap(*button.center)
    session.watch(obs, ExecResult((outcome,)))


def test_offer_after_two_repetitions_then_the_accepted_macro_runs_and_is_kept(tmp_path):
    phone = ListPhone([f"A{i}" for i in range(20)])
    store = MacroStore(tmp_path)
    session = MacroSession(phone, shell=phone, store=store)  # type: ignore[arg-type]
    like_turn(session, phone, 1)
    assert session.offer(phone.observe()) == ""  # one repetition is no pattern yet
    like_turn(session, phone, 2)
    offer = session.offer(phone.observe())
    assert offer.startswith("Macro offer list-like:") and '"type": "macro"' in offer

    result = SimpleNamespace(actions=[], results=[], executed=None, failure=None)
    run_requested(session, result, [RunMacro(name="list-like", count=5)], phone.observe())
    assert result.failure is None and result.executed.ok
    assert phone.liked == set(range(1, 8))
    assert [s.macro.name for s in store.stored()] == ["list-like"]

    fresh = ListPhone([f"A{i}" for i in range(20)])
    later = MacroSession(fresh, shell=fresh, store=store)  # type: ignore[arg-type]
    assert later.offer(fresh.observe()).startswith("Macro offer list-like:")


def test_a_macro_nobody_offered_is_a_failed_turn_not_a_device_action():
    phone = ListPhone(["Ann", "Bob"])
    result = SimpleNamespace(actions=[], results=[], executed=None, failure=None)
    run_requested(MacroSession(phone, shell=phone), result,  # type: ignore[arg-type]
                  [RunMacro(name="ghost")], phone.observe())
    assert "no macro named 'ghost' was offered" in result.failure.message
    assert not phone.commands
    run_requested(None, result, [RunMacro(name="ghost")], phone.observe())
    assert "no macro is offered in this run" in result.failure.message
