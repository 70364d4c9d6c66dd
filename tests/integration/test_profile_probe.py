"""Probing a vphone through the real adb server writes a profile with its real size, density,
bars and IME, which loads back equal."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from omg_agent.drivers.probe import probe_profile
from omg_agent.drivers.profiles import load_profile, resolve_app


@pytest.mark.parametrize("profile", [
    pytest.param("default", marks=pytest.mark.vphone(profile="default")),
    pytest.param("compact", marks=pytest.mark.vphone(profile="compact")),
    pytest.param("legacy", marks=pytest.mark.vphone(profile="legacy")),
])
def test_probe_saves_the_vphones_measured_profile(vphone, tmp_path: Path, profile: str) -> None:
    sim = vphone.phone.profile
    spec = probe_profile(vphone.device, tmp_path)

    saved = yaml.safe_load((tmp_path / f"{spec.name}.yaml").read_text(encoding="utf-8"))
    assert (saved["width"], saved["height"], saved["density"]) == (sim.width, sim.height,
                                                                   sim.density)
    assert (saved["status_bar_height"], saved["nav_bar_height"]) == (sim.status_bar_height,
                                                                      sim.nav_bar_height)
    # Android 11+ lists its inset sources in `dumpsys window`; Android 10 has none
    assert saved["bars_source"] == ("insets" if sim.sdk >= 30 else "hierarchy")
    assert saved["ime"]["adb_keyboard"] is True
    assert "com.android.adbkeyboard/.AdbIME" in saved["ime"]["installed"]
    assert saved["ime"]["default"] == vphone.phone.ime_current
    assert saved["probe"]["input_allowed"] is True
    assert saved["probe"]["sdk"] == sim.sdk
    assert saved["probe"]["screencap_bytes"] >= sim.width * sim.height * 4
    assert saved["probe"]["screencap_ms"] > 0
    assert saved["based_on"] == f"vphone-{profile}"

    assert load_profile(spec.name, [tmp_path]) == spec
    assert resolve_app("备忘录", spec) == "com.omg.notes"


def test_the_probe_leaves_the_phone_as_it_was(vphone, tmp_path: Path) -> None:
    before = (vphone.phone.focus(), vphone.phone.ime_current, vphone.phone.state())
    probe_profile(vphone.device, tmp_path)
    assert (vphone.phone.focus(), vphone.phone.ime_current, vphone.phone.state()) == before


def test_a_resized_screen_is_probed_at_its_override_size(vphone, tmp_path: Path) -> None:
    vphone.device.shell("wm size 720x1600")
    try:
        spec = probe_profile(vphone.device, tmp_path)
    finally:
        vphone.device.shell("wm size reset")
    assert spec.size == (720, 1600)
