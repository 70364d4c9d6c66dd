"""The ``omg-agent`` command line: parses options, builds objects, prints. Nothing more.

The only package that imports typer or rich (DESIGN.md §2). One module per command group —
:mod:`~omg_agent.cli.run`, :mod:`~omg_agent.cli.device` (devices, observe, tap, type, key,
launch), :mod:`~omg_agent.cli.vphone`, :mod:`~omg_agent.cli.bench`,
:mod:`~omg_agent.cli.report`, :mod:`~omg_agent.cli.config`, :mod:`~omg_agent.cli.demo`,
:mod:`~omg_agent.cli.doctor` — each with a ``register(app)``; this module only assembles
them into one typer app. Every command stops on errors with
:func:`omg_agent.cli.console.fail`.
"""

from __future__ import annotations

import logging

import typer

from omg_agent.cli import (
    bench,
    config,
    console,
    demo,
    device,
    doctor,
    flow,
    macro,
    memory,
    mirror,
    report,
    run,
    vphone,
)

app = typer.Typer(help="OMG-Agent: automate an Android phone from a plain-language task.\n\n"
                       "Example: omg-agent demo", no_args_is_help=True,
                  context_settings={"help_option_names": ["-h", "--help"]})
for group in (vphone, bench, config, demo, doctor, device, report, run, flow, macro, memory,
              mirror):
    group.register(app)


@app.callback()
def main(verbose: bool = typer.Option(False, "--verbose", "-v", help="Debug logging."),
         version: bool = typer.Option(False, "--version", is_eager=True,
                                      callback=console.print_version,
                                      help="Print the version and exit.")) -> None:
    logging.basicConfig(level=logging.DEBUG if verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")


__all__ = ["app"]
