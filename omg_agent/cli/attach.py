"""Which device a run drives: the one named, the only one attached, or a vphone started in
this process; several named devices for one task; a saved run's device found again."""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any

from rich.markup import escape

from omg_agent.cli.console import err_console, fail
from omg_agent.errors import OmgError


def several_devices(values: list[str], least: int = 2) -> dict[str, str]:
    """Named devices when ``--device`` was given ``least`` times or more (else ``{}``)."""
    if len(values) < least:
        return {}
    from omg_agent.drivers.desktop.router import parse_devices

    try:
        return parse_devices(values)
    except OmgError as exc:
        fail(str(exc))


def attached_or_vphone(stack: ExitStack, device: str | None, grace_s: float = 0.0) -> str:
    """The serial to drive: the one given, the only one attached, or a vphone started here.
    A device given but not listed is waited for up to ``grace_s`` seconds (the adb server
    restarted, a TCP device to connect again), as a run waits for it mid-way."""
    import adbutils

    from omg_agent.cli.device import pick_serial
    from omg_agent.drivers.desktop import is_desktop
    from omg_agent.vphone import adbhost

    if is_desktop(device):  # a desktop, not an adb serial (drivers.select opens it)
        return str(device)
    client = adbutils.AdbClient()
    if device and device != "vphone":
        _await(client, device, grace_s)
    if device != "vphone":
        try:
            attached = [d.serial for d in client.device_list()]
        except adbutils.AdbError as exc:
            fail(f"adb server not reachable ({exc}); run `adb start-server`")
        if device or attached:
            return pick_serial(client, device)
    from omg_agent.vphone.phone import VirtualPhone

    phone = VirtualPhone()
    stack.callback(phone.close)
    server = phone.serve()
    serial = adbhost.connect("127.0.0.1", server.port)
    stack.callback(adbhost.disconnect, serial)
    err_console.print(f"no device given: started a vphone as {serial}")
    return serial


def _await(client: Any, serial: str, grace_s: float) -> bool:
    """Whether ``serial`` is attached, after riding out a restarting adb server."""
    from omg_agent.drivers.grace import await_device

    return await_device(client, serial, grace_s, on_wait=lambda text: err_console.print(
        escape(text), soft_wrap=True, highlight=False))


def reattach(serial: str, grace_s: float) -> str:
    """The device a saved run used, if adb sees it (a TCP device connected again, a
    restarting adb server waited for); a desktop is always there."""
    import adbutils

    from omg_agent.drivers.desktop import is_desktop

    if is_desktop(serial):
        return serial
    # at least a moment: a TCP device forgotten by a restarted adb server comes back at once
    if not _await(adbutils.AdbClient(), serial, max(grace_s, 2.0)):
        fail(f"the run's device {serial} is not attached any more: connect it (a vphone "
             "started by the run itself is gone with it) and resume again")
    return serial


__all__ = ["attached_or_vphone", "reattach", "several_devices"]
