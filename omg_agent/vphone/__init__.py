"""The virtual phone: an Android phone in a process, speaking the real ADB protocol.

A device, not part of the agent: it imports only :mod:`omg_agent.errors`, and the agent's
layers below the simulator (:mod:`omg_agent.sim`) never import it (the import-linter
contracts in pyproject.toml; docs/architecture.md).
It is a regular package (not a namespace one) so that the docs site's API reference finds
its modules; docs/guide/vphone.md shows how to use it.
"""
