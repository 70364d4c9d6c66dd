"""OMG-Agent: automate an Android phone (and a desktop) from a plain-language task.

The package is layered as DESIGN.md describes: drivers and perception at the bottom, the
brain (planner, operator, memory) on top, guards around it, and ``vphone`` — a virtual phone
speaking the real ADB protocol — as the device every test and demo can run on.

The public API is what this module exports (``__all__``; docs/python-api.md shows it on
one page); names load on first use so that importing ``omg_agent`` stays cheap::

    from omg_agent import start_vphone

    with start_vphone() as phone:           # or: with connect("emulator-5554") as phone
        phone.tap(text="Settings")          # by anchor: text, resource_id, desc, or point
        result = phone.run("Turn off Wi-Fi", model="sim")
        print(result.status, result.report)
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "connect": "omg_agent.phone",
    "start_vphone": "omg_agent.phone",
    "Phone": "omg_agent.phone",
    "TaskResult": "omg_agent.phone",
    "Acted": "omg_agent.phone",
    "ActionHeld": "omg_agent.phone",
    "TerminalChannel": "omg_agent.guards.confirmation",
    "ConfirmationRequest": "omg_agent.guards.confirmation",
    "FlowResult": "omg_agent.flows.model",
    "DeviceBusy": "omg_agent.errors",
    "VirtualPhone": "omg_agent.vphone.phone",
    "AdbDriver": "omg_agent.drivers.adb",
    "U2Driver": "omg_agent.drivers.u2",
    "choose_driver": "omg_agent.drivers.select",
    "Observation": "omg_agent.core.observation",
    "UIElement": "omg_agent.core.observation",
    "parse_action": "omg_agent.core.actions",
    "Settings": "omg_agent.config",
    "LLMClient": "omg_agent.brain.llm",
    "MemoryBank": "omg_agent.brain.memory",
    "OmgError": "omg_agent.errors",
}

__all__ = [*_EXPORTS, "__version__"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'omg_agent' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
