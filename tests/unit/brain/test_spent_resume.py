"""The run's total of payments survives a resume: ``state.json`` keeps the gate's ledger, so
"spend no more than ¥100" still counts what was paid before the run stopped for an answer."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from omg_agent.brain.budget import StepBudget
from omg_agent.brain.memory import MemoryBank
from omg_agent.brain.resume import STATE_FILE, load_state, save_state
from omg_agent.brain.run_state import RunState
from omg_agent.errors import ConfigError
from omg_agent.guards.amounts import Money
from omg_agent.guards.spend_ledger import SpendLedger


def _save(tmp_path: Path, ledger: SpendLedger) -> None:
    with MemoryBank(None, "run1") as memory:
        save_state(tmp_path, RunState("Buy cables in Shop; spend no more than ¥100",
                                      StepBudget(12), phase="NEEDS_CONFIRMATION",
                                      spent=ledger), memory, device="emulator-5554")


def test_what_the_run_paid_is_saved_and_loaded_back(tmp_path: Path) -> None:
    paid = SpendLedger([Money(Decimal("59.00"), "CNY"), None])
    _save(tmp_path, paid)
    assert json.loads((tmp_path / STATE_FILE).read_text())["spent"] == [["59.00", "CNY"], None]
    assert load_state(tmp_path).state.spent == paid


def test_a_file_from_before_the_ledger_loads_with_nothing_paid(tmp_path: Path) -> None:
    _save(tmp_path, SpendLedger())
    data = json.loads((tmp_path / STATE_FILE).read_text())
    del data["spent"]
    (tmp_path / STATE_FILE).write_text(json.dumps(data))
    assert load_state(tmp_path).state.spent == SpendLedger()


def test_a_ledger_of_the_wrong_shape_is_one_line(tmp_path: Path) -> None:
    _save(tmp_path, SpendLedger())
    data = json.loads((tmp_path / STATE_FILE).read_text())
    data["spent"] = [["lots", "CNY"]]
    (tmp_path / STATE_FILE).write_text(json.dumps(data))
    with pytest.raises(ConfigError, match="spent") as err:
        load_state(tmp_path)
    assert "\n" not in str(err.value)
