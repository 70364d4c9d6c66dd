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

Where files may lead: :func:`inside` is the one containment rule — a path a file names (a
fleet task's folder, a flow's ``runFlow``, the MCP client's ``run_flow``) resolved, symlinks
followed, must stay under its folder. :func:`user_config_dir` is the user's own config
folder (``$XDG_CONFIG_HOME/omg-agent``, ``%APPDATA%\\omg-agent``, ``~/.config/omg-agent``): an
``omg.toml`` there is the user's; one anywhere else came with a folder (see ``config.py``).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from omg_agent.errors import ConfigError, UnsafeSetting

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
        raise error(f"{what} {path} cannot be read: {exc.strerror or exc}") from exc
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise error(f"{what} {path} is a folder: give a YAML file")
        if not stat.S_ISREG(mode):
            raise error(f"{what} {path} is not a regular file (a device, pipe or socket): "
                        "give a YAML file")
        data = _read_at_most(fd, limits.max_bytes + 1)
    except OSError as exc:
        raise error(f"{what} {path} cannot be read: {exc.strerror or exc}") from exc
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


def inside(root: Path, given: Path | str) -> Path | None:
    """``given`` (relative to ``root``, or absolute) resolved with its symlinks, when it lies
    under ``root`` resolved; ``None`` when it leads out (``..``, an absolute path elsewhere,
    a link pointing out)."""
    base = Path(root).resolve()
    try:
        path = (base / given).resolve()
    except (OSError, RuntimeError, ValueError):  # a symlink loop, a NUL in the name
        return None
    return path if path == base or path.is_relative_to(base) else None


def user_config_dir(env: Mapping[str, str]) -> Path | None:
    """The user's own config folder for OMG-Agent, from ``env`` (None: no home is known)."""
    for var, tail in (("XDG_CONFIG_HOME", ""), ("APPDATA", ""), ("HOME", ".config")):
        value = env.get(var, "").strip()
        if value and Path(value).is_absolute():
            return Path(value) / tail / "omg-agent"
    return None


CONFIG_FILE = Path("omg.toml")


def _path_or_none(text: str | None) -> Path | None:
    return Path(text.strip()) if text and text.strip() else None


def config_files(env: Mapping[str, str], given: Path | None = None) -> list[tuple[Path, bool]]:
    """The TOML files to read, weakest first, each with whether it is the user's own: the
    file the user named (``config_file``, ``$OMG_CONFIG``) alone; else the one in their
    config dir, then ``./omg.toml`` — the user's only when it lies in that dir."""
    path = given or _path_or_none(env.get("OMG_CONFIG"))
    if path is not None:
        return [(path, True)]
    home = user_config_dir(env)
    files: list[tuple[Path, bool]] = []
    if home is not None and (home / CONFIG_FILE).is_file():
        files.append((home / CONFIG_FILE, True))
    if CONFIG_FILE.is_file():
        own = home is not None and inside(home, CONFIG_FILE.resolve()) is not None
        if not (own and files):  # the same file, read once
            files.append((CONFIG_FILE, own))
    return files


# Settings a file outside the user's config dir may set without asking: they neither lower
# safety nor send anything (the API key, screens, secrets) elsewhere. Every other setting —
# gate, allow, base_url, api_key, mcp_token, and any added later until it is listed here —
# is asked about at a terminal, or refused (default deny); three only when they lower it.
HARMLESS = frozenset({
    "model", "planner_model", "operator_model", "timeout_s", "max_retries",
    "retry_backoff_s", "retry_backoff_max_s", "parse_attempts", "strict_schema",
    "image_max_side", "jpeg_quality", "max_steps", "run_timeout_s", "device_grace_s",
    "runs_dir", "memory_db", "long_term_memory", "secrets", "planning", "dialect", "vision",
    "auto_verify", "loop_guard"})
_OFF = ("false", "0", "no", "off", "never")
_LOWERS: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "gate": ("turns the gate off", lambda v: str(v).strip().lower() in _OFF),
    "confirm_done": ("skips the check of a claimed done",
                     lambda v: str(v).strip().lower() in _OFF),
    # a network serial (HOST:PORT, SERIAL@HOST:PORT) is a phone someone else may hold
    "device": ("drives a phone over the network", lambda v: any(c in str(v) for c in "@:")),
}
_WHAT = {"allow": "pre-authorises sensitive actions", "base_url": "sends your API key to "
         "its own endpoint", "api_key": "sets the API key your screens are sent with"}


def lowering(values: Mapping[str, Any]) -> dict[str, str]:
    """Each setting of ``values`` that lowers safety, with what it does in words."""
    said = {}
    for name, value in values.items():
        if name in HARMLESS or (name == "allow" and not str(value).strip()):
            continue
        what, lowers = _LOWERS.get(name, (_WHAT.get(name, f"sets {name}"), lambda v: True))
        if lowers(value):
            said[name] = what
    return said


def refuse_unsafe(path: Path, values: Mapping[str, Any], sources: Mapping[str, str],
                  confirm: Callable[[str], bool] | None) -> None:
    """Refuse what ``path`` (a file outside the user's config dir) sets that lowers safety
    and is still in force (no variable or option of the user's replaced it), unless
    ``confirm`` — the user at a terminal — says yes to it. Names keys, never values."""
    said = lowering({name: values[name] for name, where in sources.items()
                     if where == f"{path}: {name}"})
    if not said:
        return
    where = f"{path.name} in {path.resolve().parent}"
    if confirm is not None and confirm(f"{where} {', '.join(said.values())}. Allow? (yes/no)"):
        return
    raise UnsafeSetting(f"{where} may not set {', '.join(sorted(said))} (a file outside your "
                        "config dir cannot lower safety): set it with an OMG_* variable or an "
                        "option, or in your own config file (OMG_CONFIG=PATH)")


# a quoted part of the parser's message longer than a token (',', '\t', '<stream end>'):
# an alias name or a scalar of the file, never echoed
_QUOTED = re.compile(r"'(?!<)[^'\s]{3,}'")


def _one_line(exc: yaml.YAMLError) -> str:
    problem = getattr(exc, "problem", None)
    mark = getattr(exc, "problem_mark", None)
    if problem and mark is not None:
        problem = _QUOTED.sub("(a name of the file)", str(problem))
        return f"{problem} (line {mark.line + 1}, column {mark.column + 1})"
    return "the parser gave no line"


def _size(n: int) -> str:
    return f"{n // (1 << 20)} MiB" if n % (1 << 20) == 0 else f"{n:,} bytes"


__all__ = ["CONFIG_FILE", "HARMLESS", "MAX_BYTES", "MAX_DEPTH", "MAX_NODES", "Limits",
           "check_shape", "config_files", "inside", "load_documents", "load_file", "lowering",
           "read_text", "refuse_unsafe", "user_config_dir"]
