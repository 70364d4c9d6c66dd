"""Stable fake identifiers (pids, uids, task ids, object hashes) for a package or window.

Real ``dumpsys``/``ps`` output is full of them; deriving them from the package name keeps
``ps``, ``dumpsys activity top`` and ``dumpsys window`` consistent with each other and stable
across runs, which makes outputs easy to assert on.
"""

from __future__ import annotations

import zlib
from typing import Any


def _crc(text: str) -> int:
    return zlib.crc32(text.encode("utf-8"))


def object_hash(text: str) -> str:
    """A 7-hex-digit identity hash like ``Window{a1b2c3d ...}``."""
    return f"{_crc(text) & 0xFFFFFFF:07x}"


def pid_of(package: str) -> int:
    return 2000 + _crc(package) % 28000


def uid_of(package: str) -> int:
    return 10000 + _crc("uid:" + package) % 300


def user_name(package: str) -> str:
    return f"u0_a{uid_of(package) - 10000}"


def task_id(package: str) -> int:
    return 10 + _crc("task:" + package) % 90


def running_apps(phone: Any) -> dict[str, int]:
    """App processes that run, package → pid (the foreground app always has one)."""
    running = phone.procs.running()
    package, activity = phone.focus()
    if package not in running and package in phone.packages():
        running[package] = phone.procs.start(package, activity)
    return running


def app_pid(phone: Any, package: str) -> int:
    """The pid of ``package``'s process as ``ps`` shows it (stable fallback if not running)."""
    return running_apps(phone).get(package, pid_of(package))
