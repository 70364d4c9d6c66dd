"""Launching an app by the label of its icon on the home screen: what the executor does with
a ``launch`` whose name is neither an alias nor an installed package."""

from __future__ import annotations

from collections.abc import MutableMapping

from omg_agent.core.actions import AnchorTarget, Launch
from omg_agent.drivers import commands as cmds
from omg_agent.drivers.ports import ActionPort, Device, Planned, PortFailed
from omg_agent.errors import ActionRejected
from omg_agent.perception.anchor import match_anchor


class LaunchFailed(Exception):
    """The app could not be launched by its label (the message says why)."""


def launch_by_label(device: Device, port: ActionPort, plan: Planned,
                    learned: MutableMapping[str, str]) -> str:
    """Go home, find the icon labelled like the app, tap it, remember its package in
    ``learned``; raises :class:`LaunchFailed` saying why not."""
    assert isinstance(plan.action, Launch)
    app = plan.action.app
    port.begin(plan.index)
    port.key(cmds.KEY_HOME)
    _run_now(port, "could not press home to find the app's icon")
    device.wait_settled()
    obs = device.observe()
    found = (match_anchor(AnchorTarget(text=app.strip()), obs.elements,
                          obs.screen.safe_zone) if app.strip() else None)
    icon = found.host if found is not None else None  # the clickable icon
    if icon is None:
        labels = sorted({e.label for e in obs.elements if e.clickable and e.label})
        raise LaunchFailed(f"no app called {app!r}: not a package, not an alias, "
                           f"not on the home screen ({', '.join(labels[:20])})")
    plan.point, plan.source = icon.center, "tree"
    port.begin(plan.index)
    port.tap(icon.center)
    _run_now(port, f"tapping the {app!r} icon failed")
    device.wait_settled(previous=obs.screen_hash)
    package, _ = device.current_app()
    if package and package != obs.package:
        learned[app] = package
    return f"tapped {app!r} on the home screen -> {package or 'unknown'}"


def _run_now(port: ActionPort, why: str) -> None:
    try:
        port.batch()
    except (PortFailed, ActionRejected):
        raise LaunchFailed(why) from None
