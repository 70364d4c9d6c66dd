"""The brain: model client and contracts in use, memory, prompts (DESIGN.md §1, L1–L3).

- ``llm``: :class:`~omg_agent.brain.llm.LLMClient` — any OpenAI-compatible endpoint,
  structured replies validated against ``omg_agent.core.contracts``, retries, accounting.
- ``structured``: reply parsing and the feedback sent back for an invalid reply.
- ``vision``: screenshots as downscaled JPEG data URLs, the compact element list.
- ``memory``: :class:`~omg_agent.brain.memory.MemoryBank` (L3), sqlite, ``$key`` substitution.
- ``prompts``: the markdown prompt templates and their loader.

The planner (L1), operator (L2) and orchestrator build on these.
"""

from omg_agent.brain.call_record import CallRecord, UsageTotals
from omg_agent.brain.llm import LLMClient
from omg_agent.brain.memory import MemoryBank, MemoryItem

__all__ = ["CallRecord", "LLMClient", "MemoryBank", "MemoryItem", "UsageTotals"]
