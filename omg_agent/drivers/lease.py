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
serial: ``127.0.0.1:5555``, ``localhost:5555`` and ``emulator-5554`` (whose adbd listens on
the console port + 1) are one phone. They live in the user's runtime folder
(:func:`default_lease_dir`: ``$XDG_RUNTIME_DIR/omg-agent/leases``, else a 0700 folder
``/tmp/omg-agent-<uid>/leases``); callers pass the folder explicitly. Only drivers take
leases; what merely watches (the mirror's viewers, ``observe``) shares or needs none.

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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from omg_agent.errors import DeviceBusy, OmgError

_EMULATOR = re.compile(r"^emulator-(\d+)$")
_SAFE = re.compile(r"[^A-Za-z0-9._-]")
MAX_WHAT = 200  # characters of the holder's command kept in the file
FIRST_POLL_S = 0.05
MAX_POLL_S = 0.5


def default_lease_dir() -> Path:
    """Where leases live by convention: ``$XDG_RUNTIME_DIR/omg-agent/leases`` (a per-user
    folder the system empties at logout), else ``/tmp/omg-agent-<uid>/leases``."""
    runtime = os.environ.get("XDG_RUNTIME_DIR", "").strip()
    if runtime:
        return Path(runtime) / "omg-agent" / "leases"
    return Path("/tmp") / f"omg-agent-{os.getuid()}" / "leases"  # noqa: S108 (checked 0700)


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
    if ip.is_loopback:
        return "127.0.0.1"
    return str(ip.ipv4_mapped or ip) if isinstance(ip, ipaddress.IPv6Address) else str(ip)


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
    for folder, loose in ((root.parent, 0o022), (root, 0o077)):
        try:
            folder.mkdir(mode=0o700, exist_ok=True)
            info = os.lstat(folder)
        except OSError as exc:
            raise OmgError(f"cannot make the lease folder {folder}: {exc.strerror}") from None
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() \
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
    """The lease on one device. ``acquire`` it (context manager: ``with lease:``), note the
    run folder once known, ``release`` (or let the process die)."""

    def __init__(self, serial: str, root: Path, *, what: str,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic,
                 key: str | None = None) -> None:
        self.serial = serial
        self.key = key or device_key(serial)
        self.root = root
        self.path = lease_file(root, self.key)
        self.what = " ".join(what.split())[:MAX_WHAT]
        self.sleep = sleep
        self.clock = clock
        self.run_dir = ""
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self, wait_s: float = 0.0,
                on_wait: Callable[[Holder], None] | None = None) -> DeviceLease:
        """Take the lease. Held by another: raise :class:`DeviceBusy` at once
        (``wait_s=0``), or wait up to ``wait_s`` seconds (``math.inf``: as long as it
        takes), telling ``on_wait`` once who it waits for."""
        if self._fd is not None:
            return self
        _private_dir(self.root)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        start, wait, told = self.clock(), FIRST_POLL_S, False
        try:
            while not _try_lock(fd):
                holder = self._holder(fd)
                if self.clock() - start >= wait_s:
                    raise holder.busy(wait_s)
                if on_wait is not None and not told:
                    on_wait(holder)
                    told = True
                self.sleep(min(wait, max(0.0, wait_s - (self.clock() - start))))
                wait = min(wait * 2, MAX_POLL_S)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        self._write()
        return self

    def note(self, run_dir: Path | str) -> None:
        """Name the run folder the holder writes to (shown to whoever is refused)."""
        self.run_dir = str(run_dir)
        if self._fd is not None:
            self._write()

    def release(self) -> None:
        """Give the lease back (emptying the file first, so no one reads a stale holder)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with contextlib.suppress(OSError):  # the lock still goes with the descriptor
            os.ftruncate(fd, 0)
        os.close(fd)

    def __enter__(self) -> DeviceLease:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()

    def _write(self) -> None:
        assert self._fd is not None
        data = json.dumps({"serial": self.serial, "key": self.key, "what": self.what,
                           "pid": os.getpid(), "run_dir": self.run_dir,
                           "since": time.time()}, ensure_ascii=False).encode()
        try:
            os.ftruncate(self._fd, 0)
            os.pwrite(self._fd, data, 0)
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


def _try_lock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return False
        raise
    return True


def holder_of(serial: str, root: Path) -> Holder | None:
    """Who holds ``serial``'s lease now (``None``: nobody) — without taking it."""
    path = lease_file(root, device_key(serial))
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if _try_lock(fd):
            return None
        return DeviceLease(serial, root, what="")._holder(fd)
    finally:
        os.close(fd)
