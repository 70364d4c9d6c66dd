"""The mirror's session in real headless Chromium (issue 24): the browser sends the mirror's
cookie to a page on another port of 127.0.0.1 — and that cookie, replayed, opens nothing; a
reload keeps the tab signed in; a new tab needs a new link."""

from __future__ import annotations

import http.client
import re
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from omg_agent.drivers.adb import AdbDriver
from omg_agent.hitl.server import Mirror

playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
expect = playwright.expect


def wait_for(condition, what: str, deadline_s: float = 20.0) -> None:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if condition():
            return
        time.sleep(0.05)
    assert condition(), f"never happened: {what}"


class ForeignSite:
    """Another local program's web page: it keeps the Cookie header each request brings."""

    def __init__(self) -> None:
        cookies: list[str] = []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                cookies.append(self.headers.get("Cookie") or "")
                body = b"<!doctype html><title>another program</title>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.cookies = cookies
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def foreign() -> Iterator[ForeignSite]:
    site = ForeignSite()
    yield site
    site.close()


@pytest.fixture
def browser_tabs(chromium_page) -> Iterator[tuple[object, list[str]]]:
    """One browser's context (its tabs share cookies, each has its own sessionStorage) and
    the errors its pages report."""
    context = chromium_page.page.context.browser.new_context()
    errors: list[str] = []
    context.on("page", lambda p: (
        p.on("console", lambda m: errors.append(m.text) if m.type == "error" else None),
        p.on("pageerror", lambda exc: errors.append(str(exc)))))
    yield context, errors
    context.close()


def replay(mirror: Mirror, cookie: str, method: str, path: str) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", mirror.session.port, timeout=10)
    conn.request(method, path, body=b'{"key": "home"}' if method == "POST" else None,
                 headers={"Host": f"127.0.0.1:{mirror.session.port}", "Cookie": cookie,
                          "Origin": f"http://127.0.0.1:{mirror.session.port}",
                          "Content-Type": "application/json"})
    response = conn.getresponse()
    body = response.read().decode("utf-8", "replace")
    conn.close()
    return response.status, body


def test_a_page_on_another_port_gets_the_cookie_but_cannot_replay_it(vphone, browser_tabs,
                                                                      foreign):
    context, errors = browser_tabs
    page = context.new_page()
    with AdbDriver(vphone.serial) as adb, Mirror(adb) as mirror:
        page.goto(mirror.url)
        page.wait_for_selector("#screen[data-frames]")
        other = context.new_page()  # the same browser opens another local program
        other.goto(foreign.url)
        stolen = foreign.cookies[-1]
        assert f"omg_mirror_{mirror.session.port}=" in stolen  # browsers ignore ports
        for method, path in [("GET", "/api/tree"), ("POST", "/api/act/key"),
                             ("POST", "/api/invite"), ("POST", "/api/control")]:
            assert replay(mirror, stolen, method, path)[0] == 401, path
        status, html = replay(mirror, stolen, "GET", "/")
        assert status == 200 and 'name="mirror-key" content=""' in html  # no key in it
        host = f"127.0.0.1:{mirror.session.port}"
        with pytest.raises(InvalidStatus) as refused:
            connect(f"ws://{host}/ws", origin=f"http://{host}",  # type: ignore[arg-type]
                    additional_headers={"Cookie": stolen}, subprotocols=["omg-mirror"],
                    open_timeout=10)
        assert refused.value.response.status_code == 401
        page.click("#back")  # the signed-in tab goes on
        wait_for(lambda: any(e["action"] == "key" for e in mirror.audit.entries), "Back")
        entries = list(mirror.audit.entries)
    assert vphone.phone.foreground == "com.android.launcher3"  # Home was never pressed
    assert [e["action"] for e in entries if e["action"] not in ("refused",)] == [
        "sign_in", "key"]
    refused_entries = [e for e in entries if e["action"] == "refused"]
    assert len(refused_entries) == 5 and {e["cookie_of"] for e in refused_entries} == {1}
    assert errors == []


def test_a_reload_keeps_the_tab_signed_in_and_a_new_tab_needs_a_link(vphone, browser_tabs):
    context, errors = browser_tabs
    page = context.new_page()
    with AdbDriver(vphone.serial) as adb, Mirror(adb) as mirror:
        page.goto(mirror.url)
        page.wait_for_selector("#screen[data-frames]")
        assert "token" not in page.url
        page.reload()
        page.wait_for_selector("#screen[data-frames]")  # frames again, with the kept key
        page.click("#recents")
        wait_for(lambda: any(e["action"] == "key" for e in mirror.audit.entries), "Recents")
        tab = context.new_page()  # a new tab: the cookie, but no key
        tab.goto(f"http://127.0.0.1:{mirror.session.port}/")
        expect(tab.locator("#status")).to_contain_text("not signed in")
        page.click("#invite")
        link = page.locator("#invite-link")
        expect(link).to_have_value(re.compile(r"^http://127\.0\.0\.1:\d+/\?token="))
        tab.goto(link.input_value())
        tab.wait_for_selector("#screen[data-frames]")
        expect(tab.locator("#who")).to_contain_text("viewer 2 · watching")
        page.click("#back")  # the first tab still drives
        wait_for(lambda: sum(e["action"] == "key" for e in mirror.audit.entries) == 2, "Back")
        entries = list(mirror.audit.entries)
    sign_in, key, invite, second, back = entries
    assert (sign_in["action"], invite["action"], second["action"]) == (
        "sign_in", "invite", "sign_in")
    assert key["session"] == back["session"] == sign_in["session"] != second["session"]
    assert second["via"] == "an invite by viewer 1"
    assert errors == []
