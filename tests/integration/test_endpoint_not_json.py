"""A model endpoint that answers HTTP 200 with a web page (OMG_BASE_URL pointing at a web UI
instead of the API's /v1) is one line naming the endpoint and exit 1, in ``run`` and in
``doctor`` — not a traceback (issue 9, probe 4). The page comes from a real HTTP server on
127.0.0.1; the real openai client talks to it."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

from omg_agent.cli import app

BLANK = {"OMG_MODEL": "", "OMG_BASE_URL": "", "OMG_API_KEY": "", "OPENAI_API_KEY": "",
         "OPENAI_BASE_URL": "", "OMG_CONFIG": "", "OMG_PLANNER_MODEL": "",
         "OMG_OPERATOR_MODEL": ""}
PAGE = b"<!doctype html><html><head><title>Open WebUI</title></head><body>hi</body></html>"


class _Page(BaseHTTPRequestHandler):
    def _answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        self.rfile.read(length)
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    do_GET = do_POST = _answer

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib name
        pass


@pytest.fixture
def web_page() -> Iterator[str]:
    """The base URL of a server answering every request with an HTML page."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # no omg.toml around
    return tmp_path


def _said_once(output: str, url: str) -> None:
    assert "Traceback" not in output and "AttributeError" not in output, output
    words = " ".join(output.split())  # the console wraps where the URL's length puts it
    said = re.escape(f"{url} answered with text/html, not JSON: is OMG_BASE_URL the API's "
                     "/v1 URL?")
    assert len(re.findall("model endpoint:? " + said, words)) == 1, output


def test_run_says_the_endpoint_sent_a_web_page_and_exits_1(vphone, in_tmp: Path,
                                                           web_page: str) -> None:
    env = {**BLANK, "OMG_MODEL": "m", "OMG_BASE_URL": web_page, "COLUMNS": "400"}
    result = CliRunner().invoke(app, ["run", "look at the screen", "--device", vphone.serial,
                                      "--driver", "adb", "--runs-dir", str(in_tmp / "runs")],
                                env=env)
    assert result.exit_code == 1, result.output
    _said_once(result.output, web_page)


def test_doctor_says_the_endpoint_sent_a_web_page_and_exits_1(in_tmp: Path,
                                                              web_page: str) -> None:
    env = {**BLANK, "OMG_MODEL": "m", "OMG_BASE_URL": web_page, "COLUMNS": "400"}
    result = CliRunner().invoke(app, ["doctor", "--only", "model"], env=env)
    assert result.exit_code == 1, result.output
    _said_once(result.output, web_page)
    assert "skipped: the endpoint is not reachable" in result.output
