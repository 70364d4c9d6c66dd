"""The everyday CLI without a phone: light imports, --version / -h, one-line errors for bad
input, unknown OMG_* variables, ``memory``, ``bench suite --list`` and a busy ``--out``.

Each error test checks the whole of stderr: one line, naming the bad value and what is
accepted, with no traceback and no pydantic link.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from omg_agent.brain.memory import MemoryBank
from omg_agent.config import Settings, unknown_env

HEAVY = ("openai", "cv2", "rapidocr_onnxruntime", "onnxruntime")


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """This environment without model settings, with its own config and runtime folders."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMG_", "OPENAI_"))}
    env.update(XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_RUNTIME_DIR=str(tmp_path / "rt"),
               COLUMNS="200")
    (tmp_path / "rt").mkdir(exist_ok=True)
    env.update(extra)
    return env


def omg(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "omg_agent.cli", *args], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path, env=_env(tmp_path, **env),
                          stdin=subprocess.DEVNULL)


def one_line_error(proc: subprocess.CompletedProcess[str], *says: str) -> str:
    assert proc.returncode != 0, proc.stdout
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    line = lines[0]
    assert line.startswith("error: ")
    assert "Traceback" not in proc.stderr and "pydantic" not in proc.stderr
    assert "http" not in line
    for text in says:
        assert text in line, line
    return line


# -- fast start ----------------------------------------------------------------------------
@pytest.mark.parametrize("code", [
    "import omg_agent.cli",
    "from omg_agent.cli import app\ntry:\n    app(['--help'])\nexcept SystemExit:\n    pass",
])
def test_the_cli_and_its_help_import_no_model_sdk_or_ocr(tmp_path, code) -> None:
    probe = code + f"\nimport sys\nprint(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120, env=_env(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[]"


def test_version_and_short_help(tmp_path) -> None:
    shown = omg(tmp_path, "--version")
    assert shown.returncode == 0 and shown.stdout.strip() == f"omg-agent {version('omg-agent')}"
    short = omg(tmp_path, "-h")
    assert short.returncode == 0 and "swipe" in short.stdout and "memory" in short.stdout
    sub = omg(tmp_path, "key", "-h")
    assert sub.returncode == 0 and "keycode" in sub.stdout


# -- bad input: one line each ----------------------------------------------------------------
@pytest.mark.parametrize(("args", "says"), [
    (("key", "notakey"), ["'notakey'", "use a keycode or one of", "back"]),
    (("key", "999"), ["keycode 999", "1–399"]),
    (("tap", "--point", "2000,5"), ["--point 2000,5", "0–1000"]),
    (("tap", "--point", "five"), ["'five'", "x,y in 0–1000"]),
    (("long-press", "--point", "5,-3"), ["--point 5,-3", "0–1000"]),
    (("swipe", "sideways"), ["'sideways'", "up, down, left or right"]),
    (("swipe", "--from", "1,1"), ["--from x,y and --to x,y"]),
    (("swipe", "--from", "1,1", "--to", "3000,1"), ["--to 3000,1", "0–1000"]),
    (("screenshot", "shot.jpg"), ["shot.jpg", "PNG"]),
    (("run", "   "), ["the task is empty"]),
    (("run", ""), ["the task is empty"]),
    (("vphone", "start", "--port", "99999"), ["--port 99999", "1–65535"]),
    (("vphone", "start", "--port", "0"), ["--port 0", "1–65535"]),
    (("memory", "clear", "--db", "x.sqlite"), ["exactly one of --run RUN_ID, --long, --all"]),
])
def test_bad_input_is_one_line_naming_value_and_form(tmp_path, args, says) -> None:
    one_line_error(omg(tmp_path, *args), *says)


def test_a_binary_plan_file_is_named_before_any_device(tmp_path) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_bytes(bytes(range(256)) * 4)
    proc = omg(tmp_path, "run", "open Notes", "--plan", str(plan), "-s", "nope:1",
               OMG_MODEL="m", OMG_BASE_URL="http://127.0.0.1:9/v1")
    one_line_error(proc, str(plan), "not UTF-8 text", "YAML")


def test_vphone_start_on_a_busy_port_says_so_and_starts_nothing(tmp_path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = omg(tmp_path, "vphone", "start", "--port", str(port))
    one_line_error(proc, f"port {port} is in use", "--port")
    assert not list((tmp_path / "rt").rglob("*.json"))  # no vphone record was written


def test_a_model_without_key_names_the_missing_key_for_openai(tmp_path) -> None:
    proc = omg(tmp_path, "run", "open Notes", OMG_MODEL="gpt-4o")
    assert proc.returncode == 1
    assert "No API key for OpenAI's API" in proc.stderr and "gpt-4o" in proc.stderr
    assert "OMG_API_KEY" in proc.stderr and "No model is configured" not in proc.stderr
    help_text = Settings(model="gpt-4o").missing_model_help()
    assert "OMG_MODEL=" not in help_text  # the model is set: only the key is asked for
    assert Settings().missing_model_help().startswith("No model is configured")


def test_unknown_omg_variables_are_named_with_the_closest_known_one(tmp_path) -> None:
    lines = unknown_env({"OMG_MODLE": "x", "OMG_MAX_STEP": "3", "OMG_MODEL": "m",
                         "OMG_SECRET_PW": "s", "OMG_CONFIG": "c.toml", "OMG_ZZZZZZ": "1",
                         "HOME": "/"})
    assert lines == [
        "OMG_MAX_STEP is not a setting OMG-Agent reads (did you mean OMG_MAX_STEPS?)",
        "OMG_MODLE is not a setting OMG-Agent reads (did you mean OMG_MODEL?)",
        "OMG_ZZZZZZ is not a setting OMG-Agent reads (see `omg-agent config show`)",
    ]
    proc = omg(tmp_path, "config", "show", "--json", OMG_BASE_UR="http://h/v1")
    assert proc.returncode == 0
    assert "OMG_BASE_UR is not a setting" in proc.stderr and "OMG_BASE_URL?" in proc.stderr
    assert json.loads(proc.stdout)["base_url"]["value"] is None


# -- memory ---------------------------------------------------------------------------------
def test_memory_lists_shows_and_clears_what_runs_saved(tmp_path) -> None:
    db = tmp_path / "runs" / "memory.sqlite"
    with MemoryBank(db, "run-a") as a, MemoryBank(db, "run-b", long_term=True) as b:
        a.save("price", "¥3,599", app="com.omg.shop", step=4, source="screen")
        b.save("price", "¥12", app="com.omg.shop")
        b.save("city", "Berlin", scope="long")
    listed = omg(tmp_path, "memory", "list", "--json")  # default: <runs_dir>/memory.sqlite
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)
    assert [(r["key"], r["value"], r["run"], r["scope"]) for r in rows] == [
        ("price", "¥3,599", "run-a", "run"), ("price", "¥12", "run-b", "run"),
        ("city", "Berlin", "run-b", "long")]
    assert rows[0]["source"] == "screen" and rows[0]["step"] == 4
    table = omg(tmp_path, "memory", "list", "--run", "run-a")
    assert "¥3,599" in table.stdout and "Berlin" not in table.stdout
    shown = omg(tmp_path, "memory", "show", "price")
    assert "price = ¥3,599" in shown.stdout and "price = ¥12" in shown.stdout
    one_line_error(omg(tmp_path, "memory", "show", "nope"), "'nope'", "memory list")
    gone = omg(tmp_path, "memory", "clear", "--run", "run-a")
    assert gone.returncode == 0 and "deleted 1 value of run run-a" in gone.stdout
    gone = omg(tmp_path, "memory", "clear", "--long")
    assert "deleted 1 value of the long-term scope" in gone.stdout
    left = json.loads(omg(tmp_path, "memory", "list", "--json").stdout)
    assert [(r["key"], r["run"]) for r in left] == [("price", "run-b")]
    assert "deleted 1 value of every run" in omg(tmp_path, "memory", "clear", "--all").stdout
    assert "no saved values" in omg(tmp_path, "memory", "list").stdout


def test_memory_without_a_file_says_where_it_looked_and_creates_nothing(tmp_path) -> None:
    one_line_error(omg(tmp_path, "memory", "list"), "no memory file at runs/memory.sqlite")
    assert not (tmp_path / "runs").exists()


# -- bench suite ------------------------------------------------------------------------------
def test_suite_list_prints_task_ids_with_tags_and_runs_nothing(tmp_path) -> None:
    from omg_agent.bench.suite import suite_tasks

    proc = omg(tmp_path, "bench", "suite", "--list")
    assert proc.returncode == 0, proc.stderr
    tasks = suite_tasks(seed=0)
    for task in tasks:
        line = next(x for x in proc.stdout.splitlines() if x.split()[0] == task.id)
        assert f"[{', '.join(task.tags)}]" in line
    assert f"{len(tasks)} tasks; tags:" in proc.stdout
    zh = json.loads(omg(tmp_path, "bench", "suite", "--list", "--tasks", "zh", "--json").stdout)
    assert zh and all("zh" in t["tags"] for t in zh)
    assert {t["id"] for t in zh} == {t.id for t in tasks if "zh" in t.tags}
    assert not (tmp_path / "runs").exists()


def test_suite_refuses_a_non_empty_out_folder_up_front(tmp_path) -> None:
    out = tmp_path / "suite"
    out.mkdir()
    (out / "scorecard.json").write_text("{}")
    proc = omg(tmp_path, "bench", "suite", "--model", "sim", "--out", str(out))
    one_line_error(proc, f"--out {out} already exists", "new folder")
    assert [p.name for p in out.iterdir()] == ["scorecard.json"]


# -- one-shot inputs do not wait --------------------------------------------------------------
def test_a_zero_settle_timeout_captures_nothing_and_a_positive_one_does() -> None:
    from PIL import Image

    from omg_agent.drivers.settle import wait_settled
    from omg_agent.perception.screenhash import ScreenHash

    shots: list[int] = []

    def shoot() -> Image.Image:
        shots.append(1)
        return Image.new("RGB", (108, 240), "white")

    assert wait_settled(shoot, ScreenHash(), timeout=0.0, window=0.05) is False
    assert shots == []
    assert wait_settled(shoot, ScreenHash(), timeout=5.0, window=0.05) is True
    assert len(shots) >= 2  # settled means at least two equal frames
