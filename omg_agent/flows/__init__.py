"""Flows: readable YAML of anchored steps that run with no model, and the replay cache.

``model`` (the data), ``parse`` (our YAML and the Maestro subset, and writing it back),
``select`` (a selector on one screen, through the one anchor matcher), ``replay`` (the
runner), ``session`` (a replay wired like a run: secrets, gate, trace, report), ``record``,
``recorder_cli`` and ``fromtrace`` (where flows come from), ``store`` (versioned files,
atomic writes), ``cache`` (``omg-agent run`` replays a task it completed before).
DESIGN.md §7. Shipped flows live in ``omg_agent/assets/flows/``, named ``builtin:NAME``
(:mod:`.builtin`).
"""

from omg_agent.errors import FlowError
from omg_agent.flows.model import Command, Flow, Selector
from omg_agent.flows.parse import load_flow, parse_flow
from omg_agent.flows.write import dump_flow

__all__ = ["Command", "Flow", "FlowError", "Selector", "dump_flow", "load_flow", "parse_flow"]
