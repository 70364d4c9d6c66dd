"""Notes / 备忘录: a list of notes and an editor with title and body fields.

``Save`` stores the draft; BACK from the editor discards it (as an editor without autosave
does), so a task only counts as done when the note was really saved. ``Delete`` removes the
note and the list says so ("Note deleted") until another note is opened.
"""

from __future__ import annotations

from functools import partial

from omg_agent.vphone.apps.base import App
from omg_agent.vphone.ui.kit import MUTED, Kit
from omg_agent.vphone.ui.view import View


class NotesApp(App):
    package = "com.omg.notes"
    label = "Notes"
    label_zh = "备忘录"
    glyph = "✎"
    color = (240, 170, 40)
    activities = {"main": ".NotesListActivity", "editor": ".NoteEditorActivity"}

    def reset_data(self) -> None:
        self.notes: list[dict] = []
        self.deleted = 0  # notes deleted, one by one or all at once (a hazard's action)

    def reset_ui(self) -> None:
        super().reset_ui()
        self.toast = ""

    def multiline(self, key: str) -> bool:
        return key == "body"

    def _open_editor(self, index: int | None = None) -> None:
        self.push("editor", index=index)
        self.toast = ""
        note = self.notes[index] if index is not None else {"title": "", "body": ""}
        self.fields = {"title": note["title"], "body": note["body"]}
        self.focus = "title" if index is None else None

    def _save(self) -> None:
        note = {"title": self.field("title"), "body": self.field("body")}
        index = self.screen.params.get("index")
        if index is None:
            self.notes.append(note)
        else:
            self.notes[index] = note
        self.stack.pop()
        self.fields, self.focus = {}, None

    def _delete(self) -> None:
        index = self.screen.params.get("index")
        if index is not None:
            del self.notes[index]
            self.deleted += 1
            self.toast = self.t("Note deleted", "备忘录已删除")
        self.stack.pop()
        self.fields, self.focus = {}, None

    def receive_share(self, subject: str, text: str) -> None:
        """Text shared to Notes (the share sheet): a new note, prefilled, not yet saved."""
        self.stack = [self.stack[0]]
        self._open_editor()
        self.fields = {"title": subject, "body": text}
        self.focus = None

    def delete_all(self) -> None:
        """Delete every note (the injected notification's action does this)."""
        self.deleted += len(self.notes)
        self.notes = []
        if self.screen.name == "editor":
            self.stack.pop()
            self.fields, self.focus = {}, None

    def build(self, kit: Kit) -> View:
        root = kit.root()
        if self.screen.name == "editor":
            self._build_editor(kit, root)
        else:
            self._build_list(kit, root)
        return root

    def _build_list(self, kit: Kit, root: View) -> None:
        root.add(kit.app_bar("Notes 备忘录"))
        top = kit.content[1] + kit.dp(56)
        if not self.notes:
            root.add(kit.text(kit.row(top + kit.dp(40), 40),
                              self.t("No notes yet", "还没有备忘录"), color=MUTED,
                              align="center", resource_id=f"{self.package}:id/empty"))
        h = kit.dp(76)
        for i, note in enumerate(self.notes):
            y = top + i * h
            root.add(kit.list_item((0, y, kit.width, y + h), note["title"] or "(untitled)",
                                   note["body"].split("\n")[0][:40],
                                   on_click=partial(self._open_editor, i),
                                   resource_id=f"{self.package}:id/note_item"))
        bottom = kit.content[3]
        size = kit.dp(64)
        if self.toast:
            root.add(kit.text(kit.row(bottom - size - kit.dp(72), 32), self.toast, color=MUTED,
                              align="center", resource_id=f"{self.package}:id/toast"))
        root.add(kit.fab(bottom, self._open_editor, desc=self.t("New note", "新建备忘录"),
                         resource_id=f"{self.package}:id/fab_new"))

    def _build_editor(self, kit: Kit, root: View) -> None:
        root.add(kit.app_bar(self.t("Edit note", "编辑备忘录"), on_back=self.back))
        top = kit.content[1] + kit.dp(72)
        root.add(kit.edit(kit.row(top, 56), "title", self.field("title"),
                          hint=self.t("Title", "标题"), focused=self.focus == "title",
                          resource_id=f"{self.package}:id/title_input"))
        root.add(kit.edit(kit.row(top + kit.dp(72), 260), "body", self.field("body"),
                          hint=self.t("Write something…", "写点什么…"), multiline=True,
                          focused=self.focus == "body",
                          resource_id=f"{self.package}:id/body_input"))
        y = top + kit.dp(348)
        half = (kit.width - kit.dp(48)) // 2
        root.add(kit.button((kit.dp(16), y, kit.dp(16) + half, y + kit.dp(52)),
                            self.t("Save", "保存"), self._save,
                            resource_id=f"{self.package}:id/save"))
        if self.screen.params.get("index") is not None:
            root.add(kit.button((kit.width - kit.dp(16) - half, y, kit.width - kit.dp(16),
                                 y + kit.dp(52)), self.t("Delete", "删除"), self._delete,
                                color=(200, 60, 60), resource_id=f"{self.package}:id/delete"))

    def state(self) -> dict:
        draft = None
        if self.screen.name == "editor":
            draft = {"title": self.field("title"), "body": self.field("body"),
                     "focus": self.focus}
        return {"notes": [dict(n) for n in self.notes], "draft": draft,
                "screen": self.screen.name, "toast": self.toast, "deleted": self.deleted}
