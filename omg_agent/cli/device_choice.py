"""Which device and which driver a device command uses: ``--device`` or the only phone
attached, and ``--driver`` (adb, u2, or auto: measured once per model), each refused in one
line naming what is accepted; and whether a uiautomator2 server already answers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import adbutils
import typer

from omg_agent.cli.console import fail
from omg_agent.errors import OmgError

if TYPE_CHECKING:  # the drivers load with the command that uses one
    from omg_agent.drivers.base import Driver
    from omg_agent.drivers.ports import InputJudge

#: how every command's ``--device`` begins its help; a command adds what else it accepts
DEVICE_HELP = "The device's adb serial (omg-agent devices lists them)."
ONLY_ONE = "Default: the only one attached."
OR_VPHONE = "'vphone' starts one; default: the only one attached, else a new vphone."


def device_option(more: str = ONLY_ONE, default: Any = None) -> Any:
    """The ``--device``/``-s SERIAL`` option, worded the same in every command: its help is
    :data:`DEVICE_HELP`, then ``more`` (what else this command accepts)."""
    return typer.Option(default, "--device", "-s", metavar="SERIAL",
                        help=f"{DEVICE_HELP} {more}".strip())


DeviceOpt = device_option()
DriverOpt = typer.Option("auto", "--driver", help="adb, u2 or auto (measured once per model).")


def pick_serial(client: adbutils.AdbClient, serial: str | None) -> str:
    try:
        serials = [d.serial for d in client.device_list()]
    except adbutils.AdbError as exc:
        fail(f"adb server not reachable ({exc}); run `adb start-server`")
    if serial:
        if serial not in serials:
            fail(f"device {serial!r} is not attached (attached: {', '.join(serials) or 'none'})")
        return serial
    if not serials:
        fail("no device attached: plug in a phone with USB debugging on, or start a virtual "
             "one with `omg-agent vphone start --connect`")
    if len(serials) > 1:
        fail(f"several devices attached ({', '.join(serials)}): pass --device SERIAL")
    return serials[0]


def open_driver(serial: str | None, driver: str, *, looks: bool = True,
                judge: InputJudge | None = None) -> Driver:
    """The driver for a command. ``looks=False``: the command sends input and need not see
    the screen, so ``auto`` means the ADB driver — no uiautomator2 server to start, no
    driver race to measure. Every input it sends passes ``judge`` (the choke point; by
    default one that pre-authorises nothing and asks nobody: a flow binds its own)."""
    from omg_agent.drivers.desktop import is_desktop, open_desktop

    if judge is None:
        from omg_agent.guards.choke import ChokePoint
        from omg_agent.guards.gatekeeper import GateKeeper
        from omg_agent.guards.sensitive import Gate

        judge = ChokePoint(GateKeeper(Gate()), serial=serial or "")
    if is_desktop(serial):  # --device desktop | desktop=:99 (the desktop driver)
        try:
            return open_desktop(str(serial), judge=judge)
        except OmgError as exc:
            fail(str(exc))
    if driver not in ("adb", "u2", "auto"):
        fail(f"unknown driver {driver!r}: choose adb, u2 or auto")
    client = adbutils.AdbClient()
    chosen = pick_serial(client, serial)
    try:
        if not looks and driver == "auto":
            driver = "adb"
        from omg_agent.drivers.select import choose_driver

        return choose_driver(chosen, driver, client=client,  # type: ignore[arg-type]
                             judge=judge)
    except OmgError as exc:
        fail(str(exc))


def u2_answers(device: adbutils.AdbDevice, port: int = 9008) -> bool:
    """Whether a uiautomator2 server already answers on the device (nothing is started)."""
    try:
        sock = device.create_connection(adbutils.Network.TCP, port)
    except adbutils.AdbError:
        return False
    try:
        sock.settimeout(2)
        sock.sendall(b"GET /ping HTTP/1.0\r\nHost: localhost\r\n\r\n")
        return b"pong" in sock.recv(4096)
    except OSError:
        return False
    finally:
        sock.close()
