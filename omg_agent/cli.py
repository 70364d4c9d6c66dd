"""The ``omg-agent`` command line: parses options, builds objects, prints. Nothing more.

Each command lives with its area (``drivers/cli.py``, ``vphone/cli.py``, ``brain/run_cli.py``,
``trace/cli.py``, ``bench/cli.py``, ``config_cli.py``, ``demo_cli.py``, ``doctor_cli.py``);
this module only assembles them into one typer app.
"""

from __future__ import annotations

import logging

import typer

from omg_agent.bench.cli import app as bench_app
from omg_agent.brain.run_cli import run as run_command
from omg_agent.config_cli import app as config_app
from omg_agent.demo_cli import demo as demo_command
from omg_agent.doctor_cli import doctor as doctor_command
from omg_agent.drivers.cli import register as register_device_commands
from omg_agent.trace.cli import register as register_trace_commands
from omg_agent.vphone.cli import app as vphone_app

app = typer.Typer(help="OMG-Agent: automate an Android phone from a plain-language task.\n\n"
                       "Example: omg-agent demo", no_args_is_help=True)
app.add_typer(vphone_app, name="vphone")
app.add_typer(bench_app, name="bench")
app.add_typer(config_app, name="config")
app.command(name="demo")(demo_command)
app.command(name="doctor")(doctor_command)
register_device_commands(app)
register_trace_commands(app)
app.command(name="run")(run_command)


@app.callback()
def main(verbose: bool = typer.Option(False, "--verbose", "-v", help="Debug logging.")) -> None:
    logging.basicConfig(level=logging.DEBUG if verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")


if __name__ == "__main__":
    app()
