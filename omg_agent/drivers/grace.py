"""Riding out device drops: a bounded grace period with backoff, and reviving the adb link
(mid-run, and before a run starts: :func:`await_device`).

A phone on adb goes away for ordinary reasons — a cable wiggle, Wi-Fi roaming, the adb
server being restarted by another tool, the phone rebooting its adbd. :class:`DeviceGrace`
sits under every device call of the ADB driver (:mod:`.adbio`): when a call fails because
the device is offline, unauthorized, not found or the adb server is gone, it waits with
backoff (restarting the adb server with ``adb start-server`` when it died, and ``adb connect``
-ing a TCP device again), and tries again until the device answers or ``grace_s`` has
passed; then a :class:`~omg_agent.errors.DeviceOffline` says for how long and why.

Only calls that are safe to repeat are repeated. A read (screenshot, dump, dumpsys) is
repeated whole. An input command is repeated only when it never reached the device (the
transport could not be opened); when it broke after it was sent, its effect is unknown, so
it is *not* sent again: the grace waits for the device to come back and then raises
:class:`~omg_agent.errors.InputUnconfirmed` saying the result is unknown — the operator then
re-observes before deciding anything (no phantom steps). Retries happen below the operator,
so they never count as steps.
"""

from __future__ import annotations

import logging
import re
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from typing import TypeVar

import adbutils

from omg_agent.errors import DeviceError, DeviceOffline, InputUnconfirmed

log = logging.getLogger(__name__)

T = TypeVar("T")
TCP_SERIAL = re.compile(r"^[\w.\-\[\]:]+:\d+$")
SERVER_GONE = "adb server unreachable"


class Undelivered(Exception):
    """A call that failed before its command reached the device (safe to send again).
    Internal to the driver: :class:`DeviceGrace` unwraps it, it never reaches a caller."""

    def __init__(self, error: DeviceError) -> None:
        super().__init__(str(error))
        self.error = error


class AdbLink:
    """Brings one device's adb link back: the server (``adb -P PORT start-server``) and, for
    a TCP serial, the connection (``adb connect``). Every call has a timeout."""

    def __init__(self, client: adbutils.AdbClient, serial: str, *,
                 timeout: float = 10.0) -> None:
        # its own client, so listing and connecting cannot hang past ``timeout``
        self.client = adbutils.AdbClient(client.host, client.port, socket_timeout=timeout)
        self.serial = serial
        self.timeout = timeout
        self.server_starts = 0
        self.connects = 0
        self._lock = threading.Lock()  # the driver's observe threads revive it once

    @property
    def tcp(self) -> bool:
        return bool(TCP_SERIAL.match(self.serial)) and not self.serial.startswith("emulator-")

    def server_alive(self) -> bool:
        """Whether something accepts connections on the server's port (a plain socket:
        adbutils' own check would start a server on the default port and leak a socket)."""
        try:
            with socket.create_connection((self.client.host, self.client.port), timeout=2):
                return True
        except OSError:
            return False

    def start_server(self) -> None:
        try:
            adb = adbutils.adb_path()  # adb on PATH, else the copy in adbutils' wheel
        except adbutils.AdbError:
            return
        port = str(self.client.port)
        log.warning("%s: the adb server is gone; starting it (adb -P %s start-server)",
                    self.serial, port)
        self.server_starts += 1
        try:
            subprocess.run([adb, "-P", port, "start-server"], capture_output=True,
                           stdin=subprocess.DEVNULL, timeout=self.timeout, check=False)
        except subprocess.TimeoutExpired:
            log.warning("%s: adb start-server did not finish in %g s", self.serial,
                        self.timeout)

    def state(self) -> str:
        """The device's state as the server lists it ('' when it is not listed)."""
        if not self.server_alive():
            return ""
        try:
            for info in self.client.list():
                if info.serial == self.serial:
                    return info.state
        except (adbutils.AdbError, OSError):
            return ""
        return ""

    def revive(self) -> None:
        """One attempt at bringing the link back (cheap when it is already fine)."""
        with self._lock:
            self._revive()

    def _revive(self) -> None:
        if not self.server_alive():
            self.start_server()
        if self.tcp and self.state() == "":
            self.connects += 1
            try:
                answer = self.client.connect(self.serial, timeout=self.timeout)
                log.info("%s: adb connect: %s", self.serial, answer.strip())
            except (adbutils.AdbError, OSError) as exc:
                log.info("%s: adb connect failed: %s", self.serial, exc)


class DeviceGrace:
    """Retries device calls through drops for up to ``grace_s`` seconds, with backoff."""

    def __init__(self, link: AdbLink, *, grace_s: float = 30.0, first_wait: float = 0.1,
                 max_wait: float = 1.0, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.link = link
        self.grace_s = grace_s
        self.first_wait = first_wait
        self.max_wait = max_wait
        self.sleep = sleep
        self.clock = clock
        self.drops = 0  # calls that needed at least one retry
        self.retries = 0
        self.unknown_inputs = 0  # input calls that broke after being sent

    def read(self, call: Callable[[], T], label: str) -> T:
        """Run a call that is safe to repeat, through drops."""
        return self._through(call, label, repeat_sent=True)

    def send(self, call: Callable[[], T], label: str) -> T:
        """Run an input call: repeated only while it never reached the device."""
        return self._through(call, label, repeat_sent=False)

    def wait_back(self, label: str, since: float | None = None) -> None:
        """Block until the device answers again (or the grace runs out: DeviceOffline)."""
        start = self.clock() if since is None else since
        wait = self.first_wait
        while self.link.state() != "device":
            if self.clock() - start >= self.grace_s:
                raise DeviceOffline(f"did not come back within {self.grace_s:g} s",
                                    serial=self.link.serial, command=label)
            self.link.revive()
            self.sleep(wait)
            wait = min(wait * 2, self.max_wait)

    def _through(self, call: Callable[[], T], label: str, *, repeat_sent: bool) -> T:
        start, wait, tries = self.clock(), self.first_wait, 0
        while True:
            try:
                return call()
            except Undelivered as exc:
                error: DeviceError = exc.error
            except DeviceOffline as exc:
                if not repeat_sent:
                    self.unknown_inputs += 1
                    self.wait_back(label, start)
                    raise InputUnconfirmed(
                        f"the device dropped while running an input; its effect is "
                        f"unknown, so it was not sent again (re-observe first): {exc}",
                        serial=self.link.serial, command=label) from None
                error = exc
            if tries == 0:
                self.drops += 1
                log.warning("%s; waiting up to %g s for the device", error, self.grace_s)
            tries += 1
            self.retries += 1
            if self.clock() - start >= self.grace_s:
                raise DeviceOffline(f"did not come back within {self.grace_s:g} s "
                                    f"({tries} tries; last: {error})",
                                    serial=self.link.serial, command=label) from None
            self.link.revive()
            self.sleep(wait)
            wait = min(wait * 2, self.max_wait)


def await_device(client: adbutils.AdbClient, serial: str, grace_s: float, *,
                 on_wait: Callable[[str], None] | None = None,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic) -> bool:
    """Whether ``serial`` answers as a device, waiting for it up to ``grace_s`` seconds.

    What a run does when its device drops mid-way, done before it starts: an adb server
    that is down is started, a TCP device the (restarted) server forgot is connected again,
    and a device that is listed but not ready (offline, unauthorized) is waited for.
    ``on_wait`` hears once that it waits. Cheap when the device is already there.
    """
    link = AdbLink(client, serial)
    if link.state() == "device":
        return True
    if on_wait is not None and grace_s > 0:
        on_wait(f"{serial} is not ready: waiting up to {grace_s:g} s for it (starting the "
                "adb server, connecting it again)")
    try:
        DeviceGrace(link, grace_s=grace_s, sleep=sleep, clock=clock).wait_back("start")
    except DeviceOffline:
        return False
    return True
