"""Files a user hands us — flows and plans — read and parsed within stated limits.

Every YAML or JSON file a user gives OMG-Agent as a flow or a plan goes through
:func:`load_documents` (one rule, one place). A hostile or broken file must fail fast
with one line naming the limit it broke, never hang or eat memory:

* :data:`MAX_BYTES` — the file is opened without blocking and must be a regular file
  (``/dev/zero``, a FIFO or a socket is refused before any read); at most the limit plus
  one byte is read, so an endless source cannot keep us reading;
* :data:`MAX_DEPTH` — lists and mappings nested deeper than this (counted through aliases);
* :data:`MAX_NODES` — YAML nodes after alias expansion: a "billion laughs" document of a
  few KB whose aliases expand to 10⁹ entries is refused while its events stream by, with
  the size of each anchored node counted once (memoised), before anything is built;
  a recursive alias (a node that contains itself) is refused too.

JSON is YAML here (a JSON file parses as YAML), so plans and flows in either form pass the
same checks. Callers add their own limits on what the documents mean (a flow's steps, a
plan's steps). Beside ``config.py`` in the layers: no device, no model.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from omg_agent.errors import ConfigError

MAX_BYTES = 1 << 20  # 1 MiB: a hand-written flow of thousands of steps is ~100 KB
MAX_DEPTH = 64  # a flow's runFlow → repeat → commands nesting is ~4 YAML levels a level
MAX_NODES = 100_000  # after alias expansion

# libyaml when present (fast enough that a 1 MiB file is read in well under a second)
_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class Limits:
    max_bytes: int = MAX_BYTES
    max_depth: int = MAX_DEPTH
    max_nodes: int = MAX_NODES


def read_text(path: Path, what: str, limits: Limits = Limits(),
              error: type[ConfigError] = ConfigError) -> str:
    """The UTF-8 text of the regular file ``path``, at most ``limits.max_bytes`` long.
    ``what`` names the file in messages ("flow file"); ``error`` is the type raised."""
    try:  # O_NONBLOCK: opening a FIFO with no writer returns at once instead of hanging
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise error(f"{what} {path} does not exist") from None
    except OSError as exc:
        raise error(f"{what} {path} cannot be read: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise error(f"{what} {path} is a folder: give a YAML file")
        if not stat.S_ISREG(mode):
            raise error(f"{what} {path} is not a regular file (a device, pipe or socket): "
                        "give a YAML file")
        data = _read_at_most(fd, limits.max_bytes + 1)
    except OSError as exc:
        raise error(f"{what} {path} cannot be read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(data) > limits.max_bytes:
        raise error(f"{what} {path} is larger than the limit of {_size(limits.max_bytes)}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise error(f"{what} {path} is not UTF-8 text: give a YAML file") from None


def _read_at_most(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    got = 0
    while got < limit:
        chunk = os.read(fd, min(1 << 16, limit - got))
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def load_documents(text: str, what: str, limits: Limits = Limits(),
                   error: type[ConfigError] = ConfigError) -> list[Any]:
    """The YAML documents of ``text`` (empty ones dropped), once :func:`check_shape` found
    it within ``limits``. ``what`` names the source in messages."""
    if len(text) > limits.max_bytes:  # text given directly, not read by read_text
        raise error(f"{what} is larger than the limit of {_size(limits.max_bytes)}")
    try:
        check_shape(text, what, limits, error)
        return [d for d in yaml.load_all(text, Loader=_LOADER) if d is not None]
    except yaml.YAMLError as exc:
        raise error(f"{what}: not valid YAML: {_one_line(exc)}") from None


def load_file(path: Path, what: str, limits: Limits = Limits(),
              error: type[ConfigError] = ConfigError) -> list[Any]:
    """:func:`read_text` then :func:`load_documents`: the documents of the file ``path``."""
    return load_documents(read_text(path, what, limits, error), f"{what} {path}", limits,
                          error)


def check_shape(text: str, what: str, limits: Limits = Limits(),
                error: type[ConfigError] = ConfigError) -> None:
    """Refuse ``text`` if its nesting or its size after alias expansion passes ``limits``.

    Streams the parser's events (no tree is built, nothing recurses): each open list or
    mapping is a frame counting the nodes under it; an anchored node's count and height are
    kept when it closes, so an alias adds them in one step however often it is used.
    """
    sizes: dict[str, tuple[int, int]] = {}  # anchor -> (nodes, height)
    frames: list[list[Any]] = []  # [anchor, nodes, height of the tallest child]
    total = 0

    def add(nodes: int, height: int) -> None:
        nonlocal total
        if frames:
            frames[-1][1] += nodes
            frames[-1][2] = max(frames[-1][2], height)
            count = frames[-1][1]
        else:
            total += nodes
            count = total
        if count > limits.max_nodes or total > limits.max_nodes:
            raise error(f"{what}: more than {limits.max_nodes:,} YAML nodes once its aliases "
                        "are expanded (the limit); write the steps out or use repeat")
        if len(frames) + height > limits.max_depth:
            raise error(f"{what}: nested more than {limits.max_depth} levels deep (the limit)")

    for event in yaml.parse(text, Loader=_LOADER):
        if isinstance(event, yaml.CollectionStartEvent):
            frames.append([event.anchor, 1, 0])
            if len(frames) > limits.max_depth:
                raise error(f"{what}: nested more than {limits.max_depth} levels deep "
                            "(the limit)")
        elif isinstance(event, yaml.CollectionEndEvent):
            anchor, nodes, height = frames.pop()
            if anchor is not None:
                sizes[anchor] = (nodes, height + 1)
            add(nodes, height + 1)
        elif isinstance(event, yaml.ScalarEvent):
            if event.anchor is not None:
                sizes[event.anchor] = (1, 0)
            add(1, 0)
        elif isinstance(event, yaml.AliasEvent):
            if any(f[0] == event.anchor for f in frames):
                raise error(f"{what}: the alias *{event.anchor} refers to a node that "
                            "contains it (a recursive alias is not accepted)")
            add(*sizes.get(event.anchor or "", (1, 0)))  # undefined: the loader names it


def _one_line(exc: yaml.YAMLError) -> str:
    problem = getattr(exc, "problem", None)
    mark = getattr(exc, "problem_mark", None)
    if problem and mark is not None:
        return f"{problem} (line {mark.line + 1}, column {mark.column + 1})"
    return " ".join(str(exc).split())


def _size(n: int) -> str:
    return f"{n // (1 << 20)} MiB" if n % (1 << 20) == 0 else f"{n:,} bytes"


__all__ = ["MAX_BYTES", "MAX_DEPTH", "MAX_NODES", "Limits", "check_shape", "load_documents",
           "load_file", "read_text"]
