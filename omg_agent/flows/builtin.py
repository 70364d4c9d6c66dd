"""Flows shipped with the package, named ``builtin:NAME`` (the files of
``omg_agent/assets/flows``), so a command copied from the docs runs from any folder."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from omg_agent.errors import FlowError

PREFIX = "builtin:"


def builtin_names() -> list[str]:
    """The shipped flows' names, sorted."""
    folder = resources.files("omg_agent.assets.flows")
    return sorted(p.name.removesuffix(".yaml") for p in folder.iterdir()
                  if p.name.endswith(".yaml"))


def flow_path(spec: str) -> Path:
    """The file ``spec`` names: ``builtin:NAME`` a shipped flow, anything else a path."""
    if not spec.startswith(PREFIX):
        return Path(spec)
    name = spec[len(PREFIX):].removesuffix(".yaml")
    if name not in builtin_names():
        raise FlowError(f"no built-in flow {name!r}; built-in: "
                        + ", ".join(PREFIX + n for n in builtin_names()))
    return Path(str(resources.files("omg_agent.assets.flows") / f"{name}.yaml"))


__all__ = ["PREFIX", "builtin_names", "flow_path"]
