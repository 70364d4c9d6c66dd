"""The prompts: markdown templates in this package, filled at call time (STYLE.md #7).

A template is ``<name>.md`` here, with ``{{field}}`` placeholders. :func:`render` fills them
every time it is called — ``{{date}}`` with today's date unless given — so nothing is frozen
at import (a long-running process crossing midnight gets the new date). A placeholder left
without a value, or a value for no placeholder, is an error: a typo must not ship a prompt
with a hole in it.

- ``operator`` — system prompt of the operator (L2): coordinates, element list, bundles,
  memory, ask_user / done, on-screen text is data.
- ``planner`` — system prompt of the planner (L1): milestones, no coordinates.
- ``replan`` — system prompt of the planner when it reviews progress.
- ``operator_bundles`` — bundles of several actions and plan steps: every mode but ``flat``
  (one action a turn, no plan steps: those rules would only contradict it).
- ``operator_flat`` / ``operator_unified`` — what the operator is told in addition when
  there is no planner (:func:`operator_system`).
- ``operator_desktop`` — what the operator is told in addition on a desktop.

The templates speak of a phone. On a desktop (``device="desktop"``) each is rendered through
:mod:`.desktop_words`, which swaps its phone sentences for desktop ones (click, window,
menu, keyboard shortcut) — every swap must find its sentence, so a template edited without
its desktop wording fails loudly — and the phone text stays byte for byte what it was.
"""

from __future__ import annotations

import re
from datetime import datetime
from importlib import resources
from typing import Literal

from omg_agent.brain.prompts.desktop_words import for_desktop

_FIELD = re.compile(r"\{\{\s*([A-Za-z_]\w*)\s*\}\}")
NAMES = ("operator", "planner", "replan", "operator_bundles", "operator_flat",
         "operator_unified", "operator_desktop")
Device = Literal["phone", "desktop"]
PLANNERLESS_RULES = {"flat": "operator_flat", "unified": "operator_unified"}


def template(name: str) -> str:
    """The raw text of ``<name>.md`` (read on each call; files are small)."""
    resource = resources.files(__package__).joinpath(f"{name}.md")
    if not resource.is_file():
        raise ValueError(f"no prompt named {name!r} (have: {', '.join(available())})")
    return resource.read_text(encoding="utf-8")


def available() -> list[str]:
    """Names of the prompt templates shipped in this package."""
    return sorted(p.name[:-3] for p in resources.files(__package__).iterdir()
                  if p.name.endswith(".md"))


def fields(name: str) -> set[str]:
    """The placeholders of template ``name``."""
    return set(_FIELD.findall(template(name)))


def today(now: datetime | None = None) -> str:
    """The date as prompts show it, e.g. ``2026-02-16 (Monday)``."""
    return (now or datetime.now()).strftime("%Y-%m-%d (%A)")


def device_of(driver: str) -> Device:
    """The device a driver (``DeviceInfo.driver``: adb, u2, desktop…) works: the prompts'
    words for it."""
    return "desktop" if driver == "desktop" else "phone"


def foreground_line(app: str, window: str, device: Device = "phone") -> str:
    """The turn's line naming where the agent is: the app (a phone's package and activity;
    a desktop's app and its window's title)."""
    if device == "desktop":
        return f"Foreground app: {app or '?'}" + (f' — window "{window}"' if window else "")
    return f"Foreground app: {app or '?'} {window}".rstrip()


def render(name: str, *, now: datetime | None = None, device: Device = "phone",
           **values: object) -> str:
    """Template ``name`` with every placeholder filled; ``date`` defaults to today; on a
    desktop in desktop words."""
    text = template(name)
    wanted = set(_FIELD.findall(text))
    if "date" in wanted and "date" not in values:
        values["date"] = today(now)
    unknown = set(values) - wanted
    if unknown:
        raise ValueError(f"prompt {name!r} has no placeholder(s) {', '.join(sorted(unknown))}")
    missing = wanted - set(values)
    if missing:
        raise ValueError(f"prompt {name!r} needs a value for {', '.join(sorted(missing))}")
    text = _FIELD.sub(lambda m: str(values[m.group(1)]), text)
    return for_desktop(name, text) if device == "desktop" else text


def operator_system(planning: str, now: datetime | None = None,
                    device: Device = "phone") -> str:
    """The operator's system prompt in planning mode ``planning``: the rules every mode
    shares, the bundle and plan-step rules unless one action a turn (``flat``), then —
    without a planner — who keeps the plan; on a desktop, how a desktop is worked."""
    parts = [render("operator", now=now, device=device)]
    if planning != "flat":
        parts.append(render("operator_bundles", device=device))
    if extra := PLANNERLESS_RULES.get(planning):
        parts.append(render(extra, device=device))
    if device == "desktop":
        parts.append(render("operator_desktop"))
    return "\n\n".join(p.rstrip("\n") for p in parts) + "\n"
