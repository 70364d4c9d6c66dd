"""Files / 文件: a Compose-style file manager over the phone's own file system.

Everything it shows and changes is the vphone's :class:`~omg_agent.vphone.memfs.MemFS`
under ``/sdcard`` — the same files ``adb shell ls /sdcard/Download`` lists and ``adb push``
adds. A folder lists its folders then its files (name, size · date); a tap opens a folder
or shows a file; a long press starts multi-select (a check box per row, a top bar with
"Move to", "Copy to", "Delete" and a "More options" overflow with Rename and Select all);
each row's "More options" opens its context menu (Open, Rename, Move to…, Copy to…,
Delete, Share). Move and Copy go through a folder picker ("Move here"); Rename is a
dialog with a text field; Delete asks first. BACK leaves a menu, a dialog, the selection,
then the folder. The views are in :mod:`.files_views`.
"""

from __future__ import annotations

import functools
import posixpath
import time

from omg_agent.vphone.apps.base import App, AppEnv
from omg_agent.vphone.apps.files_views import ROOT, build
from omg_agent.vphone.memfs import FsError
from omg_agent.vphone.ui.kit import Kit
from omg_agent.vphone.ui.view import View

FOLDERS = ("Download", "Documents", "Pictures", "Music", "DCIM")
DAY = 86400
BASE = int(time.mktime((2026, 10, 1, 9, 0, 0, 0, 0, 0)))
SEED: tuple[tuple[str, int, int], ...] = (  # path under /sdcard, size in bytes, day
    ("Download/invoice_2026_10.pdf", 48_213, 3), ("Download/boarding_pass.pdf", 91_004, 9),
    ("Download/holiday_photo.jpg", 1_482_113, 12), ("Download/setup_notes.txt", 0, 14),
    ("Download/budget.xlsx", 23_552, 16), ("Download/scan_0042.jpg", 812_400, 20),
    ("Download/song_demo.mp3", 3_204_480, 22),
    ("Documents/resume.docx", 34_816, 5), ("Documents/meeting_notes.txt", 0, 18),
    ("Pictures/cat.png", 402_118, 7), ("Pictures/sunset.jpg", 955_230, 11),
)
TEXTS = {"setup_notes.txt": "Router admin page: 192.168.1.1\nGuest Wi-Fi: garden-guest\n",
         "meeting_notes.txt": "Q4 planning\n- hire two designers\n- launch in March\n"}


@functools.cache
def _seed_data(base: str, size: int) -> bytes:
    """A seeded file's contents, made once per process: bytes are never changed in place,
    so every phone's file system holds the same object until a write replaces it."""
    return TEXTS[base].encode() if base in TEXTS else bytes(size)


def seed_files(env: AppEnv) -> None:
    """The files a fresh phone's storage holds (written once, never again)."""
    fs = env.fs
    for name in FOLDERS:
        fs.mkdir(f"{ROOT}/{name}", parents=True)
    for rel, size, day in SEED:
        fs.write(f"{ROOT}/{rel}", _seed_data(posixpath.basename(rel), size),
                 mtime=BASE + day * DAY)


class FilesApp(App):
    package = "com.omg.files"
    label = "Files"
    label_zh = "文件"
    glyph = "▤"
    color = (230, 150, 30)
    activities = {"main": ".FilesActivity", "viewer": ".FileViewerActivity",
                  "picker": ".FolderPickerActivity"}

    def __init__(self, env: AppEnv) -> None:
        super().__init__(env)
        seed_files(env)

    def reset_ui(self) -> None:
        super().reset_ui()
        self.stack[0].params["path"] = ROOT
        self.selection: list[str] = []  # full paths, in the order picked
        self.selecting = False
        self.menu: str = ""  # "", "overflow" (selection bar) or the path whose ⋮ is open
        self.dialog: str = ""  # "", "rename", "delete"
        self.targets: list[str] = []  # what a rename / delete / move acts on
        self.toast = ""
        self.offset = 0

    def frame_key(self) -> tuple:
        """The folder shown: files pushed or removed over adb show without a tap."""
        path = self.screen.params.get("path", self.cwd)
        return tuple(self.entries(path))

    # -- the file system ------------------------------------------------------------------
    @property
    def cwd(self) -> str:
        return self.stack[0].params.get("path", ROOT)

    def entries(self, path: str | None = None) -> list[tuple[str, bool, int, int]]:
        """(name, is_dir, size, mtime) in ``path``: folders first, then files, by name."""
        try:
            listed = self.env.fs.listdir(path or self.cwd)
        except FsError:
            return []
        out = [(n, st.is_dir, st.size, st.mtime) for n, st in listed if not n.startswith(".")]
        return sorted(out, key=lambda e: (not e[1], e[0].casefold()))

    def items_in(self, path: str) -> int:
        return len(self.entries(path))

    def tree(self) -> list[str]:
        """Every file under /sdcard (relative paths), sorted."""
        out: list[str] = []
        todo = [ROOT]
        while todo:
            folder = todo.pop()
            for name, is_dir, _, _ in self.entries(folder):
                full = f"{folder}/{name}"
                if is_dir:
                    todo.append(full)
                else:
                    out.append(full[len(ROOT) + 1:])
        return sorted(out)

    # -- navigation ------------------------------------------------------------------------
    def open_path(self, path: str) -> None:
        self.menu = ""
        if self.env.fs.is_dir(path):
            self.stack = [self.stack[0]]
            self.stack[0].params["path"] = path
            self.offset = 0
        else:
            self.push("viewer", path=path)
        self.toast = ""

    def tap_row(self, path: str) -> None:
        if self.selecting:
            self.toggle(path)
        else:
            self.open_path(path)

    def long_press(self, path: str) -> None:
        self.selecting = True
        if path not in self.selection:
            self.selection.append(path)
        self.menu, self.toast = "", ""

    def toggle(self, path: str) -> None:
        if path in self.selection:
            self.selection.remove(path)
        else:
            self.selection.append(path)
        if not self.selection:
            self.selecting = False

    def select_all(self) -> None:
        self.selection = [f"{self.cwd}/{n}" for n, *_ in self.entries()]
        self.menu = ""

    def end_selection(self) -> None:
        self.selecting, self.selection, self.menu = False, [], ""

    def back(self) -> bool:
        if self.ime_shown:
            self.ime_shown = False
            return True
        if self.dialog or self.menu:
            self.dialog, self.menu, self.focus = "", "", None
            return True
        if self.selecting:
            self.end_selection()
            return True
        if len(self.stack) > 1:
            self.stack.pop()
            return True
        if self.cwd != ROOT:
            self.stack[0].params["path"] = posixpath.dirname(self.cwd)
            self.offset = 0
            return True
        return False

    def up(self) -> None:
        self.back()

    # -- operations ------------------------------------------------------------------------
    def act(self, op: str, paths: list[str] | None = None) -> None:
        """Start ``op`` (rename / delete / move / copy / share) on ``paths`` (default: the
        selection)."""
        self.targets = list(paths if paths is not None else self.selection)
        self.menu = ""
        if not self.targets:
            return
        if op == "rename":
            self.dialog = "rename"
            self.fields["rename"] = posixpath.basename(self.targets[0])
            self.focus = "rename"
        elif op == "delete":
            self.dialog = "delete"
        elif op in ("move", "copy"):
            self.push("picker", op=op, path=ROOT)
        elif op == "share":
            self.toast = self.t("Sharing is not available", "无法分享")

    def confirm_delete(self) -> None:
        for path in self.targets:
            self.env.fs.remove(path, recursive=True)
        n = len(self.targets)
        self.toast = self.t(f"{n} item{'s' if n != 1 else ''} deleted", f"已删除 {n} 项")
        self.dialog, self.targets = "", []
        self.end_selection()

    def confirm_rename(self) -> None:
        new = self.field("rename").strip()
        old = self.targets[0] if self.targets else ""
        target = f"{posixpath.dirname(old)}/{new}"
        if not new or "/" in new:
            self.toast = self.t("Enter a valid name", "请输入有效的名称")
            return
        if target != old and self.env.fs.exists(target):
            self.toast = self.t(f"{new} already exists", f"{new} 已存在")
            return
        self._transfer(old, target, keep=False)
        self.dialog, self.focus, self.targets = "", None, []
        self.fields.pop("rename", None)
        self.end_selection()
        self.toast = self.t("Renamed", "已重命名")

    def cancel_dialog(self) -> None:
        self.dialog, self.focus, self.targets, self.toast = "", None, [], ""

    def picker_into(self, path: str) -> None:
        self.screen.params["path"] = path

    def picker_here(self) -> None:
        op, dest = self.screen.params["op"], self.screen.params["path"]
        done = 0
        for path in self.targets:
            target = f"{dest}/{posixpath.basename(path)}"
            if target == path or dest.startswith(path + "/") or self.env.fs.exists(target):
                continue
            self._transfer(path, target, keep=op == "copy")
            done += 1
        self.stack.pop()
        self.end_selection()
        verb = self.t("moved", "已移动") if op == "move" else self.t("copied", "已复制")
        self.toast = (self.t(f"{done} item{'s' if done != 1 else ''} {verb}", f"{verb} {done} 项")
                      if done else self.t("Nothing to do: already there", "目标位置已有同名文件"))
        self.targets = []

    def _transfer(self, src: str, dst: str, *, keep: bool) -> None:
        """Copy (``keep``) or move ``src`` to ``dst``, folders with everything in them."""
        fs = self.env.fs
        if fs.is_dir(src):
            fs.mkdir(dst, parents=True)
            for name, *_ in self.entries(src):
                self._transfer(f"{src}/{name}", f"{dst}/{name}", keep=keep)
        else:
            st = fs.stat(src)
            fs.write(dst, fs.read(src), mtime=st.mtime if st else None)
        if not keep:
            fs.remove(src, recursive=True)

    def scroll(self, delta: int) -> None:
        self.offset = max(0, self.offset + delta)

    # -- views -----------------------------------------------------------------------------
    def build(self, kit: Kit) -> View:
        return build(self, kit)

    def state(self) -> dict:
        return {"files": self.tree(), "cwd": self.cwd, "screen": self.screen.name,
                "selecting": self.selecting,
                "selection": [p[len(ROOT) + 1:] for p in self.selection],
                "menu": self.menu[len(ROOT) + 1:] if self.menu.startswith(ROOT) else self.menu,
                "dialog": self.dialog, "toast": self.toast}
