"""One-shot commands stay light: ``omg-agent key`` presses the key through adb without
loading the model SDK, OCR, numpy, the action models or the drivers — checked on the
modules of the process that ran it, not on a clock."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from adbtools import poll

import omg_agent

SOURCE = str(Path(omg_agent.__file__).resolve().parents[1])  # this tree, whatever the cwd

# Loaded by a run, an observation or OCR; a key press needs none of them.
NOT_FOR_A_KEY = ("openai", "cv2", "rapidocr_onnxruntime", "onnxruntime", "numpy",
                 "uiautomator2", "yaml", "omg_agent.core.actions", "omg_agent.drivers.adb",
                 "omg_agent.drivers.executor", "omg_agent.config",
                 # rich: the consoles are made on first print, and a key prints one plain line
                 "rich",
                 # nor the other command groups: the script builds the device commands alone
                 "omg_agent.cli.bench", "omg_agent.cli.run", "omg_agent.cli.vphone")

PROBE = """
import sys
from omg_agent.cli import main
sys.argv = ["omg-agent", *{args!r}]
try:
    main()  # what the omg-agent script runs
except SystemExit as exc:
    print("EXIT", exc.code)
print("LOADED", sorted(m for m in {names!r} if m in sys.modules))
print("REQUESTS", type(sys.modules.get("requests")).__name__)
"""


def run_cli_in_process(tmp_path, *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI in a fresh interpreter that reports, after the command, what it imported."""
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "COLUMNS": "200",
           "PYTHONPATH": os.pathsep.join([SOURCE, *filter(None, [os.environ.get("PYTHONPATH")])])}
    code = PROBE.format(args=list(args), names=NOT_FOR_A_KEY)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env=env, cwd=tmp_path, stdin=subprocess.DEVNULL)


def test_key_presses_back_without_loading_the_heavy_modules(vphone, tmp_path) -> None:
    vphone.phone.start_activity("com.omg.notes")
    assert vphone.phone.focus()[0] == "com.omg.notes"
    proc = run_cli_in_process(tmp_path, "key", "back", "-s", vphone.serial)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "ok key (keycode 4)" in lines and "EXIT 0" in lines, proc.stdout + proc.stderr
    assert "LOADED []" in lines, proc.stdout
    assert "REQUESTS Deferred" in lines  # adbutils' `import requests` never ran it
    assert poll(lambda: vphone.phone.focus()[0] == "com.android.launcher3")


def test_key_names_a_bad_key_or_driver_in_one_line(vphone, tmp_path) -> None:
    bad = run_cli_in_process(tmp_path, "key", "blorp", "-s", vphone.serial)
    assert "EXIT 1" in bad.stdout.splitlines()
    assert "unknown key 'blorp'; use a keycode or one of: home, back" in bad.stderr
    driver = run_cli_in_process(tmp_path, "key", "back", "--driver", "fast",
                                "-s", vphone.serial)
    assert "unknown driver 'fast': choose adb, u2 or auto" in driver.stderr
    gone = run_cli_in_process(tmp_path, "key", "back", "-s", "127.0.0.1:1")
    assert "device '127.0.0.1:1' is not attached" in gone.stderr
    assert all("Traceback" not in p.stderr for p in (bad, driver, gone))


def test_key_with_wait_goes_through_the_driver_and_settles(vphone, tmp_path) -> None:
    vphone.phone.start_activity("com.omg.notes")
    proc = run_cli_in_process(tmp_path, "key", "home", "--wait", "-s", vphone.serial)
    lines = proc.stdout.splitlines()
    assert "ok key (keycode 3)" in lines and "EXIT 0" in lines, proc.stdout + proc.stderr
    assert "omg_agent.drivers.adb" in lines[-2]  # the driver ran it (and waited for the screen)
    assert vphone.phone.focus()[0] == "com.android.launcher3"
