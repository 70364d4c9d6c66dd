"""Whose phone is it: the user an adb device on this machine belongs to.

One adb server per machine serves every user: ``adb devices`` lists the vphones and
emulators of everyone logged in. A phone reached over TCP on this host (a vphone, an
emulator, ``adb connect 127.0.0.1:PORT``) belongs to the user whose process listens on its
port — the kernel says so in ``/proc/net/tcp`` and ``/proc/net/tcp6`` (the ``uid`` column of
the listening socket). A USB phone, a phone on another host, or a system without those
tables has no owner we can tell (None).

``omg-agent fleet resources`` offers this user's phones and the ones whose owner is unknown,
and names the rest with their users (:func:`split_by_owner`).
"""

from __future__ import annotations

import os
import pwd
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

TCP_TABLES = (Path("/proc/net/tcp"), Path("/proc/net/tcp6"))
_LISTEN = "0A"


def listener_uid(port: int, tables: Sequence[Path] = TCP_TABLES) -> int | None:
    """The uid of the process listening on TCP ``port`` (any address), or None (nobody
    listens, or the tables cannot be read)."""
    for table in tables:
        try:
            lines = table.read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) < 8 or fields[3] != _LISTEN:
                continue
            local_port = fields[1].rpartition(":")[2]
            if int(local_port, 16) == port and fields[7].isdigit():
                return int(fields[7])
    return None


def owner_of(serial: str, tables: Sequence[Path] = TCP_TABLES,
             resolve: Callable[[str], str] | None = None) -> int | None:
    """The uid the phone behind ``serial`` belongs to, when this host serves it over TCP
    (``127.0.0.1:5555``, ``localhost:5555``, ``emulator-5554``); None otherwise."""
    from omg_agent.drivers.lease import device_key

    host, _, port = device_key(serial, resolve).rpartition(":")
    if host != "127.0.0.1" or not port.isdigit():
        return None
    return listener_uid(int(port), tables)


def user_name(uid: int) -> str:
    """The login name of ``uid`` (its number when the system has no name for it)."""
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def split_by_owner(serials: Iterable[str], uid: int | None = None,
                   tables: Sequence[Path] = TCP_TABLES,
                   resolve: Callable[[str], str] | None = None
                   ) -> tuple[list[str], list[str], dict[str, str]]:
    """(this user's, owner unknown, other users' as serial → user name)."""
    me = os.getuid() if uid is None else uid
    mine: list[str] = []
    unknown: list[str] = []
    others: dict[str, str] = {}
    for serial in serials:
        owner = owner_of(serial, tables, resolve)
        if owner is None:
            unknown.append(serial)
        elif owner == me:
            mine.append(serial)
        else:
            others[serial] = user_name(owner)
    return mine, unknown, others


__all__ = ["listener_uid", "owner_of", "split_by_owner", "user_name"]
