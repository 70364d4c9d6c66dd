"""A payment held with nobody to ask, answered later from the command line: ``--answer no``
ends the run ``declined`` (exit 6) with no order; ``--answer yes`` places exactly one order,
with no model request between the resume and the pay.

Two CLI processes per run (no TTY: the first stops at the gate, exit 5); the model double
answers over real HTTP and notes, for each request, how many orders the vphone's Shop held
when it came in; the phone is a vphone on the real adb server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omg_agent.sim.expert.screen import Screen, el, request_text
from omg_agent.sim.model_double import ModelDouble, contract_name

SHOP = "com.omg.shop"
TASK = "Buy what is in my Shop cart and pay for it"
STEP = {"description": TASK, "success_criteria": "the Shop shows Payment successful",
        "complexity": 4, "checks": [{"kind": "element", "resource_id": "paid_title"}]}
BLANK = {"OMG_API_KEY": "", "OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", "OMG_CONFIG": "",
         "OMG_PLANNER_MODEL": "", "OMG_OPERATOR_MODEL": ""}


@dataclass
class Payer:
    """Goes to the checkout and taps Pay whenever it shows; stops when the user said no.
    ``orders_seen`` has the Shop's order count at each operator request."""

    phone: Any
    orders_seen: list[int] = field(default_factory=list)

    def reply(self, request: dict[str, Any]) -> str:
        name = contract_name(request)
        if name == "TaskPlan":
            return json.dumps({"goal": TASK, "steps": [STEP]})
        if name == "Replan":
            return json.dumps({"status": "replanned", "plan": {"goal": TASK, "steps": [STEP]}})
        self.orders_seen.append(len(self.phone.apps[SHOP].orders))
        text = request_text(request)
        screen = Screen(text)
        if "said no" in text:
            return json.dumps({"thought": "the user refused", "last_action_result": "failed",
                               "user_declined": True, "answer": "you did not want to pay"})
        if screen.find(res="paid_title"):
            return json.dumps({"thought": "paid", "last_action_result": "success",
                               "goal_complete": True, "answer": "paid"})
        for res in ("pay", "checkout", "cart"):
            found = screen.find(res=res)
            if found is not None and f"Foreground app: {SHOP}" in text:
                return act(res, {"type": "tap", "target": el(found)})
        return act("open Shop", {"type": "launch", "app": SHOP})


def act(intent: str, action: dict[str, Any]) -> str:
    return json.dumps({"thought": intent, "last_action_result": "success",
                       "execute_now": {"intent": intent, "actions": [action]}})


def omg(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "omg_agent.cli", *args], env=env, cwd=cwd,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=240, check=False)


def last_json(out: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    return json.loads(out.stdout.strip().splitlines()[-1])


def held_at_checkout(vphone, payer: Payer, double: ModelDouble,
                     tmp_path: Path) -> tuple[Path, list[str], dict[str, str]]:
    shop = vphone.phone.apps[SHOP]
    shop.promo_mode = "never"
    shop.cart = {next(iter(shop.prices)): 1}
    env = {**os.environ, **BLANK, "OMG_MODEL": "double", "OMG_BASE_URL": double.base_url}
    common = ["--device", vphone.serial, "--driver", "adb", "--json"]
    first = omg("run", TASK, *common, "--runs-dir", str(tmp_path / "runs"), "--no-cache",
                env=env, cwd=tmp_path)
    assert first.returncode == 5, first.stderr + first.stdout
    stopped = last_json(first)
    assert stopped["status"] == "needs_confirmation" and "Pay" in stopped["question"]
    assert shop.orders == [] and stopped["done"]  # the way to the checkout, listed
    # the resume command as the user types it: the real folder, not a placeholder
    assert f"omg-agent run --resume {stopped['run_dir']} --answer" in stopped["next_hint"]
    return Path(stopped["run_dir"]), common, env


def test_no_on_resume_ends_declined_exit_6_and_nothing_is_paid(vphone, tmp_path) -> None:
    payer = Payer(vphone.phone)
    with ModelDouble(payer) as double:
        run_dir, common, env = held_at_checkout(vphone, payer, double, tmp_path)
        second = omg("run", "--resume", str(run_dir), "--answer", "no", *common, env=env,
                     cwd=tmp_path)
    assert second.returncode == 6, second.stderr + second.stdout
    result = json.loads((run_dir / "result.json").read_text())
    assert result["status"] == "declined"
    assert vphone.phone.apps[SHOP].orders == []
    printed = last_json(second)
    assert '"no"' in printed["stopped_because"] and "--allow payment" in printed["next_hint"]


def test_yes_on_resume_pays_once_with_no_model_request_before_the_pay(vphone,
                                                                      tmp_path) -> None:
    payer = Payer(vphone.phone)
    with ModelDouble(payer) as double:
        run_dir, common, env = held_at_checkout(vphone, payer, double, tmp_path)
        before = len(payer.orders_seen)
        second = omg("run", "--resume", str(run_dir), "--answer", "yes", *common, env=env,
                     cwd=tmp_path)
    assert second.returncode == 0, second.stderr + second.stdout
    assert len(vphone.phone.apps[SHOP].orders) == 1
    after = payer.orders_seen[before:]
    assert after and all(n == 1 for n in after)  # the first request already saw the order
