"""``omg-agent swipe|long-press|screenshot|dump|key`` against a vphone, as a user runs them,
and ``run --model sim --json`` saying that its model was simulated."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from PIL import Image, ImageChops


def omg(*args: str, tmp_path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "omg_agent.cli", *args], capture_output=True,
                          text=True, timeout=120, env=env, stdin=subprocess.DEVNULL,
                          cwd=tmp_path)


def texts(xml: str) -> list[str]:
    return [t for t in re.findall(r' text="([^"]*)"', xml) if t]


def test_dump_prints_the_hierarchy_and_screenshot_saves_the_screen(vphone, tmp_path) -> None:
    s = vphone.serial
    dumped = omg("dump", "-s", s, "--driver", "adb", tmp_path=tmp_path)
    assert dumped.returncode == 0, dumped.stderr
    assert dumped.stdout.startswith("<?xml") and "<hierarchy" in dumped.stdout
    assert {"Settings", "Notes"} <= set(texts(dumped.stdout))
    saved = omg("dump", "-o", "w.xml", "-s", s, tmp_path=tmp_path)
    assert saved.returncode == 0 and "saved to w.xml" in saved.stdout
    assert "Notes" in texts((tmp_path / "w.xml").read_text(encoding="utf-8"))
    assert omg("launch", "Settings", "-s", s, tmp_path=tmp_path).returncode == 0
    shot = omg("screenshot", "settings.png", "-s", s, tmp_path=tmp_path)
    assert shot.returncode == 0, shot.stderr
    with Image.open(tmp_path / "settings.png") as image:
        assert image.format == "PNG" and image.size == (1080, 2400)
        below_status_bar = (0, 150, 1080, 2400)  # the status bar's clock may tick meanwhile
        ours = image.convert("RGB").crop(below_status_bar)
        phone = vphone.phone.screenshot().convert("RGB").crop(below_status_bar)
        assert ImageChops.difference(ours, phone).getbbox() is None


def test_swipe_scrolls_and_swipes_back(vphone, tmp_path) -> None:
    s = vphone.serial
    assert omg("launch", "Feed", "-s", s, tmp_path=tmp_path).returncode == 0
    before = texts(omg("dump", "-s", s, tmp_path=tmp_path).stdout)
    up = omg("swipe", "up", "--distance", "600", "-s", s, "--driver", "adb", tmp_path=tmp_path)
    assert up.returncode == 0 and "moved 600 units up" in up.stdout, up.stdout + up.stderr
    after = texts(omg("dump", "-s", s, tmp_path=tmp_path).stdout)
    assert after != before and "Post 1" not in " ".join(after)  # the list moved
    back = omg("swipe", "--from", "500,300", "--to", "500,900", "-s", s, "--driver", "adb",
               tmp_path=tmp_path)
    assert back.returncode == 0, back.stdout + back.stderr
    assert texts(omg("dump", "-s", s, tmp_path=tmp_path).stdout) == before


def test_long_press_and_key_act_without_waiting(vphone, tmp_path) -> None:
    s = vphone.serial
    assert omg("launch", "Notes", "-s", s, tmp_path=tmp_path).returncode == 0
    assert omg("tap", "--desc", "New note", "-s", s, tmp_path=tmp_path).returncode == 0
    assert vphone.phone.focused_view().resource_id.endswith("title_input")
    held = omg("long-press", "--resource-id", "body_input", "--duration", "900", "-s", s,
               "--driver", "adb", tmp_path=tmp_path)
    assert held.returncode == 0, held.stdout + held.stderr
    assert vphone.phone.focused_view().resource_id.endswith("body_input")
    assert omg("key", "back", "-s", s, "--driver", "adb", tmp_path=tmp_path).returncode == 0
    assert omg("key", "KEYCODE_HOME", "-s", s, "--wait", tmp_path=tmp_path).returncode == 0
    assert vphone.phone.focus()[0] == "com.android.launcher3"


def test_run_model_sim_json_says_the_model_was_simulated(tmp_path) -> None:
    proc = omg("run", "--model", "sim", "Turn off Wi-Fi", "--json", "--runs-dir",
               str(tmp_path / "runs"), tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["status"] == "done" and out["simulated"] is True
