"""Markor / 笔记本: markdown notes that are plain ``.md`` files in /sdcard/Documents/Markor.

The notes ARE the files (the phone's MemFS, the same ones Files and ``adb shell cat``
show): the list reads the folder, the editor reads a file and writes it back. Like Markor,
an open document is saved when it is left (BACK, the Navigate-up arrow) as well as by the
Save icon. "+" asks for a file name (``.md`` is added when it has no extension) and opens
the new, empty document; the editor's "More options" menu renames or deletes the file
(delete asks first). Classic Android views with resource ids — the opposite of the
Compose apps beside it.
"""

from __future__ import annotations

from functools import partial

from omg_agent.vphone.apps.base import App, AppEnv
from omg_agent.vphone.memfs import FsError
from omg_agent.vphone.ui.compose import Compose
from omg_agent.vphone.ui.kit import MUTED, Kit
from omg_agent.vphone.ui.view import View

FOLDER = "/sdcard/Documents/Markor"
SEED = {"todo.md": "# To do\n- [ ] call the plumber\n- [ ] renew passport\n",
        "ideas.md": "# Ideas\nA herb garden on the balcony\n"}


class MarkorApp(App):
    package = "com.omg.markor"
    label = "Markor"
    label_zh = "笔记本"
    glyph = "M"
    color = (90, 110, 130)
    activities = {"main": ".MainActivity", "editor": ".DocumentActivity"}

    def __init__(self, env: AppEnv) -> None:
        super().__init__(env)
        env.fs.mkdir(FOLDER, parents=True)
        for name, text in SEED.items():
            env.fs.write(f"{FOLDER}/{name}", text.encode(), mtime=1790000000)

    def reset_ui(self) -> None:
        super().reset_ui()
        self.dialog = ""  # "", "new", "rename", "delete"
        self.menu = False
        self.toast = ""
        self.shared = ""  # text shared into Markor: the next new document holds it

    def multiline(self, key: str) -> bool:
        return key == "body"

    def set_field(self, key: str, value: str) -> None:
        super().set_field(key, value)
        self.toast = ""  # "Saved" no longer holds

    def frame_key(self) -> tuple:
        """The folder's files: a note pushed over adb shows without a tap."""
        return tuple(self.names()) if self.screen.name == "main" else ()

    # -- files ----------------------------------------------------------------------------
    def names(self) -> list[str]:
        try:
            listed = self.env.fs.listdir(FOLDER)
        except FsError:
            return []
        return sorted((n for n, st in listed if not st.is_dir and not n.startswith(".")),
                      key=str.casefold)

    def read(self, name: str) -> str:
        return self.env.fs.read(f"{FOLDER}/{name}").decode("utf-8", "replace")

    @property
    def doc(self) -> str:
        return self.screen.params.get("doc", "")

    def open(self, name: str) -> None:
        self.push("editor", doc=name)
        self.fields = {"body": self.read(name)}
        self.toast = ""

    def save(self) -> None:
        if self.screen.name == "editor" and self.env.fs.exists(f"{FOLDER}/{self.doc}"):
            self.env.fs.write(f"{FOLDER}/{self.doc}", self.field("body").encode())
            self.toast = self.t("Saved", "已保存")

    def back(self) -> bool:
        if self.ime_shown:
            self.ime_shown = False
            return True
        if self.dialog or self.menu:
            self.dialog, self.menu = "", False
            self.focus = None
            return True
        if self.screen.name == "editor":
            self.save()  # Markor saves a document when it is left
            self.stack.pop()
            self.fields, self.focus = {}, None
            return True
        return super().back()

    def ask(self, dialog: str) -> None:
        self.dialog, self.menu = dialog, False
        if dialog in ("new", "rename"):
            self.fields["name"] = self.doc if dialog == "rename" else ""
            self.focus = "name"

    def create(self) -> None:
        name = self.field("name").strip()
        if name and "." not in name:
            name += ".md"
        if not name or "/" in name or self.env.fs.exists(f"{FOLDER}/{name}"):
            self.toast = self.t("Choose another name", "请换一个名称")
            return
        self.env.fs.write(f"{FOLDER}/{name}", self.shared.encode())
        self.dialog, self.shared = "", ""
        self.open(name)
        self.focus = "body"

    def receive_share(self, subject: str, text: str) -> None:
        """Text shared to Markor (the share sheet): the new-document dialog, named after
        the subject; the document it creates holds the text."""
        self.stack = [self.stack[0]]
        self.ask("new")
        self.fields["name"] = subject
        self.shared = text

    def rename(self) -> None:
        new = self.field("name").strip()
        old = self.doc
        if not new or "/" in new or (new != old and self.env.fs.exists(f"{FOLDER}/{new}")):
            self.toast = self.t("Choose another name", "请换一个名称")
            return
        self.env.fs.write(f"{FOLDER}/{new}", self.field("body").encode())
        if new != old:
            self.env.fs.remove(f"{FOLDER}/{old}")
        self.screen.params["doc"] = new
        self.dialog, self.focus = "", None
        self.fields.pop("name", None)

    def delete(self) -> None:
        self.env.fs.remove(f"{FOLDER}/{self.doc}")
        self.dialog = ""
        self.stack.pop()
        self.fields, self.focus = {}, None
        self.toast = self.t("Deleted", "已删除")

    # -- views ----------------------------------------------------------------------------
    def build(self, kit: Kit) -> View:
        root = kit.root()
        if self.screen.name == "editor":
            self._editor(kit, root)
        else:
            self._list(kit, root)
        if self.toast:
            root.add(kit.text(kit.row(kit.content[3] - kit.dp(130), 32), self.toast,
                              color=MUTED, align="center",
                              resource_id=f"{self.package}:id/toast"))
        self._dialogs(kit, root)
        return root

    def _list(self, kit: Kit, root: View) -> None:
        root.add(kit.app_bar("Markor", color=(60, 70, 85)))
        top = kit.content[1] + kit.dp(56)
        h = kit.dp(72)
        names = self.names()
        if not names:
            root.add(kit.text(kit.row(top + kit.dp(40), 40), self.t("No files", "没有文件"),
                              color=MUTED, align="center"))
        for i, name in enumerate(names):
            lines = [ln for ln in self.read(name).splitlines() if ln.strip()]
            y = top + i * h
            root.add(kit.list_item((0, y, kit.width, y + h), name,
                                   lines[0][:40] if lines else "",
                                   on_click=partial(self.open, name),
                                   resource_id=f"{self.package}:id/note_item"))
        bottom = kit.content[3]
        root.add(kit.fab(bottom, partial(self.ask, "new"), desc=self.t("Create a new file",
                                                                       "新建文件"),
                         resource_id=f"{self.package}:id/fab_add"))

    def _editor(self, kit: Kit, root: View) -> None:
        bar = kit.app_bar(self.doc, on_back=self.back, color=(60, 70, 85))
        top, w = kit.profile.status_bar_height, kit.width
        bar.add(kit.image((w - kit.dp(112), top + kit.dp(4), w - kit.dp(64), top + kit.dp(52)),
                          desc=self.t("Save", "保存"), glyph="✓", on_click=self.save,
                          color=(60, 70, 85), resource_id=f"{self.package}:id/action_save"))
        more = (w - kit.dp(56), top + kit.dp(4), w - kit.dp(8), top + kit.dp(52))
        bar.add(kit.image(more, desc=self.t("More options", "更多选项"), glyph="︙",
                          on_click=partial(setattr, self, "menu", True), color=(60, 70, 85)))
        root.add(bar)
        y = kit.content[1] + kit.dp(64)
        root.add(kit.edit((kit.dp(8), y, w - kit.dp(8), kit.content[3] - kit.dp(16)), "body",
                          self.field("body"), hint=self.t("Write markdown…", "写点 Markdown…"),
                          multiline=True, focused=self.focus == "body",
                          resource_id=f"{self.package}:id/document__fragment__edit__highlighting_editor"))
        if self.menu:
            root.add(Compose(kit).menu(more, [(self.t("Rename", "重命名"),
                                               partial(self.ask, "rename")),
                                              (self.t("Delete", "删除"),
                                               partial(self.ask, "delete"))],
                                       on_dismiss=partial(setattr, self, "menu", False)))

    def _dialogs(self, kit: Kit, root: View) -> None:
        cancel = (self.t("Cancel", "取消"), self.back)
        if self.dialog == "delete":
            root.add(kit.dialog(self.t("Delete file?", "删除文件？"),
                                self.t(f"{self.doc} will be deleted.", f"将删除 {self.doc}。"),
                                [cancel, (self.t("Delete", "删除"), self.delete)]))
        elif self.dialog in ("new", "rename"):
            c = Compose(kit)
            left, _, right, _ = c.dialog_box()
            y = c.dialog_body_top()
            box = kit.edit((left + kit.dp(24), y, right - kit.dp(24), y + kit.dp(56)), "name",
                           self.field("name"), hint=self.t("File name", "文件名"),
                           focused=self.focus == "name",
                           resource_id=f"{self.package}:id/new_file_dialog__name")
            ok = self.create if self.dialog == "new" else self.rename
            title = (self.t("Create a new file", "新建文件") if self.dialog == "new"
                     else self.t("Rename", "重命名"))
            dialog = kit.dialog(title, "", [cancel, (self.t("OK", "确定"), ok)])
            dialog.children[0].children[1:2] = [box]  # the message's place holds the field
            root.add(dialog)

    def state(self) -> dict:
        return {"files": {n: self.read(n) for n in self.names()}, "screen": self.screen.name,
                "document": self.doc or None, "dialog": self.dialog, "menu": self.menu,
                "draft": self.field("body") if self.screen.name == "editor" else None,
                "toast": self.toast}
