"""Macros: repeated patterns of a run, detected, compiled to batched ``adb shell`` calls,
run with checkpoints (DESIGN.md §7, issue 15).

* :mod:`.items` — repeated items on one screen (anchor, band, fields);
* :mod:`.model` — :class:`~.model.Macro` and its :class:`~.model.Stop` condition;
* :mod:`.detect` — the detector, online (operator turns) and offline (trace folders);
* :mod:`.compile` — a macro on the screen now → the next chunk of shell commands, and the
  checkpoint that judges the screen after it;
* :mod:`.runner` — chunk, shell call, checkpoint, repeat; a :class:`~.runner.MacroReport`;
* :mod:`.session` — the operator's hook: watch turns, offer, run an accepted macro;
* :mod:`.store` — macros on disk per app and device profile, versioned, atomic.

Flows and the replay cache (the anchored YAML form, runnable with no model) live beside
this package in :mod:`omg_agent.flows`.
"""

from omg_agent.macros.detect import Act, Detection, acts_of_trace, detect
from omg_agent.macros.model import Macro, Stop, Target
from omg_agent.macros.runner import MacroReport, MacroRunner
from omg_agent.macros.session import MacroSession
from omg_agent.macros.store import MacroStore

__all__ = ["Act", "Detection", "Macro", "MacroReport", "MacroRunner", "MacroSession",
           "MacroStore", "Stop", "Target", "acts_of_trace", "detect"]
