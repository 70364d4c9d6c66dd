#!/usr/bin/env python3
"""Run adbutils' and uiautomator2's own device test suites, unchanged, against a vphone.

Not a test of ours: a realism check. Where a suite written for real phones fails on vphone,
either vphone behaves unlike a phone (a bug to fix) or the test needs something vphone does
not have (an app it doesn't ship, a USB connection); the report says which for each failure
listed in KNOWN, and prints every other failure as unexplained.

The suites are obtained at pinned versions and never copied into this repository:

- adbutils: its source distribution carries ``e2etests/``; the script fetches it with
  ``pip download --no-binary :all: adbutils==ADBUTILS_VERSION`` into a cache directory.
- uiautomator2: its source distribution carries no tests, so this step is manual. Check out
  the project's git repository at the tag of UIAUTOMATOR2_VERSION, or the newest tag before
  it if that release has none (``git clone --depth 1 --branch 3.7.0 <uiautomator2
  repository>``: 3.7.0 is what the KNOWN table below was made with) and pass the checkout
  with ``--u2-source DIR``; its ``mobile_tests/`` and ``demo_tests/`` are run. Without
  ``--u2-source`` they are reported as not run.

Usage: .venv/bin/python scripts/upstream_device_tests.py [--u2-source DIR] [--latency]
       [--suite adbutils|u2-mobile|u2-demo ...] [--cache DIR] [--keep-going]
Prints one line per suite: ``<suite>: N passed, N failed, N skipped`` and the failures.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import subprocess
import sys
import tarfile
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

from omg_agent.vphone import adbhost
from omg_agent.vphone.phone import VirtualPhone

ADBUTILS_VERSION = "2.12.0"
UIAUTOMATOR2_VERSION = "3.7.1"
SUITES = ("adbutils", "u2-mobile", "u2-demo")
SUITE_TIMEOUT_S = 1800  # a hung suite is a finding too: better a TimeoutExpired than a stall
NEEDS_APP = "needs an app vphone doesn't ship"
NEEDS_USB = "needs USB"
API_DEMOS = NEEDS_APP + " (ApiDemos, io.appium.android.apis)"
U2_DEMO = NEEDS_APP + " (uiautomator2's demo app, com.example.u2testdemo)"
U2_IME_APK = NEEDS_APP + " (uiautomator2's keyboard, com.github.uiautomator)"
# Failures that are not vphone's fault: test id (as pytest prints it) -> reason. Extend it
# only with a reason of one of these two kinds; anything else is a vphone bug to fix.
KNOWN: dict[str, str] = {
    # waits for a device on transport="usb"; a vphone is always a TCP transport
    "test_adb::test_wait_for": NEEDS_USB,
    # uiautomator2 mobile_tests: they start Appium's ApiDemos (io.appium.android.apis) and
    # look for its screens ("App", "Accessibility", "Graphics", "Media"...)
    "test_session::test_app_mixin": API_DEMOS,
    "test_session::test_session_app": API_DEMOS,
    "test_settings::test_operation_delay": API_DEMOS,
    "test_simple::test_scroll": API_DEMOS,
    "test_simple::test_get_text": API_DEMOS,
    "test_simple::test_xpath": API_DEMOS,
    "test_simple::test_send_keys": API_DEMOS,
    "test_watcher::test_watch_context": API_DEMOS,
    "test_xpath::test_get_text": API_DEMOS,
    "test_xpath::test_click": API_DEMOS,
    "test_xpath::test_swipe": API_DEMOS,
    "test_xpath::test_xpath_query": API_DEMOS,
    "test_xpath::test_element_all": API_DEMOS,
    "test_xpath::test_watcher": API_DEMOS,
    "test_xpath::test_xpath_scroll_to": API_DEMOS,
    "test_xpath::test_xpath_parent": API_DEMOS,
    # uiautomator2 demo_tests: they drive its demo app com.example.u2testdemo
    "test_app::test_wait_activity": U2_DEMO,
    "test_app::test_app_wait": U2_DEMO,
    "test_app::test_app_start_stop": U2_DEMO,
    "test_app::test_app_info": U2_DEMO,
    "test_app::test_session": U2_DEMO,
    "test_device::test_toast": U2_DEMO,
    "test_input::test_send_keys": U2_DEMO,
    "test_selector::test_exists": U2_DEMO,
    "test_selector::test_selector_info": U2_DEMO,
    "test_selector::test_screenshot": U2_DEMO,
    "test_selector::test_center": U2_DEMO,
    "test_selector::test_click_exists": U2_DEMO,
    "test_selector::test_pinch_gesture": U2_DEMO,
    # set_input_ime installs uiautomator2's own keyboard app (an APK vphone cannot install)
    "test_device::test_clipboard": U2_IME_APK,
    "test_input::test_set_ime": U2_IME_APK,
}


def fetch_adbutils_tests(cache: Path) -> Path:
    """``e2etests/`` of the pinned adbutils sdist, extracted under ``cache``."""
    root = cache / f"adbutils-{ADBUTILS_VERSION}"
    if not (root / "e2etests").is_dir():
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary",
                        ":all:", f"adbutils=={ADBUTILS_VERSION}", "-d", str(cache)], check=True)
        with tarfile.open(cache / f"adbutils-{ADBUTILS_VERSION}.tar.gz") as tar:
            members = [m for m in tar.getmembers()
                       if m.name.startswith(f"adbutils-{ADBUTILS_VERSION}/e2etests/")]
            tar.extractall(cache, members=members, filter="data")
    return root / "e2etests"


def suite_dirs(args: argparse.Namespace) -> dict[str, Path | str]:
    """Each wanted suite's directory, or why it cannot run."""
    out: dict[str, Path | str] = {}
    for suite in args.suite or SUITES:
        if suite == "adbutils":
            out[suite] = fetch_adbutils_tests(Path(args.cache))
        elif args.u2_source is None:
            out[suite] = (f"not run: check out uiautomator2 {UIAUTOMATOR2_VERSION} by hand "
                          "and pass --u2-source (its sdist carries no tests)")
        else:
            path = Path(args.u2_source) / ("mobile_tests" if suite == "u2-mobile"
                                           else "demo_tests")
            out[suite] = path if path.is_dir() else f"not run: {path} does not exist"
    return out


def run_suite(path: Path, serial: str, report: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ANDROID_SERIAL": serial}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
         "--rootdir", str(path), "-c", os.devnull, f"--junitxml={report}", str(path)],
        env=env, capture_output=True, text=True, cwd=path, timeout=SUITE_TIMEOUT_S)


def summarize(report: Path) -> tuple[dict[str, int], list[tuple[str, str]]]:
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    failures: list[tuple[str, str]] = []
    for case in ET.parse(report).getroot().iter("testcase"):
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        bad = case.find("failure")
        if bad is None:
            bad = case.find("error")
        if bad is not None:
            counts["failed"] += 1
            failures.append((name, (bad.get("message") or "").splitlines()[0][:160]
                             if bad.get("message") else ""))
        elif case.find("skipped") is not None:
            counts["skipped"] += 1
        else:
            counts["passed"] += 1
    return counts, failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--u2-source", help="a uiautomator2 checkout at the pinned tag")
    parser.add_argument("--suite", action="append", choices=SUITES)
    parser.add_argument("--cache", default=str(Path.home() / ".cache" / "omg-agent" /
                                               "upstream-tests"))
    parser.add_argument("--latency", action="store_true", help="real-device latencies")
    args = parser.parse_args()
    for package, pinned in (("adbutils", ADBUTILS_VERSION),
                            ("uiautomator2", UIAUTOMATOR2_VERSION)):
        have = importlib.metadata.version(package)
        if have != pinned:
            print(f"warning: {package} {have} is installed; the suites are pinned to {pinned}")
    dirs = suite_dirs(args)
    phone = VirtualPhone(latency=args.latency, motion=True)
    server = phone.serve()
    serial = adbhost.connect("127.0.0.1", server.port)
    unexplained = 0
    try:
        for suite, where in dirs.items():
            if isinstance(where, str):
                print(f"{suite}: {where}")
                continue
            with tempfile.TemporaryDirectory() as tmp:
                report = Path(tmp) / "report.xml"
                result = run_suite(where, serial, report)
                if not report.exists():
                    print(f"{suite}: pytest produced no report (exit {result.returncode}):\n"
                          f"{result.stdout[-2000:]}{result.stderr[-2000:]}")
                    unexplained += 1
                    continue
                counts, failures = summarize(report)
            print(f"{suite}: {counts['passed']} passed, {counts['failed']} failed, "
                  f"{counts['skipped']} skipped")
            for name, message in failures:
                reason = KNOWN.get(name)
                unexplained += reason is None
                print(f"  FAILED {name}: {reason or 'UNEXPLAINED: ' + message}")
    finally:
        adbhost.disconnect(serial)
        phone.close()
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
