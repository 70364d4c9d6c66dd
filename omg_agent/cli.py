"""The ``omg-agent`` command line: parses options, builds objects, prints. Nothing more."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import typer
from rich.console import Console

from omg_agent.bench.cli import app as bench_app
from omg_agent.brain.run_cli import run as run_command
from omg_agent.config_cli import app as config_app
from omg_agent.drivers.cli import register as register_device_commands
from omg_agent.errors import OmgError
from omg_agent.trace.cli import register as register_trace_commands
from omg_agent.vphone import adbhost
from omg_agent.vphone.cli import app as vphone_app

app = typer.Typer(help="OMG-Agent: automate an Android phone from a plain-language task.",
                  no_args_is_help=True)
app.add_typer(vphone_app, name="vphone")
app.add_typer(bench_app, name="bench")
app.add_typer(config_app, name="config")
register_device_commands(app)
register_trace_commands(app)
app.command(name="run")(run_command)
console = Console()


@app.callback()
def main(verbose: bool = typer.Option(False, "--verbose", "-v", help="Debug logging.")) -> None:
    logging.basicConfig(level=logging.DEBUG if verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")


@app.command()
def demo(
    out: Path = typer.Option(Path("runs/demo"), help="Folder for the demo's outputs."),
    seed: int = typer.Option(0, help="vphone seed."),
) -> None:
    """Start the embedded vphone, connect adb to it, and show it working.

    Example: omg-agent demo --out runs/demo
    """
    from omg_agent.vphone.phone import VirtualPhone

    out.mkdir(parents=True, exist_ok=True)
    phone = VirtualPhone(seed=seed)
    server = phone.serve()
    try:
        serial = adbhost.connect("127.0.0.1", server.port)
        console.print(f"[green]vphone connected[/green] as {serial}\n")
        console.print(adbhost.devices_listing().rstrip())
        import adbutils

        device = adbutils.AdbClient().device(serial)
        t0 = time.perf_counter()
        image = device.screenshot()
        elapsed = (time.perf_counter() - t0) * 1000
        path = out / "vphone-home.png"
        image.save(path)
        console.print(f"\nscreenshot {image.width}x{image.height} in {elapsed:.0f} ms "
                      f"saved to {path}")
        console.print(f"foreground app: {device.app_current().package}")
        adbhost.disconnect(serial)
    except OmgError as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(1) from exc
    finally:
        phone.close()


if __name__ == "__main__":
    app()
