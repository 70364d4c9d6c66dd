"""``omg-agent screenshot`` and ``omg-agent dump``: the screen's pixels and its hierarchy.

Registered with the device commands (:func:`omg_agent.cli.device.register`); the device and
driver are picked the same way (:func:`~omg_agent.cli.device_choice.open_driver`).
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from omg_agent.cli.console import console, fail
from omg_agent.cli.device_choice import DeviceOpt, DriverOpt, open_driver
from omg_agent.errors import OmgError


def screenshot(
    path: Path = typer.Argument(Path("screen.png"), help="Where to save the PNG."),
    device: str | None = DeviceOpt,
    driver: str = typer.Option("adb", "--driver", help="adb (default: the lossless frame), "
                               "u2 (the server's JPEG) or auto."),
) -> None:
    """Save a screenshot as PNG (the device's own pixels, lossless, by default).

    Example: omg-agent screenshot home.png
    """
    if path.suffix.lower() != ".png":
        fail(f"{path} does not end in .png: screenshots are saved as PNG")
    drv = open_driver(device, driver)
    try:
        shoot = getattr(drv, "screenshot", None)
        image = shoot()[0] if callable(shoot) else drv.observe().screenshot
    except OmgError as exc:
        fail(str(exc))
    finally:
        drv.close()
    try:
        image.save(path)
    except OSError as exc:
        fail(f"cannot write {path}: {exc.strerror or exc}")
    console.print(f"[green]ok[/green] {image.width}x{image.height} saved to {path}",
                  highlight=False)


def dump(
    out: Path | None = typer.Option(None, "--out", "-o", help="Write the XML here "
                                    "(default: print it)."),
    device: str | None = DeviceOpt,
    driver: str = DriverOpt,
) -> None:
    """Print the screen's accessibility hierarchy as XML (uiautomator's format).

    Example: omg-agent dump -o window.xml
    """
    drv = open_driver(device, driver)
    try:
        read = getattr(drv, "hierarchy", None)
        if not callable(read):
            fail(f"the {type(drv).__name__} driver cannot dump XML; use --driver adb")
        xml = str(read())
    except OmgError as exc:
        fail(str(exc))
    finally:
        drv.close()
    if out is None:
        sys.stdout.write(xml if xml.endswith("\n") else xml + "\n")
        return
    try:
        out.write_text(xml, encoding="utf-8")
    except OSError as exc:
        fail(f"cannot write {out}: {exc.strerror or exc}")
    console.print(f"[green]ok[/green] {len(xml)} characters saved to {out}", highlight=False)
