"""The vphone's in-memory file system.

Everything a client can see through ``adb push/pull``, ``ls``, ``cat`` or shell redirection
lives here. Paths are absolute POSIX paths; directories are implicit parents plus explicit
``mkdir``. Thread-safe: the adbd service threads and the shell share one instance.
"""

from __future__ import annotations

import posixpath
import stat as stat_mod
import threading
import time
from dataclasses import dataclass

DIR_MODE = stat_mod.S_IFDIR | 0o771
FILE_MODE = stat_mod.S_IFREG | 0o644


class FsError(OSError):
    """A file-system error with the errno-style message a device shell would print."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


@dataclass(frozen=True)
class FileStat:
    mode: int
    size: int
    mtime: int

    @property
    def is_dir(self) -> bool:
        return stat_mod.S_ISDIR(self.mode)


@dataclass
class _Node:
    mode: int
    mtime: int
    # None for directories; bytes until appended to (a write keeps the caller's bytes
    # without a copy: a fresh phone's 7 MB of seeded files cost ~5 ms a phone to copy)
    data: bytes | bytearray | None


def normpath(path: str, cwd: str = "/") -> str:
    if not path:
        raise FsError(path, "No such file or directory")
    joined = path if path.startswith("/") else posixpath.join(cwd, path)
    out = posixpath.normpath(joined)
    return "/" if out in ("//", "/") else out


class MemFS:
    """A small tree of files and directories kept in memory."""

    DEFAULT_DIRS = (
        "/sdcard", "/sdcard/Download", "/sdcard/DCIM", "/sdcard/Pictures",
        "/data", "/data/local", "/data/local/tmp", "/system", "/system/bin", "/proc",
        "/storage", "/storage/emulated", "/storage/emulated/0",
    )

    def __init__(self) -> None:
        self._lock = threading.RLock()
        now = int(time.time())
        self._nodes: dict[str, _Node] = {"/": _Node(DIR_MODE, now, None)}
        for d in self.DEFAULT_DIRS:
            self.mkdir(d, parents=True)

    # -- queries -----------------------------------------------------------------------
    def stat(self, path: str) -> FileStat | None:
        with self._lock:
            node = self._nodes.get(normpath(path))
            if node is None:
                return None
            size = len(node.data) if node.data is not None else 4096
            return FileStat(node.mode, size, node.mtime)

    def exists(self, path: str) -> bool:
        return self.stat(path) is not None

    def is_dir(self, path: str) -> bool:
        st = self.stat(path)
        return st is not None and st.is_dir

    def listdir(self, path: str) -> list[tuple[str, FileStat]]:
        """Direct children of a directory, sorted by name."""
        with self._lock:
            p = normpath(path)
            node = self._nodes.get(p)
            if node is None:
                raise FsError(path, "No such file or directory")
            if node.data is not None:
                raise FsError(path, "Not a directory")
            prefix = p.rstrip("/") + "/"
            out = []
            for name, child in self._nodes.items():
                if name.startswith(prefix) and "/" not in name[len(prefix):] and name != p:
                    size = len(child.data) if child.data is not None else 4096
                    out.append((name[len(prefix):], FileStat(child.mode, size, child.mtime)))
            return sorted(out)

    def read(self, path: str) -> bytes:
        with self._lock:
            node = self._nodes.get(normpath(path))
            if node is None:
                raise FsError(path, "No such file or directory")
            if node.data is None:
                raise FsError(path, "Is a directory")
            return bytes(node.data)

    # -- changes -----------------------------------------------------------------------
    def _require_parent(self, p: str, original: str) -> None:
        parent = self._nodes.get(posixpath.dirname(p))
        if parent is None:
            raise FsError(original, "No such file or directory")
        if parent.data is not None:
            raise FsError(original, "Not a directory")

    def write(self, path: str, data: bytes, *, append: bool = False, mode: int | None = None,
              mtime: int | None = None) -> None:
        with self._lock:
            p = normpath(path)
            self._require_parent(p, path)
            node = self._nodes.get(p)
            if node is not None and node.data is None:
                raise FsError(path, "Is a directory")
            file_mode = stat_mod.S_IFREG | ((mode or 0o644) & 0o7777)
            stamp = int(time.time()) if mtime is None else int(mtime)
            if node is None or not append:
                self._nodes[p] = _Node(file_mode if node is None or mode else node.mode,
                                       stamp, bytes(data))
            else:
                if not isinstance(node.data, bytearray):
                    node.data = bytearray(node.data or b"")
                node.data.extend(data)
                node.mtime = stamp

    def mkdir(self, path: str, *, parents: bool = False) -> None:
        with self._lock:
            p = normpath(path)
            if p in self._nodes:
                if self._nodes[p].data is not None or not parents:
                    raise FsError(path, "File exists")
                return
            parent = posixpath.dirname(p)
            if parent not in self._nodes:
                if not parents:
                    raise FsError(path, "No such file or directory")
                self.mkdir(parent, parents=True)
            self._require_parent(p, path)
            self._nodes[p] = _Node(DIR_MODE, int(time.time()), None)

    def remove(self, path: str, *, recursive: bool = False) -> None:
        with self._lock:
            p = normpath(path)
            node = self._nodes.get(p)
            if node is None:
                raise FsError(path, "No such file or directory")
            if node.data is None:
                if not recursive:
                    raise FsError(path, "Is a directory")
                prefix = p.rstrip("/") + "/"
                for name in [n for n in self._nodes if n.startswith(prefix)]:
                    del self._nodes[name]
            if p != "/":
                del self._nodes[p]
