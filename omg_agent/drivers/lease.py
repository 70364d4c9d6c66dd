"""Device leases: one agent drives a phone at a time.

Two drivers on one phone fight silently — two runs liking the same feed toggle each other's
likes and both report ``done``. A :class:`DeviceLease` is an OS-level lock
(:func:`fcntl.flock` on a small file) that whoever drives a phone holds for as long as it
drives: a run, a flow replay, the mirror's driver, an everyday ``tap`` for its moment. The
kernel releases it when the holding process dies, however it dies (SIGKILL included), so a
lease can never be left stale. The file also says who holds it — what command, which pid,
which run folder — so the one refused can name its holder in one line
(:class:`~omg_agent.errors.DeviceBusy`).

Leases are keyed by the device's identity (:func:`device_key`), not by the spelling of its
serial: ``127.0.0.1:5555``, ``localhost:5555``, ``0.0.0.0:5555``, ``[::]:5555``, this
host's own addresses and names, and ``emulator-5554`` (whose adbd listens on the console
port + 1) are one phone. Where the phone answers its adb server, its ``ro.serialno`` is a
second key (:func:`lease_keys`), so a phone seen under two serials (USB and Wi-Fi, or two
adb names) is one phone too; a lease holds all its keys' locks. They live in one folder per
user and machine that every environment of that user resolves the same way
(:func:`default_lease_dir`: ``/tmp/omg-agent-<uid>/leases``, 0700, from the process's uid,
never ``XDG_RUNTIME_DIR`` — cron, ``sudo -u``, service units and login shells agree — and for
root started by ``sudo``, the uid of the user who ran it, ``SUDO_UID``);
callers pass the folder explicitly. Only drivers take leases; what merely watches (the
mirror's viewers, ``observe``) shares or needs none.

Lock files are never deleted: removing a lock file while another process has it open would
let two processes each lock "the" file. A released lease leaves an empty file behind.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import ipaddress
import json
import os
import re
import socket
import stat
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omg_agent.errors import DeviceBusy, OmgError

_EMULATOR = re.compile(r"^emulator-(\d+)$")
_SAFE = re.compile(r"[^A-Za-z0-9._-]")
MAX_WHAT = 200  # characters of the holder's command kept in the file
FIRST_POLL_S = 0.05
MAX_POLL_S = 0.5


def lease_user() -> int:
    """The user whose lease folder this process uses: its own uid — or, for root started
    by ``sudo`` (``SUDO_UID``; ``sudo -i``, ``sudo -E`` alike), the user who ran sudo: the
    same person driving the same phones, whose runs must meet this one's leases."""
    uid = os.getuid()
    sudo = os.environ.get("SUDO_UID", "") if uid == 0 else ""
    return int(sudo) if sudo.isdigit() and int(sudo) > 0 else uid


def default_lease_dir(uid: int | None = None) -> Path:
    """Where leases live: ``/tmp/omg-agent-<uid>/leases`` (:func:`lease_user`; checked 0700
    and that user's). Not
    ``$XDG_RUNTIME_DIR``, which a login shell sets and cron, ``sudo`` and service units do
    not (each side would lock in its own folder), and not the home folder, which may be
    shared between machines over NFS while device addresses (``127.0.0.1:5555``) are per
    machine."""
    return Path("/tmp") / f"omg-agent-{lease_user() if uid is None else uid}" / "leases"  # noqa: S108


def device_key(serial: str, resolve: Callable[[str], str] | None = None) -> str:
    """The device's identity behind ``serial``: for a TCP serial ``ADDRESS:PORT`` with the
    host resolved (every loopback name is 127.0.0.1), an emulator as the TCP address of its
    adbd, anything else (a USB serial) as given."""
    emulator = _EMULATOR.match(serial)
    if emulator:
        return f"127.0.0.1:{int(emulator.group(1)) + 1}"
    host, sep, port = serial.rpartition(":")
    if not sep or not host or not port.isdigit():
        return serial
    address = (resolve or _resolve)(host.strip("[]"))
    return f"{address}:{int(port)}"


def _resolve(host: str) -> str:
    """One address for ``host`` (IPv4 first); a loopback address or name is 127.0.0.1; a
    name that does not resolve stays as it is (lower-cased)."""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        try:
            infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError):
            return host.lower()
        found = sorted({str(info[4][0]) for info in infos}, key=lambda a: ":" in a)
        if not found:
            return host.lower()
        ip = ipaddress.ip_address(found[0].split("%")[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    # 0.0.0.0 and :: (connecting to them reaches this host) and this host's own addresses
    # reach the same adb listener as 127.0.0.1
    if ip.is_loopback or ip.is_unspecified or _own_address(ip):
        return "127.0.0.1"
    return str(ip)


def _own_address(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether ``ip`` is an address of this host (one a socket can bind to)."""
    family = socket.AF_INET6 if ip.version == 6 else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.bind((str(ip), 0))
    except OSError:
        return False
    return True


def lease_keys(serial: str, serialno: str | None = None, server: str = "",
               resolve: Callable[[str], str] | None = None) -> tuple[str, ...]:
    """Every key of the phone behind ``serial``, sorted (the order locks are taken in, so
    two leases never wait on each other crosswise): its address key (on a remote adb
    ``server`` ``HOST:PORT``, qualified by it) and its ``ro.serialno`` when known. A USB
    serial is adb's name for the ``ro.serialno`` itself, so both spellings meet."""
    key = device_key(serial, resolve)
    if server:
        host, _, port = server.rpartition(":")
        key = f"{key}@{(resolve or _resolve)(host.strip('[]'))}:{port}"
    found = {key}
    if serialno and serialno.strip() and serialno.strip() not in ("unknown", "0123456789ABCDEF"):
        found.add(serialno.strip())
    return tuple(sorted(found))


def serialno_of(serial: str, client: object | None = None, timeout_s: float = 3.0
                ) -> str | None:
    """``ro.serialno`` of ``serial`` as its adb server answers (``client``: an
    ``adbutils.AdbClient``, default the local server); None when it does not answer."""
    import adbutils

    adb: Any = client or adbutils.AdbClient()
    try:
        # asked only of a device the server lists in state "device" (adbutils leaves a
        # socket open when a shell names an unknown one)
        if hasattr(adb, "device_list") and serial not in {d.serial for d in adb.device_list()}:
            return None
        answer = adb.device(serial).shell("getprop ro.serialno", timeout=timeout_s)
    except Exception:  # noqa: BLE001 (no server, no such device, offline: no second key)
        return None
    text = str(answer).strip()
    return text if text and len(text) <= 100 and text.isprintable() else None


def lease_file(root: Path, key: str) -> Path:
    """The lock file of device ``key`` under ``root`` (a safe name, unique per key)."""
    safe = _SAFE.sub("_", key)
    if safe != key:
        safe += "-" + hashlib.sha256(key.encode()).hexdigest()[:8]
    return root / f"{safe}.lock"


def _private_dir(root: Path) -> Path:
    """``root`` created 0700 in a parent made 0700 if missing; refused if either is someone
    else's, the parent writable by others or ``root`` open to them — in a shared /tmp,
    another user must not be able to plant, swap or read our leases."""
    owner = lease_user()  # root under sudo keeps its user's folder that user's
    for folder, loose in ((root.parent, 0o022), (root, 0o077)):
        try:
            try:
                folder.mkdir(mode=0o700)
                if owner != os.getuid():
                    os.chown(folder, owner, -1)
            except FileExistsError:
                pass
            info = os.lstat(folder)
        except OSError as exc:
            raise OmgError(f"cannot make the lease folder {folder}: {exc.strerror}") from None
        if not stat.S_ISDIR(info.st_mode) or info.st_uid not in (os.getuid(), owner) \
                or info.st_mode & loose:
            raise OmgError(f"the lease folder {folder} is not a private folder of this user "
                           "(its owner, mode 0700 expected): remove it and try again")
    return root


@dataclass(frozen=True)
class Holder:
    """Who holds a lease, as its holder wrote it."""

    serial: str
    what: str
    pid: int
    run_dir: str = ""
    since: float = 0.0

    def busy(self, waited_s: float = 0.0) -> DeviceBusy:
        """The error that names this holder."""
        return DeviceBusy(self.serial, self.what, self.pid, self.run_dir, waited_s=waited_s)


class DeviceLease:
    """The lease on one device (all its keys: :func:`lease_keys`). ``acquire`` it (context
    manager: ``with lease:``), note the run folder once known, ``release`` (or let the
    process die)."""

    def __init__(self, serial: str, root: Path, *, what: str,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic,
                 key: str | None = None, keys: Sequence[str] = ()) -> None:
        self.serial = serial
        self.keys = tuple(sorted(set(keys))) or (key or device_key(serial),)
        self.key = key or self.keys[0]
        self.root = root
        self.path = lease_file(root, self.key)
        self.what = " ".join(what.split())[:MAX_WHAT]
        self.sleep = sleep
        self.clock = clock
        self.run_dir = ""
        self._fds: list[int] = []

    @property
    def held(self) -> bool:
        return bool(self._fds)

    def acquire(self, wait_s: float = 0.0,
                on_wait: Callable[[Holder], None] | None = None) -> DeviceLease:
        """Take the lease (every key's lock, in order; all or none). Held by another: raise
        :class:`DeviceBusy` at once (``wait_s=0``), or wait up to ``wait_s`` seconds
        (``math.inf``: as long as it takes), telling ``on_wait`` once who it waits for."""
        if self._fds:
            return self
        _private_dir(self.root)
        fds = [_lock_file(lease_file(self.root, k)) for k in self.keys]
        start, wait, told = self.clock(), FIRST_POLL_S, False
        try:
            while True:
                busy = _lock_all(fds)
                if busy is None:
                    break
                holder = self._holder(busy)
                if self.clock() - start >= wait_s:
                    raise holder.busy(wait_s)
                if on_wait is not None and not told:
                    on_wait(holder)
                    told = True
                self.sleep(min(wait, max(0.0, wait_s - (self.clock() - start))))
                wait = min(wait * 2, MAX_POLL_S)
        except BaseException:
            for fd in fds:
                os.close(fd)
            raise
        self._fds = fds
        self._write()
        return self

    def note(self, run_dir: Path | str) -> None:
        """Name the run folder the holder writes to (shown to whoever is refused)."""
        self.run_dir = str(run_dir)
        if self._fds:
            self._write()

    def release(self) -> None:
        """Give the lease back (emptying the files first, so no one reads a stale holder)."""
        fds, self._fds = self._fds, []
        for fd in fds:
            with contextlib.suppress(OSError):  # the lock still goes with the descriptor
                os.ftruncate(fd, 0)
            os.close(fd)

    def __enter__(self) -> DeviceLease:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()

    def _write(self) -> None:
        data = json.dumps({"serial": self.serial, "key": self.key, "keys": list(self.keys),
                           "what": self.what, "pid": os.getpid(), "run_dir": self.run_dir,
                           "since": time.time()}, ensure_ascii=False).encode()
        for fd in self._fds:
            try:
                os.ftruncate(fd, 0)
                os.pwrite(fd, data, 0)
            except OSError:
                pass  # who holds it is a courtesy; holding it is what counts

    def _holder(self, fd: int) -> Holder:
        """What the holder wrote (its first write may be a moment behind its lock)."""
        for _ in range(20):
            try:
                data = json.loads(os.pread(fd, 64 * 1024, 0) or b"null")
            except (OSError, ValueError):
                data = None
            if isinstance(data, dict):
                return Holder(self.serial, str(data.get("what", "")),
                              int(data.get("pid") or 0), str(data.get("run_dir", "")),
                              float(data.get("since") or 0.0))
            self.sleep(0.01)
        return Holder(self.serial, "", 0)


def _lock_file(path: Path) -> int:
    """The lock file at ``path``, opened (made 0600 if missing, its user's under sudo)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    owner = lease_user()
    if owner != os.getuid():
        with contextlib.suppress(OSError):  # the user's own runs must open it later
            os.fchown(fd, owner, -1)
    return fd


def _lock_all(fds: Sequence[int]) -> int | None:
    """Lock every descriptor in order; on the first that another holds, unlock the ones
    taken and return it (None: all locked)."""
    for i, fd in enumerate(fds):
        if not _try_lock(fd):
            for taken in fds[:i]:
                fcntl.flock(taken, fcntl.LOCK_UN)
            return fd
    return None


def _try_lock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return False
        raise
    return True


def holder_of(serial: str, root: Path, keys: Sequence[str] = ()) -> Holder | None:
    """Who holds ``serial``'s lease now (any of ``keys``, default its address key;
    ``None``: nobody) — without taking it."""
    for key in keys or (device_key(serial),):
        try:
            fd = os.open(lease_file(root, key), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            if not _try_lock(fd):
                return DeviceLease(serial, root, what="")._holder(fd)
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)
    return None


def phone_lease(serial: str, what: str, *, client: object | None = None, server: str = "",
                root: Path | None = None) -> DeviceLease:
    """The lease of the phone ``serial`` (not yet taken) in the user's lease folder, keyed
    by its address and, when its adb server (``client``) answers, its ``ro.serialno`` —
    the one way every driver (CLI, Python API, MCP, fleet) names a phone's lease."""
    keys = lease_keys(serial, serialno_of(serial, client), server)
    return DeviceLease(serial, root or default_lease_dir(), what=what, keys=keys)
