"""The virtual phone: an Android phone in a process, speaking the real ADB protocol.

A device, not part of the agent: it imports only :mod:`omg_agent.errors`, and the agent's
layers below the simulator (:mod:`omg_agent.sim`) never import it (the import-linter
contracts in pyproject.toml; docs/architecture.md).
"""
