"""``omg-agent devices|observe|tap|type|key|launch`` against a vphone, as a user runs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from PIL import Image


def omg(*args: str, tmp_path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "omg_agent.cli", *args], capture_output=True,
                          text=True, timeout=120, env=env, stdin=subprocess.DEVNULL)


def test_devices_lists_the_vphone_with_size_and_drivers(vphone, tmp_path):
    result = omg("devices", "--json", tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    row = next(r for r in json.loads(result.stdout) if r["serial"] == vphone.serial)
    assert row["state"] == "device" and row["size"] == "1080x2400"
    assert "adb" in row["drivers"]


def test_observe_prints_elements_and_saves_set_of_marks(vphone, tmp_path):
    som = tmp_path / "som.png"
    result = omg("observe", "-s", vphone.serial, "--driver", "adb", "--json", "--som", str(som),
                 tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["package"] == "com.android.launcher3"
    assert {"Settings", "Notes"} <= {e["text"] for e in data["elements"]}
    with Image.open(som) as image:
        assert image.size[1] > 0


def test_launch_tap_type_key_change_the_phone(vphone, tmp_path):
    s = vphone.serial
    assert omg("launch", "Notes", "-s", s, tmp_path=tmp_path).returncode == 0
    assert vphone.phone.focus()[0] == "com.omg.notes"
    tapped = omg("tap", "--desc", "New note", "-s", s, "--driver", "adb", tmp_path=tmp_path)
    assert tapped.returncode == 0, tapped.stdout
    typed = omg("type", "价格 ¥3,599 😀 a;b", "-s", s, "--driver", "adb", tmp_path=tmp_path)
    assert typed.returncode == 0, typed.stdout
    assert vphone.phone.state()["apps"]["com.omg.notes"]["draft"]["title"] == "价格 ¥3,599 😀 a;b"
    assert omg("key", "back", "-s", s, "--driver", "adb", tmp_path=tmp_path).returncode == 0
    assert omg("key", "back", "-s", s, "--driver", "adb", tmp_path=tmp_path).returncode == 0
    assert vphone.phone.focus()[0] == "com.omg.notes"
    assert vphone.phone.state()["apps"]["com.omg.notes"]["screen"] == "main"
    vphone.phone.set_locale("zh-CN")
    assert omg("key", "home", "-s", s, tmp_path=tmp_path).returncode == 0
    zh = omg("tap", "--text", "设置", "-s", s, "--driver", "adb", tmp_path=tmp_path)
    assert zh.returncode == 0, zh.stdout
    assert vphone.phone.focus()[0] == "com.android.settings"


def test_bad_input_is_named(vphone, tmp_path):
    both = omg("tap", "--text", "A", "--id", "3", "-s", vphone.serial, tmp_path=tmp_path)
    assert both.returncode == 1 and "exactly one of" in both.stderr
    point = omg("tap", "--point", "five", "-s", vphone.serial, tmp_path=tmp_path)
    assert point.returncode == 1 and "--point must be x,y" in point.stderr
    missing = omg("observe", "-s", "nope:1", tmp_path=tmp_path)
    assert missing.returncode == 1 and "'nope:1' is not attached" in missing.stderr
    nothing = omg("tap", "--text", "No such label", "-s", vphone.serial, "--driver", "adb",
                  tmp_path=tmp_path)
    assert nothing.returncode == 1 and "nothing on screen matches" in nothing.stdout
