"""Device commands of the ``omg-agent`` CLI: devices, observe, tap, long-press, swipe,
type, key, launch (and screenshot, dump from :mod:`~omg_agent.cli.capture`).

Thin: each command picks a device, builds a driver with
:func:`omg_agent.drivers.select.choose_driver`, runs one operation and prints. They work
the same against a vphone and a USB phone. The commands that send input hold the phone's
lease for their moment (:mod:`omg_agent.cli.lease`: exit 7 while a run drives it);
``devices`` and ``observe`` only read, and take none.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import adbutils
import typer

from omg_agent.cli.console import console, fail, say_ok, validation_message
from omg_agent.cli.device_choice import DeviceOpt, DriverOpt, open_driver, u2_answers
from omg_agent.cli.device_choice import pick_serial as pick_serial  # re-exported
from omg_agent.cli.device_gate import AllowOpt, YesOpt, device_judge, exit_if_held
from omg_agent.errors import OmgError

if TYPE_CHECKING:  # the drivers load with the command that uses one
    from omg_agent.drivers.base import ExecResult

def devices(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """List attached devices: serial, model, screen size, which drivers answer.

    Example: omg-agent devices
    """
    client = adbutils.AdbClient()
    rows: list[dict[str, Any]] = []
    try:
        listed = client.list(extended=True)
    except adbutils.AdbError as exc:
        fail(f"adb server not reachable ({exc}); run `adb start-server`")
    for item in listed:
        row: dict[str, Any] = {"serial": item.serial, "state": item.state,
                               "model": item.tags.get("model", ""), "size": "", "drivers": []}
        if item.state == "device":
            d = client.device(item.serial)
            try:
                row["size"] = d.shell("wm size").strip().rsplit(" ", 1)[-1]
                row["drivers"] = ["adb"] + (["u2"] if u2_answers(d) else [])
            except adbutils.AdbError:  # it went away after the listing
                row["state"] = "gone"
        rows.append(row)
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    from rich.table import Table

    table = Table("serial", "state", "model", "size", "drivers")
    for r in rows:
        table.add_row(r["serial"], r["state"], r["model"], r["size"], ", ".join(r["drivers"]))
    console.print(table if rows else "no devices attached (try `omg-agent vphone start "
                                     "--connect`)")


def observe(
    device: str | None = DeviceOpt,
    driver: str = DriverOpt,
    som: Path | None = typer.Option(None, "--som", help="Save a set-of-marks PNG here."),
    ocr: bool = typer.Option(False, "--ocr", help="Also read the screen with OCR."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Observe the screen: foreground app, element list, screen hash, timings.

    Example: omg-agent observe --som screen.png
    """
    drv = open_driver(device, driver)
    try:
        obs = drv.observe(ocr=ocr)
    finally:
        drv.close()
    if som is not None:
        from omg_agent.perception.som import draw_marks

        draw_marks(obs.screenshot, obs.elements).save(som)
    if as_json:
        print(json.dumps({
            "package": obs.package, "activity": obs.activity, "size": list(obs.size),
            "screen_hash": obs.screen_hash, "timings_ms": {k: round(v * 1000, 1) if v < 100
                                                           else v for k, v in
                                                           obs.timings.items()},
            "elements": [_element_json(e) for e in obs.elements],
            "ocr": [{"text": b.text, "bounds": list(b.bounds), "confidence": b.confidence}
                    for b in obs.ocr or ()],
        }, ensure_ascii=False, indent=2))
        return
    console.print(f"[bold]{obs.package}[/bold]/{obs.activity}  {obs.size[0]}x{obs.size[1]}  "
                  f"hash {obs.screen_hash[:24]}…")
    from omg_agent.perception.elementlist import render

    console.print(render(obs.elements, obs.screen), markup=False, highlight=False)
    for box in obs.ocr or ():
        console.print(f"ocr {box.text!r} {tuple(box.bounds)} {box.confidence:.2f}",
                      markup=False)
    if som is not None:
        console.print(f"set-of-marks saved to {som}")


def _element_json(e) -> dict[str, Any]:
    out = {"id": e.id, "role": e.role, "text": "<password>" if e.password else e.text,
           "desc": e.desc, "resource_id": e.resource_id, "bounds": list(e.bounds)}
    out.update({k: True for k in ("clickable", "scrollable", "checkable", "checked",
                                   "focused", "editable", "password") if getattr(e, k)})
    return out


WaitOpt = typer.Option(False, "--wait", help="Wait for the screen to settle afterwards.")
NORM_FORM = "x,y in 0–1000 units (0,0 top left, 1000,1000 bottom right)"


def _run(device: str | None, driver: str, action: dict[str, Any], wait: bool = False,
         yes: bool = False, allow: list[str] | None = None) -> None:
    """Run one action the way a run does (:meth:`Driver.execute`) and print its outcome.

    Without ``wait`` the command returns once the input is sent, like ``adb shell input``;
    the screen is observed only when the target needs it (text, id, description) or the
    choke point must see where the input lands. A sensitive input is asked about at the
    terminal, else held: exit 5 (:mod:`omg_agent.cli.device_gate`).
    """
    from omg_agent.core.actions import parse_action
    from omg_agent.drivers.executor import needs_screen

    try:
        act = parse_action(action)
    except ValueError as exc:  # pydantic's ValidationError is a ValueError
        fail(validation_message(exc))
    from omg_agent.cli.lease import driving

    with driving(device, f"omg-agent {act.type}") as serial:  # input: the phone's lease
        drv = open_driver(serial, driver, looks=wait or needs_screen(act),
                          judge=device_judge(str(serial), yes=yes, allow=allow))
        if not wait and hasattr(drv, "settle_timeout"):  # both drivers have it
            setattr(drv, "settle_timeout", 0.0)  # noqa: B010 (0: no capture, no settling)
        try:
            result: ExecResult = drv.execute([act])
        except OmgError as exc:
            fail(str(exc))
        finally:
            drv.close()
    exit_if_held(result)
    for o in result.outcomes:
        mark = "[green]ok[/green]" if o.ok else "[red]failed[/red]"
        console.print(f"{mark} {o.detail or o.action.type}", highlight=False)
    if not result.ok:
        raise typer.Exit(1)


def parse_point(text: str, option: str = "--point") -> dict[str, Any]:
    """``"x,y"`` in 0–1000 units as a point target; a one-line error otherwise."""
    try:
        x, y = (int(v) for v in text.split(","))
    except ValueError:
        fail(f"{option} must be {NORM_FORM}, got {text!r}")
    if not (0 <= x <= 1000 and 0 <= y <= 1000):
        fail(f"{option} {text} is off the screen: give {NORM_FORM}")
    return {"kind": "point", "x": x, "y": y}


def _target(text: str | None, element: int | None, point: str | None, desc: str | None,
            resource_id: str | None) -> dict[str, Any]:
    given = [t for t in (text, element, point, desc, resource_id) if t is not None]
    if len(given) != 1:
        fail("give exactly one of --text, --id, --point, --desc, --resource-id")
    if point is not None:
        return parse_point(point)
    if element is not None:
        return {"kind": "element", "id": element}
    key = "text" if text is not None else "desc" if desc is not None else "resource_id"
    return {"kind": "anchor", key: text or desc or resource_id}


TextOpt = typer.Option(None, "--text", help="Visible text of the target.")
IdOpt = typer.Option(None, "--id", help="Element id from `observe`.")
PointOpt = typer.Option(None, "--point", help="x,y in 0–1000 units.")
DescOpt = typer.Option(None, "--desc", help="Content description.")
ResIdOpt = typer.Option(None, "--resource-id", help="Resource id.")


def tap(
    text: str | None = TextOpt,
    element: int | None = IdOpt,
    point: str | None = PointOpt,
    desc: str | None = DescOpt,
    resource_id: str | None = ResIdOpt,
    device: str | None = DeviceOpt,
    driver: str = DriverOpt,
    wait: bool = WaitOpt,
    yes: bool = YesOpt,
    allow: list[str] = AllowOpt,
) -> None:
    """Tap an element by text, id, description, resource id or a 0–1000 point. A tap on a
    sensitive control (Pay, Send, Delete, …) asks first; exit 5 with no terminal.

    Example: omg-agent tap --text "设置"

    Example: omg-agent tap --id 7

    Example: omg-agent tap --point 500,500
    """
    target = _target(text, element, point, desc, resource_id)
    _run(device, driver, {"type": "tap", "target": target}, wait, yes, allow)


def long_press(
    text: str | None = TextOpt,
    element: int | None = IdOpt,
    point: str | None = PointOpt,
    desc: str | None = DescOpt,
    resource_id: str | None = ResIdOpt,
    duration: int = typer.Option(800, "--duration", help="Hold time, ms (300–10000)."),
    device: str | None = DeviceOpt,
    driver: str = DriverOpt,
    wait: bool = WaitOpt,
    yes: bool = YesOpt,
    allow: list[str] = AllowOpt,
) -> None:
    """Touch and hold an element or a 0–1000 point.

    Example: omg-agent long-press --text "Notes" --duration 1200
    """
    target = _target(text, element, point, desc, resource_id)
    _run(device, driver, {"type": "long_press", "target": target, "duration_ms": duration},
         wait, yes, allow)


def swipe(
    direction: str | None = typer.Argument(
        None, help="up, down, left or right ('up' reveals content further down)."),
    distance: int = typer.Option(500, "--distance", help="With a direction: 50–1000 units."),
    start: str | None = typer.Option(None, "--from", help="Start point x,y (0–1000)."),
    end: str | None = typer.Option(None, "--to", help="End point x,y (0–1000)."),
    duration: int = typer.Option(300, "--duration", help="Swipe time, ms (50–5000)."),
    device: str | None = DeviceOpt,
    driver: str = DriverOpt,
    wait: bool = WaitOpt,
    yes: bool = YesOpt,
    allow: list[str] = AllowOpt,
) -> None:
    """Swipe by direction, or from one point to another (a swipe that barely moves is a
    tap, and is judged as one).

    Example: omg-agent swipe up

    Example: omg-agent swipe --from 500,800 --to 500,200
    """
    action: dict[str, Any] = {"type": "swipe", "duration_ms": duration}
    if direction is not None:
        if start is not None or end is not None:
            fail("give a direction or --from/--to, not both")
        if direction.lower() not in ("up", "down", "left", "right"):
            fail(f"unknown direction {direction!r}: use up, down, left or right")
        action.update(direction=direction.lower(), distance=distance)
    elif start is not None and end is not None:
        action.update({"from": parse_point(start, "--from"), "to": parse_point(end, "--to")})
    else:
        fail("give a direction (up, down, left, right) or both --from x,y and --to x,y")
    _run(device, driver, action, wait, yes, allow)


def type_text(
    text: str = typer.Argument(..., help="Text to type (any unicode)."),
    clear: bool = typer.Option(False, "--clear", help="Empty the field first."),
    submit: bool = typer.Option(False, "--submit", help="Press enter afterwards."),
    device: str | None = DeviceOpt,
    driver: str = DriverOpt,
    wait: bool = WaitOpt,
    yes: bool = YesOpt,
    allow: list[str] = AllowOpt,
) -> None:
    """Type text into the focused field.

    Example: omg-agent type "价格 ¥3,599" --clear
    """
    _run(device, driver, {"type": "type", "text": text, "clear": clear, "submit": submit},
         wait, yes, allow)


def key(
    name: str = typer.Argument(..., help="back, home, enter, delete, recents, … or a keycode."),
    device: str | None = DeviceOpt,
    driver: str = DriverOpt,
    wait: bool = WaitOpt,
    yes: bool = YesOpt,
    allow: list[str] = AllowOpt,
) -> None:
    """Press a key. A key that activates the focused control (enter, space, D-pad centre,
    or a key the gate does not know) is judged on that control: on Pay it asks first.

    Example: omg-agent key back
    """
    from omg_agent.core.keys import HARMLESS_KEYCODES, keycode
    from omg_agent.drivers.desktop import is_desktop

    try:
        harmless = keycode(name) in HARMLESS_KEYCODES
    except ValueError:
        harmless = False  # a hotkey, or a bad name (the action's parser says which)
    if wait or driver == "u2" or is_desktop(device) or not harmless:
        _run(device, driver, {"type": "key", "key": name}, wait, yes, allow)
        return
    _press(device, driver, name)  # back, home, …: nothing on the screen can take it


def _press(device: str | None, driver: str, name: str) -> None:
    """``key`` without ``--wait`` as ``adb shell input keyevent`` costs: the key named by
    the action's own table (:mod:`omg_agent.core.keys`), one ``input keyevent`` through
    :class:`~omg_agent.drivers.adbio.AdbIO` (the ADB driver's device calls, drops ridden
    out the same way), and none of the driver's imports (action models, perception), probes
    or settling — what :meth:`Driver.execute` does for a key when nothing waits."""
    from omg_agent.core.keys import keycode
    from omg_agent.drivers.adbio import AdbIO, failure_text
    from omg_agent.drivers.commands import keyevent

    try:
        code = keycode(name)
    except ValueError as exc:
        fail(str(exc))
    if driver not in ("adb", "auto"):
        fail(f"unknown driver {driver!r}: choose adb, u2 or auto")
    from omg_agent.cli.lease import driving

    with driving(device, "omg-agent key") as serial:
        io = AdbIO(adbutils.AdbClient(), str(serial))
        try:
            result = io.run_status(keyevent(code), label=f"key {code}")
        except OmgError as exc:
            fail(str(exc))
    if result.status != 0:
        console.print(f"[red]failed[/red] {failure_text(result.text(), result.status)}",
                      highlight=False)
        raise typer.Exit(1)
    say_ok(f"key (keycode {code})")


def launch(
    app: str = typer.Argument(..., help="App name (English or Chinese) or package."),
    device: str | None = DeviceOpt,
    driver: str = DriverOpt,
) -> None:
    """Open an app by name or package.

    Example: omg-agent launch Notes

    Example: omg-agent launch 设置
    """
    from omg_agent.cli.lease import driving

    with driving(device, "omg-agent launch") as serial:
        drv = open_driver(serial, driver, looks=False)  # auto: the ADB driver, no u2 server
        try:
            drv.launch(app)
            package, activity = drv.current_app()
        except OmgError as exc:
            fail(str(exc))
        finally:
            drv.close()
    console.print(f"[green]ok[/green] {package}/{activity}")


def register(root: typer.Typer) -> None:
    """Add the device commands to the ``omg-agent`` app."""
    root.command()(devices)
    root.command()(observe)
    root.command()(tap)
    root.command(name="type")(type_text)
    root.command()(key)
    root.command()(launch)
    root.command()(swipe)
    root.command(name="long-press")(long_press)
    from omg_agent.cli.capture import dump, screenshot

    root.command()(screenshot)
    root.command()(dump)
