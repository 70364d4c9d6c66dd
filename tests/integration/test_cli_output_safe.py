"""Output that cannot fail the run (issue 25): a finished task exits 0 whatever the terminal
can show or whoever stops reading. The run is a real CLI process on a vphone behind the real
adb server, the expert double over HTTP; the locale is generated for the test by
``localedef`` (as a user's system has it), the task given as that locale's bytes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from omg_agent.bench.durability import cli_env


@pytest.fixture(scope="module")
def gbk_locale(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of a Chinese GBK terminal (LC_ALL=zh_CN.GBK), the locale compiled
    into a temp folder (LOCPATH)."""
    localedef = shutil.which("localedef")
    if localedef is None:
        pytest.skip("localedef is not installed")
    folder = tmp_path_factory.mktemp("locales")
    made = subprocess.run([localedef, "-i", "zh_CN", "-f", "GBK", str(folder / "zh_CN.GBK")],
                          capture_output=True, text=True, check=False)
    if not (folder / "zh_CN.GBK").is_dir():
        pytest.fail(f"localedef could not build zh_CN.GBK: {made.stderr[-300:]}")
    return {"LOCPATH": str(folder), "LC_ALL": "zh_CN.GBK", "LANG": "zh_CN.GBK"}


def _bluetooth_run(vphone, tmp_path: Path, env_extra: dict[str, str],
                   *flags: str) -> subprocess.CompletedProcess[bytes]:
    from omg_agent.bench.suite.settings_tasks import SwitchTask
    from omg_agent.sim.expert.policy import ExpertPolicy, NoiseProfile
    from omg_agent.sim.model_double import ModelDouble

    task = SwitchTask(attr="bluetooth", on=True, zh=True)
    assert task.goal == "打开蓝牙"
    task.setup(vphone.phone)
    with ModelDouble(ExpertPolicy(task, vphone.phone, NoiseProfile.named("none"))) as double:
        env = {**cli_env(double.base_url), **env_extra}
        env.pop("PYTHONIOENCODING", None)
        env.pop("PYTHONUTF8", None)
        argv = [sys.executable, "-m", "omg_agent.cli", "run", task.goal.encode("gbk"),
                "--device", vphone.serial, "--driver", "adb", "--no-cache", "--runs-dir",
                str(tmp_path / "runs"), *flags]
        out = subprocess.run(argv, env=env, cwd=tmp_path, stdin=subprocess.DEVNULL,
                             capture_output=True, timeout=240, check=False)
    assert task.check(vphone.phone), out.stderr.decode("gbk", "replace")[-800:]
    return out


def test_a_finished_task_exits_0_on_a_gbk_terminal_with_readable_output(
        vphone, tmp_path: Path, gbk_locale: dict[str, str]) -> None:
    out = _bluetooth_run(vphone, tmp_path, gbk_locale)
    err = out.stderr.decode("gbk")  # everything printed is GBK: decodes without a slip
    assert out.returncode == 0, err[-800:]
    text = out.stdout.decode("gbk")
    assert "done" in text and "打开蓝牙" in text, text
    assert "Traceback" not in err and "UnicodeEncodeError" not in err


def test_json_stays_valid_on_a_gbk_terminal(vphone, tmp_path: Path,
                                            gbk_locale: dict[str, str]) -> None:
    out = _bluetooth_run(vphone, tmp_path, gbk_locale, "--json")
    assert out.returncode == 0, out.stderr.decode("gbk", "replace")[-800:]
    result = json.loads(out.stdout)  # bytes: valid whatever the terminal's encoding
    assert result["status"] == "done" and result["run_dir"].endswith("打开蓝牙")


def test_a_reader_that_stops_reading_does_not_change_the_exit_code(vphone,
                                                                    tmp_path: Path) -> None:
    from omg_agent.bench.suite.settings_tasks import SwitchTask
    from omg_agent.sim.expert.policy import ExpertPolicy, NoiseProfile
    from omg_agent.sim.model_double import ModelDouble

    task = SwitchTask(attr="bluetooth", on=True)
    task.setup(vphone.phone)
    with ModelDouble(ExpertPolicy(task, vphone.phone, NoiseProfile.named("none"))) as double:
        read, write = os.pipe()
        os.close(read)  # nobody reads: every print hits a broken pipe
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "omg_agent.cli", "run", task.goal, "--device",
                 vphone.serial, "--driver", "adb", "--no-cache", "--runs-dir",
                 str(tmp_path / "runs")], env=cli_env(double.base_url), cwd=tmp_path,
                stdin=subprocess.DEVNULL, stdout=write, stderr=subprocess.PIPE, timeout=240,
                check=False)
        finally:
            os.close(write)
    assert task.check(vphone.phone)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-800:]
