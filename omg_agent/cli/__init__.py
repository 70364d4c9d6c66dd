"""The ``omg-agent`` command line: parses options, builds objects, prints. Nothing more.

The only package that imports typer or rich (DESIGN.md §2). One module per command group —
:mod:`~omg_agent.cli.run`, :mod:`~omg_agent.cli.device` (devices, observe, tap, type, key,
launch), :mod:`~omg_agent.cli.vphone`, :mod:`~omg_agent.cli.bench`,
:mod:`~omg_agent.cli.report`, :mod:`~omg_agent.cli.config`, :mod:`~omg_agent.cli.demo`,
:mod:`~omg_agent.cli.doctor` — each with a ``register(app)``; this module only assembles
them into one typer app, built on first use of ``app``; the ``omg-agent`` script
(:func:`main`) builds one of the device commands alone for a one-shot device command. Every
command stops on errors with :func:`omg_agent.cli.console.fail`.
"""

from __future__ import annotations

import logging

from omg_agent.cli import lazy

lazy.defer_all()  # before typer and the command groups import their dependencies

import importlib  # noqa: E402
import sys  # noqa: E402
from typing import TYPE_CHECKING, Any  # noqa: E402

import typer  # noqa: E402

from omg_agent.cli import console  # noqa: E402
from omg_agent.cli.helpfmt import PlainHelpGroup  # noqa: E402

if TYPE_CHECKING:
    app: typer.Typer  # the whole app, built on first use (module ``__getattr__``)

GROUPS = ("vphone", "bench", "config", "demo", "doctor", "device", "report", "run", "flow",
          "macro", "memory", "mirror", "mcp", "fleet", "sim")
# the one-shot device commands: ``omg-agent key back`` builds an app of these alone, so a
# keypress pays for neither the other groups' imports nor their options' set-up
DEVICE_COMMANDS = frozenset({"devices", "observe", "tap", "type", "key", "launch", "swipe",
                             "long-press", "screenshot", "dump"})


def _main(verbose: bool = typer.Option(False, "--verbose", "-v", help="Debug logging."),
          version: bool = typer.Option(False, "--version", is_eager=True,
                                       callback=console.print_version,
                                       help="Print the version and exit.")) -> None:
    logging.basicConfig(level=logging.DEBUG if verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")


def build_app(groups: tuple[str, ...] = GROUPS) -> typer.Typer:
    """The ``omg-agent`` app with the command ``groups`` given (all by default)."""
    # markdown: rich re-flows each paragraph of a help text to the terminal's width, so the
    # docstrings' source line breaks never show (a help text's `<word>` would vanish as HTML)
    built = typer.Typer(help="OMG-Agent: automate an Android phone from a plain-language "
                             "task.\n\nExample: omg-agent demo", no_args_is_help=True,
                        cls=PlainHelpGroup,  # help without Python types (cli/helpfmt.py)
                        rich_markup_mode="markdown",
                        context_settings={"help_option_names": ["-h", "--help"]})
    built.callback()(_main)
    for group in groups:
        importlib.import_module(f"omg_agent.cli.{group}").register(built)
    return built


_full: typer.Typer | None = None


def __getattr__(name: str) -> Any:
    global _full
    if name == "app":
        if _full is None:
            _full = build_app()
        return _full
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _missing_extra(exc: Exception) -> None:
    """A feature whose optional extra is not installed ends in its one line, exit 1 (a
    bad setup)."""
    from omg_agent.extras import missing

    found = missing(exc)
    if found is not None:
        console.err_console.print(f"error: {found}", markup=False, highlight=False,
                                  soft_wrap=True)
        sys.exit(1)


def main() -> None:
    """The ``omg-agent`` script: a one-shot device command runs on an app of the device
    commands alone; everything else (help included) on the whole app."""
    console.safe_streams()  # a character the terminal cannot show never fails a command
    first = next((a for a in sys.argv[1:] if not a.startswith("-")), "")
    try:
        (build_app(("device",)) if first in DEVICE_COMMANDS else __getattr__("app"))()
    except Exception as exc:  # a store the disk refused, outside a run (issue 38): one line
        _missing_extra(exc)
        from omg_agent.durable import disk_cause

        cause = disk_cause(exc)
        if cause is None:
            raise
        from omg_agent.cli.run import DISK_REFUSED_EXIT

        where = f" {cause.filename}" if cause.filename else ""
        console.err_console.print(f"error: the disk refused{where}: {cause.strerror}; free "
                                  "some space (or make the folder writable), then try again",
                                  markup=False, highlight=False, soft_wrap=True)
        sys.exit(DISK_REFUSED_EXIT)


__all__ = ["DEVICE_COMMANDS", "GROUPS", "app", "build_app", "main"]
