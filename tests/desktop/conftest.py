"""Fixtures for the desktop driver under a real X server: Xvfb, started here.

``xdisplay`` starts one Xvfb for the session on a display number it picks itself
(``-displayfd``), 1024x768 — small, so OCR stays quick; the benchmark script uses
1920x1080. Without the Xvfb binary every test here is skipped, saying how to get it.
``desktop_app`` starts the Tk test app (:mod:`omg_agent.drivers.desktop.testapp`) on it
and waits until the app has written its first state; ``AppState.read()`` (:mod:`desktop_apps`)
is the app's own account of itself, what the tests assert on.

``a11y_display`` is a second, larger Xvfb for the AT-SPI tests; ``a11y_session`` starts a
private D-Bus session bus on it (the accessibility bus comes up through it, as on a
desktop) and points this process at it for the session; ``atspi_driver`` is the desktop
driver with the accessibility tree on (:mod:`atspi_apps`).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from atspi_apps import Session, start_session
from desktop_apps import AppState, start_app

from omg_agent.drivers.desktop.atspi_session import start_xvfb
from omg_agent.errors import DeviceError

XVFB = shutil.which("Xvfb")
SIZE = "1024x768x24"
A11Y_SIZE = "1280x1024x24"


def _xvfb(size: str) -> Iterator[str]:
    if XVFB is None:
        pytest.skip("Xvfb is not installed: apt-get install xvfb (scripts/setup.sh does)")
    try:
        proc, display = start_xvfb(size)  # the driver's own (the bench starts it so too)
    except DeviceError as exc:
        pytest.fail(f"{exc} (no display number on -displayfd)")
    try:
        yield display
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture(scope="session")
def xdisplay() -> Iterator[str]:
    yield from _xvfb(SIZE)


@pytest.fixture(scope="session")
def a11y_display() -> Iterator[str]:
    """A display of its own for the AT-SPI tests, large enough for a GTK file chooser
    (centred on the screen with no window manager, it is 1096x856)."""
    yield from _xvfb(A11Y_SIZE)


@pytest.fixture
def desktop_app(xdisplay: str, tmp_path: Path) -> Iterator[AppState]:
    app = start_app(xdisplay, tmp_path / "app-state.json")
    try:
        yield app
    finally:
        app.proc.terminate()
        app.proc.wait(10)
        if app.proc.stderr:
            app.proc.stderr.close()


@pytest.fixture(scope="session")
def ocr_engine() -> Any:
    """One OCR engine for the session (its models load once)."""
    from omg_agent.perception.ocr import OcrEngine

    return OcrEngine()


@pytest.fixture(scope="session")
def a11y_session(a11y_display: str, tmp_path_factory: pytest.TempPathFactory
                 ) -> Iterator[Session]:
    session = start_session(a11y_display, tmp_path_factory.mktemp("a11y-home"))
    saved = {k: os.environ.get(k) for k in session.env}
    os.environ.update(session.env)
    try:
        yield session
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        session.proc.terminate()
        session.proc.wait(10)


@pytest.fixture
def atspi_driver(a11y_display: str, a11y_session: Session) -> Iterator[Any]:
    from omg_agent.drivers.desktop.driver import DesktopDriver
    from omg_agent.drivers.desktop.x11 import X11Backend

    backend = X11Backend(a11y_display)
    if backend.tree is None:
        backend.close()
        pytest.skip("no accessibility bus came up (at-spi2-core's bus launcher)")
    driver = DesktopDriver(backend, serial=f"desktop={a11y_display}")
    try:
        yield driver
    finally:
        driver.close()
