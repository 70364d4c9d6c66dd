"""Writing files so that a crash never leaves one unreadable (issue 12: durability).

Every store outside sqlite goes through here — one rule, one place:

- :func:`write_atomic` replaces a whole file (``state.json``, ``result.json``, screenshots,
  device profiles): the bytes go to a unique temp file in the same folder, are flushed and
  fsynced, renamed over the target (atomic on POSIX), and the folder is fsynced so the
  rename itself survives a power cut. A kill -9 at any instant leaves the old file or the
  new one, never a mix; a stray ``.NAME.*.tmp`` may stay behind and is harmless.
- :func:`append_line` adds one record to an append-only log (``trace.jsonl``) with a single
  ``write`` on an ``O_APPEND`` descriptor, then fsyncs it: a record is either whole on disk
  when the call returns, or (killed mid-write) a torn last line that :func:`repair_tail`
  cuts off before anything is appended again.

``sync=False`` skips the fsyncs: a process crash (kill -9 included) still loses nothing the
call wrote — the kernel holds it — only a power cut could. Runs use it for screenshots, and
for trace lines between turn boundaries, where one :func:`fsync_file` covers the turn.
``scripts/bench_durability.py`` measures what each costs.

A full disk (issue 25) is an outcome, not a crash: :func:`disk_trouble` says whether an
``OSError`` means the folder cannot take more (ENOSPC, EDQUOT, EFBIG, EROFS, EIO, or a folder
deleted under us); :func:`append_line` cuts a record the disk could only take part of back
off, so the log stays whole lines; :func:`write_atomic` leaves the old file (or none), never
a partial one under the final name.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

TEMP_SUFFIX = ".tmp"
DISK_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EIO})


def disk_trouble(exc: BaseException, folder: Path | None = None) -> bool:
    """``exc`` says the disk cannot take what was written: full, over quota, read-only, an
    I/O error, or (``folder`` given) ``folder`` itself gone."""
    if not isinstance(exc, OSError):
        return False
    if exc.errno in DISK_ERRNOS:
        return True
    return folder is not None and exc.errno == errno.ENOENT and not Path(folder).is_dir()


def disk_cause(exc: BaseException) -> OSError | None:
    """The disk's refusal behind ``exc``: the ``OSError`` itself, or the one an error that
    carries it as ``cause`` stands for (:class:`~omg_agent.errors.DiskTrouble`); else None."""
    cause = getattr(exc, "cause", exc)
    return cause if isinstance(cause, OSError) and disk_trouble(cause) else None


def aside(keep: Callable[[OSError], None] | None, write: Callable[..., object],
          *args: object) -> bool:
    """``write(*args)``, a store's write beside a run (the replay cache, learned steps,
    macros, issue 38): True when it went through. A disk that refuses it is the run's disk
    trouble, yet not a reason to lose the turn whose actions were carried out: with ``keep``
    (the trace recorder's :meth:`~omg_agent.trace.recorder.TraceRecorder.refused`) the
    refusal is kept and the run stops ``interrupted`` at its next safe point (a run whose
    outcome is decided keeps it and says its files are not complete); False. Without
    ``keep``, or for any other error, it raises."""
    try:
        write(*args)
    except Exception as exc:
        cause = disk_cause(exc)
        if cause is None or keep is None:
            raise
        keep(cause)
        return False
    return True


# SQLite's primary result codes for a disk that cannot take a write (sqlite3.SQLITE_FULL,
# _READONLY, _IOERR), as the errno an OSError would carry
_SQLITE_ERRNOS = {13: errno.ENOSPC, 8: errno.EROFS, 10: errno.EIO}
_SQLITE_CANTOPEN = 14


def sqlite_disk_error(exc: BaseException, path: Path | None) -> OSError | None:
    """A SQLite error that is disk trouble (full, read-only, I/O error; a file it cannot
    create in a folder that takes no writes) as the ``OSError`` it stands for, else None."""
    code = getattr(exc, "sqlite_errorcode", None)
    if not isinstance(code, int) or path is None:
        return None
    number = _SQLITE_ERRNOS.get(code & 0xFF)
    if number is None and code & 0xFF == _SQLITE_CANTOPEN:
        folder = Path(path).parent
        if folder.is_dir() and not os.access(folder, os.W_OK):
            number = errno.EROFS if _read_only_mount(folder) else errno.EACCES
    if number is None:
        return None
    return OSError(number, os.strerror(number), str(path))


def _read_only_mount(folder: Path) -> bool:
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def write_atomic(path: Path, data: str | bytes, *, sync: bool = True) -> None:
    """Replace ``path`` with ``data`` (text is UTF-8) so a crash leaves old or new."""
    path = Path(path)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TEMP_SUFFIX)
    try:
        try:
            _write_all(fd, raw)
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    if sync:
        fsync_dir(path.parent)


def append_line(path: Path, line: str, *, sync: bool = True) -> None:
    """Append ``line`` (a newline is added) to ``path`` as one write, then fsync it."""
    path = Path(path)
    created = not path.exists()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        try:
            _write_all(fd, (line + "\n").encode("utf-8"))
        except OSError:  # the disk took part of the line: cut it off, keep whole lines
            _truncate_quietly(fd, size)
            raise
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)
    if sync and created:
        fsync_dir(path.parent)


def repair_tail(path: Path) -> int:
    """Cut a torn last line (one a crash left without its newline) off ``path``; the number
    of bytes dropped. A missing file has nothing to repair."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return 0
    if size == 0:
        return 0
    with path.open("rb+") as fh:
        fh.seek(max(0, size - 1))
        if fh.read(1) == b"\n":
            return 0
        keep = _last_newline_end(fh, size)
        fh.truncate(keep)
        fh.flush()
        os.fsync(fh.fileno())
    return size - keep


def fsync_file(path: Path) -> None:
    """Flush what earlier unsynced appends left in the page cache to the disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_dir(folder: Path) -> None:
    """Make a rename or a new file in ``folder`` durable (a no-op where dirs cannot sync)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _truncate_quietly(fd: int, size: int) -> None:
    with contextlib.suppress(OSError):  # if not, repair_tail cuts the torn tail off later
        os.ftruncate(fd, size)


def _write_all(fd: int, raw: bytes) -> None:
    view = memoryview(raw)
    while view:
        view = view[os.write(fd, view):]


def _last_newline_end(f: BinaryIO, size: int, chunk: int = 65536) -> int:
    """The offset just after the last ``\\n`` in the open binary file (0 if none)."""
    end = size
    while end > 0:
        start = max(0, end - chunk)
        f.seek(start)
        block = f.read(end - start)
        at = block.rfind(b"\n")
        if at >= 0:
            return start + at + 1
        end = start
    return 0


__all__ = ["DISK_ERRNOS", "append_line", "aside", "disk_cause", "disk_trouble", "fsync_dir",
           "fsync_file", "repair_tail", "write_atomic"]
