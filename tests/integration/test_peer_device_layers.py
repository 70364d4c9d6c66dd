"""The Python peers' own device layers run unchanged on a vphone (issue 29).

Each test runs one ``scripts/peers/*_check.py`` as a user would: the script installs the peer
into its own venv under /tmp/omg-peers on first use (never into the project's), starts a fresh
vphone and reads every call's outcome from the device. A call may end "real phone only" only
with the reason the script names; any FAILED call fails the test. Installs measured into a
fresh venv without pip's cache (issue 29): mobilerun's device layer (its dependency
mobilerun-core-local, the driver under test) 7 s, the whole agent 135 s; minitap's controller
18 s; Open-AutoGLM's requirements ~20 s; Midscene (npm) stays a documented script. Open-AutoGLM is
not on PyPI: its test needs a checkout (OMG_AUTOGLM_SRC, default /tmp/omg-peers/autoglm/src)
and is skipped without one.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PEERS = ROOT / "scripts" / "peers"
SUMMARY = re.compile(r"(\d+)/(\d+) ok, (\d+) real phone only, (\d+) failed")
AUTOGLM_SRC = Path(os.environ.get("OMG_AUTOGLM_SRC", "/tmp/omg-peers/autoglm/src"))


def run_check(script: str, *args: str) -> tuple[str, tuple[int, int, int, int]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, str(PEERS / script), *args], capture_output=True,
                          text=True, timeout=900, env=env, stdin=subprocess.DEVNULL)
    found = SUMMARY.search(proc.stdout)
    assert found, proc.stdout[-3000:] + proc.stderr[-3000:]
    ok, total, phone_only, failed = map(int, found.groups())
    assert proc.returncode == 0 and failed == 0, proc.stdout
    return proc.stdout, (ok, total, phone_only, failed)


@pytest.mark.slow
def test_mobileruns_adb_only_driver_works_on_a_vphone() -> None:
    out, (ok, total, phone_only, _) = run_check("mobilerun_check.py")
    assert (ok, total, phone_only) == (11, 12, 1)
    assert re.search(r"real phone only +input_text Chinese .*Portal keyboard APK", out)


@pytest.mark.slow
def test_minitaps_android_controller_works_on_a_vphone() -> None:
    out, (ok, total, phone_only, _) = run_check("minitap_check.py")
    assert (ok, total, phone_only) == (13, 14, 1)
    # the one call a vphone cannot serve needs an APK installed, and says so
    assert re.search(r"real phone only +input_text .*uiautomator2's keyboard APK", out)


@pytest.mark.slow
@pytest.mark.skipif(not (AUTOGLM_SRC / "phone_agent" / "adb").is_dir(),
                    reason=f"no Open-AutoGLM checkout at {AUTOGLM_SRC} (it is not on PyPI)")
def test_open_autoglms_adb_layer_works_on_a_vphone() -> None:
    _, (ok, total, phone_only, _) = run_check("autoglm_check.py", "--src", str(AUTOGLM_SRC))
    assert (ok, total, phone_only) == (16, 16, 0)
