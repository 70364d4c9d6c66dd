"""Bad input to ``run`` is one line, never a traceback or a hang (issue 24, item 8): a
``state.json`` that parses but has the wrong shape, a model endpoint answering 200 with
50 MB of non-JSON, a task past the size limit; and a long task is echoed shortened. Each
runs the real CLI in a subprocess; the endpoint is a real HTTP server on 127.0.0.1 and the
phone a vphone through the real adb server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from omg_agent.brain.agent import MAX_TASK_CHARS
from omg_agent.brain.budget import StepBudget
from omg_agent.brain.memory import MemoryBank
from omg_agent.brain.resume import STATE_FILE, save_state
from omg_agent.brain.run_state import RunState

BLANK = {"OMG_API_KEY": "", "OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", "OMG_CONFIG": "",
         "OMG_PLANNER_MODEL": "", "OMG_OPERATOR_MODEL": "", "OMG_MAX_RETRIES": "1",
         "OMG_RETRY_BACKOFF_S": "0.01", "COLUMNS": "100"}
MB = 1024 * 1024


def omg(*args: str, base_url: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **BLANK, "OMG_MODEL": "m", "OMG_BASE_URL": base_url}
    return subprocess.run([sys.executable, "-m", "omg_agent.cli", *args], env=env, cwd=cwd,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=100, check=False)


def _one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    return lines[0]


# -- state.json of the wrong shape --------------------------------------------------------
def _state(run_dir: Path) -> dict[str, Any]:
    with MemoryBank(None, "run1") as memory:
        save_state(run_dir, RunState("Open Settings", StepBudget(12), phase="THINK", turns=1,
                                     usage=(1, 10, 2)), memory, device="emulator-5554")
    return json.loads((run_dir / STATE_FILE).read_text(encoding="utf-8"))


BAD_SHAPES: dict[str, tuple[Callable[[dict[str, Any]], Any], str]] = {
    "a list": (lambda d: [], "holds a JSON list, not an object"),
    "no budget": (lambda d: {k: v for k, v in d.items() if k != "budget"},
                  "budget: Field required"),
    "todo a string": (lambda d: {**d, "todo": "buy milk"},
                      "todo: Input should be a valid list"),
    "a negative limit": (lambda d: {**d, "budget": {**d["budget"], "limit": -3}},
                         "budget.limit: Input should be greater than or equal to 1"),
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("shape", list(BAD_SHAPES))
def test_resume_from_a_state_file_of_the_wrong_shape_is_one_line_naming_the_field(
        tmp_path: Path, shape: str) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    change, said = BAD_SHAPES[shape]
    (run_dir / STATE_FILE).write_text(json.dumps(change(_state(run_dir))), encoding="utf-8")
    done = omg("run", "--resume", str(run_dir), base_url="http://127.0.0.1:9/v1", cwd=tmp_path)
    assert done.returncode == 1
    assert said in _one_error_line(done)


# -- a 50 MB reply ------------------------------------------------------------------------
class _Flood(BaseHTTPRequestHandler):
    """200, then 50 MB of '<' with no length (HTTP/1.0: the body ends when the socket does)."""

    protocol_version = "HTTP/1.0"

    def _answer(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        try:
            for _ in range(50):
                self.wfile.write(b"<" * MB)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading: what the limit is for

    do_GET = do_POST = _answer

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib name
        pass


@pytest.fixture
def flood() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Flood)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.mark.timeout(90)
def test_an_endpoint_answering_50_mb_of_non_json_ends_the_run_with_one_error(
        vphone, tmp_path: Path, flood: str) -> None:
    done = omg("run", "look at the screen", "--device", vphone.serial, "--driver", "adb",
               "--runs-dir", str(tmp_path / "runs"), base_url=flood, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    words = " ".join(done.stdout.split())  # the console wraps long lines
    assert words.count(f"model endpoint {flood} sent a reply over 4 MiB") == 1, done.stdout
    assert "0 model calls" in words  # nothing was counted as a reply


@pytest.mark.timeout(90)
def test_doctor_says_an_endpoint_sending_50_mb_in_its_endpoint_line(tmp_path: Path,
                                                                     flood: str) -> None:
    done = omg("doctor", base_url=flood, cwd=tmp_path)
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    words = " ".join(done.stdout.split())
    assert f"cannot reach {flood}: model endpoint sent a reply over 4 MiB" in words, words


# -- long tasks ---------------------------------------------------------------------------
@pytest.mark.timeout(60)
def test_a_task_past_the_size_limit_is_one_line_and_never_echoed(tmp_path: Path) -> None:
    task = "x" * 120_000  # 120 KB (an argument holds 128 KiB at most), no space to wrap at
    done = omg("run", task, "--device", "emulator-5554", base_url="http://127.0.0.1:9/v1",
               cwd=tmp_path)
    assert done.returncode == 1
    line = _one_error_line(done)
    assert f"at most {MAX_TASK_CHARS:,} are accepted" in line and "xxx" not in line


@pytest.mark.timeout(90)
def test_a_long_task_is_echoed_shortened(vphone, tmp_path: Path) -> None:
    task = "Open Settings and read " + "x" * (MAX_TASK_CHARS - 100)  # one word to wrap
    done = omg("run", task, "--device", vphone.serial, "--driver", "adb", "--runs-dir",
               str(tmp_path / "runs"), base_url="http://127.0.0.1:9/v1", cwd=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    shown = done.stdout.replace("│", "").replace("\n", "").replace(" ", "")
    assert "x" * 1_000 not in shown and "Open Settings and read" in done.stdout
    assert "xxx…" in shown
