"""The ``sync:`` service: ``adb push``/``pull``/``ls`` and adbutils' ``device.sync``.

Inside one ADB stream the host sends requests ``<4-byte id><uint32 length><payload>`` and the
device answers on the same stream; requests may be split across or packed into WRTE
payloads, so input is buffered. Supported: STAT, LIST, SEND, RECV, QUIT and the stat_v2 /
ls_v2 variants STA2, LST2, LIS2. Files live in the phone's MemFS.
"""

from __future__ import annotations

import errno
import logging
import posixpath
import stat as stat_mod
import struct
import zlib

from omg_agent.vphone.adbstream import AdbStream
from omg_agent.vphone.memfs import FileStat, FsError, MemFS

logger = logging.getLogger(__name__)

SYNC_DATA_MAX = 64 * 1024
MAX_PATH = 1024
REQUEST = struct.Struct("<4sI")
STAT_V1 = struct.Struct("<4sIII")
DENT_V1 = struct.Struct("<4sIIII")
STAT_V2 = struct.Struct("<4sIQQIIIIQqqq")
DENT_V2 = struct.Struct("<4sIQQIIIIQqqqI")
SHELL_UID = 2000  # files pushed by adb belong to the shell user on a real phone
FAKE_DEV = 0xFD00

class SyncProtocolError(Exception):
    """The host broke the sync framing; the stream is closed."""


class SyncSession:
    """Serves sync requests on one stream until QUIT or close."""

    def __init__(self, stream: AdbStream, fs: MemFS) -> None:
        self.stream = stream
        self.fs = fs
        self._in = bytearray()
        self._out = bytearray()

    def run(self) -> None:
        handlers = {
            b"STAT": self._stat_v1, b"LIST": self._list_v1, b"SEND": self._send,
            b"RECV": self._recv, b"STA2": self._stat_v2, b"LST2": self._lstat_v2,
            b"LIS2": self._list_v2,
        }
        try:
            while True:
                head = self._read_exact(REQUEST.size)
                if head is None:
                    return
                ident, length = REQUEST.unpack(head)
                if ident == b"QUIT":
                    return
                handler = handlers.get(ident)
                if handler is None or length > MAX_PATH:
                    self._fail(f"unknown sync request {ident!r}" if handler is None
                               else "path too long")
                    return
                path = self._read_exact(length)
                if path is None:
                    return
                handler(path.decode("utf-8", "surrogateescape"))
                self._flush()
        except SyncProtocolError as exc:
            logger.warning("sync: %s", exc)
        finally:
            self._flush_quietly()

    # -- input/output ------------------------------------------------------------------------
    def _read_exact(self, size: int) -> bytes | None:
        while len(self._in) < size:
            chunk = self.stream.read()
            if not chunk:
                return None
            self._in.extend(chunk)
        out = bytes(self._in[:size])
        del self._in[:size]
        return out

    def _put(self, data: bytes) -> None:
        self._out.extend(data)
        if len(self._out) >= self.stream.max_payload:
            self._flush()

    def _flush(self) -> None:
        if self._out:
            data = bytes(self._out)
            self._out.clear()
            self.stream.write(data)

    def _flush_quietly(self) -> None:
        try:
            self._flush()
        except BrokenPipeError:
            logger.debug("sync: stream closed before the last reply")

    def _fail(self, message: str) -> None:
        raw = message.encode()
        self._put(REQUEST.pack(b"FAIL", len(raw)) + raw)

    # -- requests ----------------------------------------------------------------------------
    def _stat_v1(self, path: str) -> None:
        st = self._lookup(path)
        if st is None:
            self._put(STAT_V1.pack(b"STAT", 0, 0, 0))
        else:
            self._put(STAT_V1.pack(b"STAT", st.mode, st.size & 0xFFFFFFFF, st.mtime))

    def _lstat_v2(self, path: str) -> None:
        # No symlinks in MemFS, so lstat and stat agree; only the reply id differs.
        self._stat_v2(path, ident=b"LST2")

    def _stat_v2(self, path: str, ident: bytes = b"STA2") -> None:
        st = self._lookup(path)
        if st is None:
            self._put(STAT_V2.pack(ident, errno.ENOENT, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        else:
            self._put(STAT_V2.pack(ident, 0, *_stat_v2_fields(path, st)))

    def _list_v1(self, path: str) -> None:
        for name, st in self._entries(path):
            raw = name.encode("utf-8", "surrogateescape")
            self._put(DENT_V1.pack(b"DENT", st.mode, st.size & 0xFFFFFFFF, st.mtime, len(raw))
                      + raw)
        self._put(DENT_V1.pack(b"DONE", 0, 0, 0, 0))

    def _list_v2(self, path: str) -> None:
        for name, st in self._entries(path):
            raw = name.encode("utf-8", "surrogateescape")
            fields = _stat_v2_fields(posixpath.join(path, name), st)
            self._put(DENT_V2.pack(b"DNT2", 0, *fields, len(raw)) + raw)
        self._put(DENT_V2.pack(b"DONE", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    def _send(self, spec: str) -> None:
        path, _, mode_text = spec.rpartition(",")
        if not path:
            path, mode_text = spec, ""
        mode = int(mode_text) if mode_text.isdigit() else 0o644
        data, mtime = self._receive_file_body()
        try:
            self._store(path, data, mode, mtime)
        except FsError as exc:
            self._fail(exc.reason if ":" in exc.reason else f"couldn't create file: {exc.reason}")
            return
        self._put(REQUEST.pack(b"OKAY", 0))

    def _receive_file_body(self) -> tuple[bytes, int]:
        body = bytearray()
        while True:
            head = self._read_exact(REQUEST.size)
            if head is None:
                raise SyncProtocolError("stream closed during SEND")
            ident, length = REQUEST.unpack(head)
            if ident == b"DONE":
                return bytes(body), length
            if ident != b"DATA" or length > 4 * SYNC_DATA_MAX:
                raise SyncProtocolError(f"unexpected {ident!r} ({length} bytes) in SEND")
            chunk = self._read_exact(length)
            if chunk is None:
                raise SyncProtocolError("stream closed during SEND data")
            body.extend(chunk)

    def _store(self, path: str, data: bytes, mode: int, mtime: int) -> None:
        parent = posixpath.dirname(path) or "/"
        if not self.fs.exists(parent):
            try:
                self.fs.mkdir(parent, parents=True)
            except FsError as exc:
                raise FsError(path, f"secure_mkdirs failed: {exc.reason}") from exc
        self.fs.write(path, data, mode=(mode & 0o7777) or 0o644, mtime=mtime or None)

    def _recv(self, path: str) -> None:
        try:
            data = self.fs.read(path)
        except FsError as exc:
            verb = "read" if exc.reason == "Is a directory" else "open"
            self._fail(f"{verb} failed: {exc.reason}")
            return
        view = memoryview(data)
        for start in range(0, len(view), SYNC_DATA_MAX):
            chunk = view[start:start + SYNC_DATA_MAX]
            self._put(REQUEST.pack(b"DATA", len(chunk)) + chunk)
        self._put(REQUEST.pack(b"DONE", 0))

    # -- file system -------------------------------------------------------------------------
    def _lookup(self, path: str) -> FileStat | None:
        try:
            return self.fs.stat(path)
        except FsError:
            return None

    def _entries(self, path: str) -> list[tuple[str, FileStat]]:
        """Children of a directory, with ``.`` and ``..`` first as readdir gives them."""
        here = self._lookup(path)
        if here is None or not here.is_dir:
            return []
        parent = self._lookup(posixpath.dirname(path.rstrip("/")) or "/") or here
        try:
            children = self.fs.listdir(path)
        except FsError:
            return []
        return [(".", here), ("..", parent), *children]


def _stat_v2_fields(path: str, st: FileStat) -> tuple[int, ...]:
    """dev, ino, mode, nlink, uid, gid, size, atime, mtime, ctime for a MemFS entry."""
    ino = zlib.crc32(path.encode("utf-8", "surrogateescape"))
    nlink = 2 if stat_mod.S_ISDIR(st.mode) else 1
    return (FAKE_DEV, ino, st.mode, nlink, SHELL_UID, SHELL_UID, st.size,
            st.mtime, st.mtime, st.mtime)
