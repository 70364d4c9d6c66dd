"""``omg-agent doctor``: one line per check (adb, devices, fonts, model endpoint), green /
yellow / red, with the fix under each line that is not green. Exit 1 when any line is red.

Thin: the checks are :mod:`omg_agent.doctor` and :mod:`omg_agent.doctor_model`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import typer
from rich.markup import escape

from omg_agent.cli.console import console
from omg_agent.cli.device_choice import device_option
from omg_agent.errors import ConfigError

if TYPE_CHECKING:
    from omg_agent.doctor import Check

AREAS = ("adb", "devices", "fonts", "extras", "model")
MARKS = {"ok": "[green]✔[/green]", "warn": "[yellow]![/yellow]", "fail": "[red]✘[/red]"}


def doctor(
    device: str | None = device_option("Default: every device attached."),
    only: str | None = typer.Option(None, "--only",
                                    help=f"Comma-separated areas to check: {', '.join(AREAS)}."),
    as_json: bool = typer.Option(False, "--json", help="Print the checks as JSON."),
    model: bool = typer.Option(False, "--model", help="Check only the model: one small "
                               "request to the configured endpoint, model and key."),
) -> None:
    """Check adb, the devices, the vphone's fonts, the optional extras (OCR, …) and the
    model endpoint; say how to fix.

    Green: works. Yellow: works with a limitation, or was skipped. Red: fix it first (the
    fix is printed under the line). Exits 1 when any check is red.

    Example: omg-agent doctor

    Example: omg-agent doctor --device 127.0.0.1:5555 --only adb,devices --json

    Example: OMG_BASE_URL=http://127.0.0.1:8765/v1 OMG_MODEL=sim omg-agent doctor --model
    """
    if model and only is not None:
        raise typer.BadParameter("--model checks the model alone: drop --only",
                                 param_hint="--model")
    areas = {"key"} if model else _areas(only)
    from omg_agent.doctor import check_extras, check_fonts, host_checks

    checks: list[Check] = []
    if "adb" in areas or "devices" in areas:
        checks += host_checks(device, devices="devices" in areas)
    if "fonts" in areas:
        checks.append(check_fonts())
    if "extras" in areas:
        checks += check_extras()
    if "model" in areas:
        checks += _model_checks()
    if "key" in areas:
        checks += _model_checks(one_request=True)
    ok = not any(c.status == "fail" for c in checks)
    if as_json:
        typer.echo(json.dumps({"ok": ok, "checks": [c.as_dict() for c in checks]},
                              ensure_ascii=False, indent=2))
    else:
        for c in checks:
            console.print(f"{MARKS[c.status]} {escape(c.name)}: {escape(c.detail)}",
                          soft_wrap=True, highlight=False)
            if c.fix and c.status != "ok":
                fix = escape(c.fix).replace("\n", "\n         ")
                console.print(f"    fix: {fix}", soft_wrap=True, highlight=False)
    raise typer.Exit(0 if ok else 1)


def _areas(only: str | None) -> set[str]:
    if only is None:
        return set(AREAS)
    areas = {a.strip().lower() for a in only.split(",") if a.strip()}
    unknown = sorted(areas - set(AREAS))
    if unknown or not areas:
        raise typer.BadParameter(f"unknown area(s) {', '.join(unknown) or '(none)'}; choose "
                                 f"from {', '.join(AREAS)}", param_hint="--only")
    return areas


def _model_checks(one_request: bool = False) -> list[Check]:
    from omg_agent.doctor import Check
    from omg_agent.doctor_model import key_check, model_checks

    try:
        from omg_agent.config import Settings

        settings = Settings.load()
    except ConfigError as exc:
        return [Check("settings", "fail", str(exc), "fix the named setting (see `omg-agent "
                      "config show`)")]
    return [key_check(settings)] if one_request else model_checks(settings)


def register(root: typer.Typer) -> None:
    """Add the ``doctor`` command to the ``omg-agent`` app."""
    root.command(name="doctor")(doctor)
