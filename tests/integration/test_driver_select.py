"""Choosing a driver for a vphone: explicit choices, and ``auto`` measuring both drivers
once and remembering the faster one in the device's probed profile."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from omg_agent.drivers.adb import AdbDriver
from omg_agent.drivers.select import choose_driver
from omg_agent.drivers.u2 import U2Driver


@pytest.mark.parametrize(("prefer", "kind"), [("adb", AdbDriver), ("u2", U2Driver)])
def test_an_explicit_choice_gives_that_driver_wired_with_the_profile(
        vphone, tmp_path: Path, prefer: str, kind: type) -> None:
    driver = choose_driver(vphone.serial, prefer, profile_dir=tmp_path)
    try:
        assert isinstance(driver, kind)
        assert driver.info().status_bar_px == vphone.phone.profile.status_bar_height
        driver.launch("备忘录")
        assert vphone.phone.focus()[0] == "com.omg.notes"
    finally:
        driver.close()
    assert not list(tmp_path.iterdir())  # only auto probes and records


def test_auto_measures_once_and_remembers_the_faster_driver(vphone, tmp_path: Path) -> None:
    driver = choose_driver(vphone.serial, "auto", profile_dir=tmp_path)
    try:
        first = type(driver)
    finally:
        driver.close()
    (saved,) = tmp_path.glob("*.yaml")
    record = yaml.safe_load(saved.read_text(encoding="utf-8"))["driver"]
    assert record["adb_observe_ms"] > 0 and record["u2_observe_ms"] > 0
    faster = "u2" if record["u2_observe_ms"] < record["adb_observe_ms"] else "adb"
    assert record["preferred"] == faster
    assert first is {"u2": U2Driver, "adb": AdbDriver}[faster]

    again = choose_driver(vphone.serial, "auto", profile_dir=tmp_path)
    try:
        assert type(again) is first
    finally:
        again.close()
    assert yaml.safe_load(saved.read_text(encoding="utf-8"))["driver"] == record
