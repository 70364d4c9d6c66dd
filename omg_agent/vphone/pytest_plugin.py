"""A pytest plugin: the ``vphone`` fixture, a virtual phone connected to the real adb server.

Installed with the package (entry point ``pytest11``), so any test suite that has
omg-agent installed can write ``def test_x(vphone): vphone.device.shell("wm size")``.
Options come from the ``vphone`` marker: ``@pytest.mark.vphone(seed=3, profile="compact",
latency=True, motion=True)`` (``motion`` defaults to ``latency``: gestures last their
duration and screens animate; ``reports_idle`` defaults to no motion: the phone answers
``vphone-idle``, so drivers settle on its word). Each test gets a fresh phone on a free
port, disconnected afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from omg_agent.errors import AdbNotFound
from omg_agent.vphone import adbhost
from omg_agent.vphone.phone import VirtualPhone


@dataclass
class RunningVPhone:
    phone: VirtualPhone
    port: int
    serial: str

    @property
    def device(self):
        """An ``adbutils.AdbDevice`` for this phone (through the adb server)."""
        import adbutils

        return adbutils.AdbClient().device(self.serial)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "vphone(seed=0, profile='default', latency=False, motion=None, reports_idle=None): "
        "vphone fixture options")


@pytest.fixture
def vphone(request: pytest.FixtureRequest) -> Iterator[RunningVPhone]:
    marker = request.node.get_closest_marker("vphone")
    opts = dict(marker.kwargs) if marker else {}
    try:
        adbhost.adb_path()
    except AdbNotFound as exc:
        pytest.skip(str(exc))
    phone = VirtualPhone(opts.get("profile", "default"), seed=opts.get("seed", 0),
                         latency=opts.get("latency", False), motion=opts.get("motion"),
                         reports_idle=opts.get("reports_idle"))
    server = phone.serve()
    serial = adbhost.connect("127.0.0.1", server.port)
    try:
        yield RunningVPhone(phone, server.port, serial)
    finally:
        adbhost.disconnect(serial)
        phone.close()
