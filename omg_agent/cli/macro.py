"""``omg-agent macro …``: the stored macros (list, show, rm) and the offline detector.

Thin: parse options, call :mod:`omg_agent.macros`, print. The store lives under
``--store`` (default ``<runs_dir>/macros``), one folder per app and device profile.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from omg_agent.cli.console import fail
from omg_agent.cli.device_choice import DeviceOpt
from omg_agent.errors import ConfigError, OmgError

app = typer.Typer(help="Macros: repeated work compiled to batched adb shell calls.\n\n"
                       "Example: omg-agent macro detect runs/20260101-120000-like --save",
                  no_args_is_help=True)
STORE_HELP = "The macro store folder (default <runs_dir>/macros, runs_dir from the settings)."


def _store(store: Path | None):
    from omg_agent.config import Settings
    from omg_agent.macros.store import MacroStore

    if store is not None:
        return MacroStore(store)
    try:
        settings = Settings.load()
    except ConfigError as exc:
        fail(str(exc))
    return MacroStore(settings.runs_dir / "macros")


@app.command("list")
def list_(
    store: Path | None = typer.Option(None, "--store", help=STORE_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the macros as JSON."),
) -> None:
    """The stored macros (latest version of each), per app and device profile.

    Example: omg-agent macro list --json
    """
    try:
        found = _store(store).stored()
    except OmgError as exc:
        fail(str(exc))
    if as_json:
        typer.echo(json.dumps([{"name": s.macro.name, "app": s.macro.app,
                                "profile": s.macro.profile, "version": s.version,
                                "path": str(s.path)} for s in found], ensure_ascii=False))
        return
    if not found:
        typer.echo("no stored macros")
        return
    for s in found:
        typer.echo(f"{s.macro.name}  v{s.version}  {s.macro.app}  {s.macro.profile}  "
                   f"{s.macro.describe()}")


@app.command()
def show(
    name: str = typer.Argument(..., help="The macro's name (see: omg-agent macro list)."),
    app_: str | None = typer.Option(None, "--app", help="The app package, when several "
                                    "macros share the name."),
    profile: str | None = typer.Option(None, "--profile", help="The device profile "
                                       "(WIDTHxHEIGHT), when several macros share the name."),
    version: int | None = typer.Option(None, "--version", min=1, help="An older version."),
    store: Path | None = typer.Option(None, "--store", help=STORE_HELP),
) -> None:
    """One macro as JSON (its parameters), with its versions.

    Example: omg-agent macro show feed-like --version 1
    """
    try:
        st = _store(store)
        stored = st.get(name, app=app_, profile=profile, version=version)
        versions = st.versions(stored)
    except OmgError as exc:
        fail(str(exc))
    typer.echo(json.dumps({"version": stored.version, "versions": versions,
                           "path": str(stored.path), "describe": stored.macro.describe(),
                           "macro": stored.macro.model_dump(mode="json")},
                          ensure_ascii=False, indent=1))


@app.command()
def rm(
    name: str = typer.Argument(..., help="The macro's name."),
    app_: str | None = typer.Option(None, "--app", help="Only the macro of this app."),
    profile: str | None = typer.Option(None, "--profile", help="Only this device profile."),
    store: Path | None = typer.Option(None, "--store", help=STORE_HELP),
) -> None:
    """Delete a macro with all its versions.

    Example: omg-agent macro rm feed-like --profile 1080x2400
    """
    try:
        count = _store(store).remove(name, app=app_, profile=profile)
    except OmgError as exc:
        fail(str(exc))
    if not count:
        fail(f"no stored macro named {name!r}"
             + (f" for app {app_}" if app_ else "") + (f" on {profile}" if profile else ""))
    typer.echo(f"removed {count} macro(s) named {name}")


@app.command()
def detect(
    run_dir: Path = typer.Argument(..., help="A run folder (the one holding trace.jsonl)."),
    save: bool = typer.Option(False, "--save", help="Keep the macro found in the store."),
    min_repeats: int = typer.Option(2, "--min-repeats", min=2,
                                    help="Repetitions that make a pattern."),
    store: Path | None = typer.Option(None, "--store", help=STORE_HELP),
) -> None:
    """Find the last macro a recorded run repeats (offline detector).

    Example: omg-agent macro detect runs/20260101-120000-like-the-first-4-posts --save
    """
    from omg_agent.macros.detect import acts_of_trace, detect_in_run

    try:
        found = detect_in_run(acts_of_trace(run_dir), min_repeats=min_repeats)
    except OmgError as exc:
        fail(str(exc))
    if found.macro is None:
        fail(f"no macro in {run_dir}: {found.reason}")
    out = {"reason": found.reason, "acted": list(found.acted),
           "macro": found.macro.model_dump(mode="json")}
    if save:
        try:
            stored = _store(store).save(found.macro)
        except OmgError as exc:
            fail(str(exc))
        out["saved"] = {"path": str(stored.path), "version": stored.version}
    typer.echo(json.dumps(out, ensure_ascii=False, indent=1))


@app.command("run")
def run_(
    name: str = typer.Argument(..., help="The macro's name (see: omg-agent macro list)."),
    count: int | None = typer.Option(None, "--count", min=1, max=10_000,
                                     help="Stop after this many items."),
    until: str | None = typer.Option(None, "--until", metavar="TEXT",
                                     help="Stop once this text shows."),
    device: str | None = DeviceOpt,
    app_: str | None = typer.Option(None, "--app", help="The app package, when several "
                                    "macros share the name."),
    allow: list[str] = typer.Option([], "--allow", help="Pre-authorise a sensitive class "
                                    "(payment, delete, send, …); without it a sensitive "
                                    "touch stops the macro before it is sent."),
    store: Path | None = typer.Option(None, "--store", help=STORE_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Play a stored macro on the phone from the screen it shows now (the app and its list
    must be in front); every touch passes the sensitive-action gate. Exits 1 when it stopped
    before the end.

    Example: omg-agent macro run feed-like --count 5 --device 127.0.0.1:5555
    """
    from omg_agent.cli.device_choice import open_driver
    from omg_agent.cli.lease import driving
    from omg_agent.config import Settings
    from omg_agent.macros.model import Stop
    from omg_agent.macros.play import play

    try:
        settings = Settings.load(overrides={"allow": ",".join(allow) or None})
        macros = _store(store)
        if not any(s.macro.name == name for s in macros.stored()):
            macros.get(name)  # its error lists the stored names, before a device is picked
        with driving(device, f"omg-agent macro run {name}") as serial:
            handle = open_driver(serial, "adb")
            try:
                info = handle.info()  # several of that name: the one of this screen size
                stored = next((s for s in macros.stored() if s.macro.name == name
                               and s.macro.profile == f"{info.width}x{info.height}"
                               and app_ in (None, s.macro.app)), None) \
                    or macros.get(name, app=app_)
                report = play(handle, stored.macro, Stop(count=count, until_text=until),
                              settings)
            finally:
                handle.close()
    except OmgError as exc:
        fail(str(exc))
    if as_json:
        typer.echo(json.dumps({"macro": report.macro, "completed": report.completed,
                               "reason": report.reason, "sent": list(report.sent),
                               "verified": list(report.verified), "chunks": report.chunks,
                               "seconds": round(report.seconds, 3)}, ensure_ascii=False))
    else:
        typer.echo(report.summary().replace("; the operator has control again", ""))
    raise typer.Exit(0 if report.completed else 1)


def register(root: typer.Typer) -> None:
    """Add the ``macro`` group to the ``omg-agent`` app."""
    root.add_typer(app, name="macro")
