"""``flow from-trace`` and the replay cache on vphones through the real adb server, with the
expert double behind the real openai client; outcomes read from the phone's app state."""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from test_flows_vphone import no_model, phone_on_adb  # a sibling test module

from omg_agent.bench.suite.shop_tasks import BuyProduct
from omg_agent.brain.agent import open_agent
from omg_agent.drivers.adb import AdbDriver
from omg_agent.flows.cache import CACHE_DIR, ReplayCache, run_cached
from omg_agent.flows.fromtrace import flow_from_trace
from omg_agent.flows.model import LaunchApp, Selector, TapOn
from omg_agent.flows.session import replay
from omg_agent.flows.write import dump_flow
from omg_agent.sim.expert.policy import ExpertPolicy, NoiseProfile
from omg_agent.sim.expert.runner import (
    run_task,
    sim_settings,
    task_human,
    vphone_on_adb,
    with_overrides,
)
from omg_agent.sim.expert.screen import Screen, request_text
from omg_agent.sim.expert.tasks import ShopPriceToNotes
from omg_agent.sim.model_double import ModelDouble, contract_name
from omg_agent.trace.loader import load_trace
from omg_agent.trace.rundir import new_run_dir

GOAL = "Find the price of MacBook Air 13 in Shop and save it in Notes"


def test_from_trace_of_a_shop_to_notes_run_replays_with_no_model(tmp_path: Path) -> None:
    task = ShopPriceToNotes()
    run = run_task(task, NoiseProfile.named("none"), trace_dir=tmp_path / "agent")
    assert run.success and run.model_calls >= 2
    flow = flow_from_trace(tmp_path / "agent")
    text = dump_flow(flow)
    assert "$price" in text and "¥" not in text  # the saved value is a $var, not a constant
    for seed in (0, 7):  # seed 7: other prices — the flow reads this phone's
        with phone_on_adb("default", seed=seed) as (phone, driver):
            ShopPriceToNotes().setup(phone)
            result = replay(driver, flow, no_model(tmp_path), tmp_path / f"replay-{seed}")
            assert result.status == "done", result.failed
            assert ShopPriceToNotes().check(phone)
            assert len(phone.apps["com.omg.notes"].notes) == 1


def agent_run(runs: Path, wording: str, *, enabled: bool = True, seed: int = 0,
              max_steps: int = 40) -> tuple[str, int, int, bool, Path]:
    """One ``run`` of the Shop→Notes task through the cache hook on a fresh phone:
    (status, model calls the run counted, requests the double received, true outcome,
    run folder)."""
    task = ShopPriceToNotes()
    with vphone_on_adb(seed) as (phone, serial), ExitStack() as stack:
        task.setup(phone)
        double = stack.enter_context(ModelDouble(ExpertPolicy(task, phone,
                                                              NoiseProfile.named("none"))))
        settings = sim_settings(double.base_url, runs, max_steps)
        driver = AdbDriver(serial)
        stack.callback(driver.close)
        run_dir = new_run_dir(runs, "run")
        orchestrator = open_agent(stack, driver, settings, wording, run_dir=run_dir,
                                  confirm=task_human(task)[0])
        result = run_cached(orchestrator.run, orchestrator.ports, wording,
                            runs_dir=orchestrator.settings.runs_dir, enabled=enabled)
        return (result.status, result.model_calls, len(double.requests), task.check(phone),
                run_dir)


def test_the_second_run_of_the_same_task_replays_with_at_most_one_model_call(
        tmp_path: Path) -> None:
    status, calls, requests, ok, _ = agent_run(tmp_path, GOAL)
    assert (status, ok) == ("done", True) and calls >= 2 and requests >= 2
    again = "Please find the price of MacBook Air 13 in Shop, and save it in Notes."
    status, calls, requests, ok, run_dir = agent_run(tmp_path, again)
    assert (status, ok) == ("done", True)
    assert calls <= 1 and requests <= 1
    trace = load_trace(run_dir)
    assert {s.phase for s in trace.steps} == {"flow"}
    assert trace.result is not None and trace.result["status"] == "done"
    assert "¥" in trace.result["answer"]  # the answer carries this replay's price
    status, calls, requests, ok, _ = agent_run(tmp_path, GOAL, enabled=False)  # --no-cache
    assert (status, ok) == ("done", True) and requests >= 2


def test_a_cache_entry_whose_checkpoint_fails_is_repaired_then_retired(tmp_path: Path
                                                                       ) -> None:
    assert agent_run(tmp_path, GOAL)[0] == "done"
    cache = ReplayCache(tmp_path / CACHE_DIR)
    entry = cache.store.get(cache.key(GOAL))
    assert entry is not None
    # the app changed under the flow: a button it needs is gone
    steps = list(entry.flow.commands)
    at = next(i for i, c in enumerate(steps) if isinstance(c, LaunchApp) and "notes" in c.app)
    steps.insert(at + 1, TapOn(selector=Selector(id="gone_button"), timeout_s=1))
    cache.store.put(entry.key, type(entry.flow)(commands=tuple(steps), name=entry.flow.name))
    status, calls, requests, ok, run_dir = agent_run(tmp_path, GOAL)
    assert (status, ok) == ("done", True) and requests >= 1  # the model took over
    repaired = cache.store.get(cache.key(GOAL))
    assert repaired is not None and "gone_button" not in dump_flow(repaired.flow)
    assert repaired.meta["repairs"] == 1
    assert any(e.kind == "cache_checkpoint_failed" for e in load_trace(run_dir).events)
    status, calls, requests, ok, _ = agent_run(tmp_path, GOAL)
    assert (status, ok, requests) == ("done", True, 0)

    steps = list(repaired.flow.commands)
    steps.insert(1, TapOn(selector=Selector(id="gone_button"), timeout_s=1))
    cache.store.put(repaired.key, type(repaired.flow)(commands=tuple(steps)))
    status, *_ = agent_run(tmp_path, GOAL, max_steps=1)  # and the agent cannot finish
    assert status != "done"
    assert cache.store.get(cache.key(GOAL)) is None  # retired, not left poisoned
    assert cache.store.entries()[0]["retired"] is True


# -- nothing pays twice (issue 24) --------------------------------------------------------------
SHOP = "com.omg.shop"
PAY_GOAL = "Pay for the order in Shop"


class PayInShop:
    """A model that pays whatever the Shop's cart holds — cart, Checkout, then Pay by its
    anchor (as the probe's model did) — and says done on the order page; asked to confirm,
    it names "Payment successful"."""

    def reply(self, request: dict[str, Any]) -> str:
        name = contract_name(request)
        if name == "TaskPlan":
            return json.dumps({"goal": PAY_GOAL, "steps": [
                {"description": PAY_GOAL, "success_criteria": "the order is paid"}]})
        if name == "Replan":
            return json.dumps({"status": "done", "response": "Paid", "evidence": [
                {"kind": "element", "text": "Payment successful", "match": "contains"}]})
        text = request_text(request)
        screen = Screen(text)
        if f"Foreground app: {SHOP}" not in text:
            return _bundle([{"type": "launch", "app": SHOP}])
        if screen.find(res="paid_title"):
            return _bundle(None, goal_complete=True, step_complete=True, answer="Paid")
        if screen.find(res="pay"):
            return _bundle([{"type": "tap", "target": {"kind": "anchor",
                                                       "resource_id": "pay"}}])
        for res in ("checkout", "cart"):
            found = screen.find(res=res)
            if found is not None:
                return _bundle([{"type": "tap", "target": {"kind": "element",
                                                           "id": found.id}}])
        return _bundle([{"type": "wait", "seconds": 0.5}])


def _bundle(actions: list[dict[str, Any]] | None, **flags: Any) -> str:
    return json.dumps({"thought": "paying", "last_action_result": "success",
                       "execute_now": {"intent": "pay", "actions": actions} if actions
                       else None, **flags})


def pay_run(runs: Path, *, locale: str | None = None, gate: bool = True
            ) -> tuple[Any, int, int, Path]:
    """One ``run`` of "Pay for the order in Shop" with ``--allow payment`` through the cache
    hook, on a fresh phone whose cart holds one MacBook Air 13: (result, orders on the
    phone, requests the model double received, run folder)."""
    with vphone_on_adb(0) as (phone, serial), ExitStack() as stack:
        shop = phone.apps[SHOP]
        shop.promo_mode, shop.cart = "never", {"p05": 1}
        if locale is not None:
            phone.set_locale(locale)
        double = stack.enter_context(ModelDouble(PayInShop()))
        settings = with_overrides(sim_settings(double.base_url, runs, 20),
                                  {"allow": "payment", "gate": gate})
        driver = AdbDriver(serial)
        stack.callback(driver.close)
        run_dir = new_run_dir(runs, "run")
        orchestrator = open_agent(stack, driver, settings, PAY_GOAL, run_dir=run_dir)
        result = run_cached(orchestrator.run, orchestrator.ports, PAY_GOAL,
                            runs_dir=orchestrator.settings.runs_dir)
        return result, len(shop.orders), len(double.requests), run_dir


def test_a_cached_payment_whose_check_fails_on_replay_pays_once_and_stops(tmp_path: Path
                                                                          ) -> None:
    result, orders, requests, _ = pay_run(tmp_path)
    assert (result.status, orders) == ("done", 1) and requests >= 2
    cache = ReplayCache(tmp_path / CACHE_DIR)
    entry = cache.store.get(cache.key(PAY_GOAL))
    assert entry is not None
    checks = [c.selector for c in entry.flow.commands if c.name == "assertVisible"]
    assert checks and all(s is not None and s.id != "pay" for s in checks)  # not the button
    result, orders, requests, _ = pay_run(tmp_path)  # the proof holds: a replay, no model
    assert (result.status, orders, requests) == ("done", 1, 0)
    # with the gate off, nothing let the payment through: the replay pays (as a live run
    # with the gate off would), but it is not `done` — honest done holds for a replay too
    result, orders, requests, _ = pay_run(tmp_path, gate=False)
    assert (result.status, orders, requests) == ("unverified", 1, 0), result
    assert "no payment in this run was approved" in result.stopped_because
    # the same task on a phone in Chinese: the taps find their ids, Pay goes through, but
    # the order page's title reads 下单成功 — the proof the flow expects is not there
    result, orders, requests, run_dir = pay_run(tmp_path, locale="zh-CN")
    assert orders == 1  # paid once, never twice
    assert result.status == "failed" and result.stopped_because.startswith("paid once")
    assert "check the phone" in result.stopped_because
    assert requests == 0  # the model was never asked to take over (and pay again)
    kinds = [e.kind for e in load_trace(run_dir).events]
    assert "cache_stopped_once" in kinds and "flow_irreversible" in kinds
    assert cache.store.get(cache.key(PAY_GOAL)) is None  # retired: not replayed again
    # the proof that failed: the English order page's words, which the checkout never showed
    assert any("Order placed" in (s.text or "") for s in checks if s is not None)


def test_a_paying_run_is_cached_with_the_order_page_its_trace_ends_on(tmp_path: Path) -> None:
    # a unified run no longer ends on checks written for an earlier turn (auto-verify waits
    # for the operator's claim), so the trace holds the order page after the pay: the flow
    # is cached with that proof. A trace whose pay has no screen after it is refused:
    # tests/unit/flows/test_fromtrace_proof.py
    task = BuyProduct(product="MacBook Air 13", popup="never")
    with vphone_on_adb(0) as (phone, serial), ExitStack() as stack:
        task.setup(phone)
        double = stack.enter_context(ModelDouble(ExpertPolicy(task, phone,
                                                              NoiseProfile.named("none"))))
        settings = with_overrides(sim_settings(double.base_url, tmp_path, 30),
                                  {"allow": "payment"})
        driver = AdbDriver(serial)
        stack.callback(driver.close)
        run_dir = new_run_dir(tmp_path, "run")
        orchestrator = open_agent(stack, driver, settings, task.goal, run_dir=run_dir,
                                  ask_user=task.answer_user)
        result = run_cached(orchestrator.run, orchestrator.ports, task.goal,
                            runs_dir=orchestrator.settings.runs_dir)
        assert result.status == "done" and len(phone.apps[SHOP].orders) == 1
    [entry] = ReplayCache(tmp_path / CACHE_DIR).store.entries()
    assert entry["key"].startswith("buy-one-macbook-air-13")
    assert not [e for e in load_trace(run_dir).events if e.kind == "cache_not_saved"]
