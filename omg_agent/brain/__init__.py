"""The brain: model client and contracts in use, memory, prompts (DESIGN.md §1, L1–L3).

- ``llm``: :class:`~omg_agent.brain.llm.LLMClient` — any OpenAI-compatible endpoint,
  structured replies validated against ``omg_agent.core.contracts``, retries, accounting.
- ``structured``: reply parsing and the feedback sent back for an invalid reply.
- ``vision``: screenshots as downscaled JPEG data URLs, the compact element list.
- ``memory``: :class:`~omg_agent.brain.memory.MemoryBank` (L3), sqlite, ``$key`` substitution.
- ``prompts``: the markdown prompt templates and their loader.

The planner (L1), operator (L2) and orchestrator build on these.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from omg_agent.brain.call_record import CallRecord, UsageTotals
    from omg_agent.brain.llm import LLMClient
    from omg_agent.brain.memory import MemoryBank, MemoryItem

# imported on first use: ``omg-agent memory list`` needs the memory bank, not the model
# client (the openai package alone takes seconds to import)
_HOMES = {"CallRecord": "call_record", "UsageTotals": "call_record", "LLMClient": "llm",
          "MemoryBank": "memory", "MemoryItem": "memory"}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)


__all__ = ["CallRecord", "LLMClient", "MemoryBank", "MemoryItem", "UsageTotals"]
