"""To-do / 待办: tasks with a checkbox, a due date and a priority.

The list shows the open tasks (a CheckBox each, "Due tomorrow · High" under it), then a
"Completed (N)" header that is collapsed by default: its arrow expands the done tasks. A
tap on a task's checkbox completes it (or, in the Completed section, opens it again); a
tap on the row opens it for editing. A long press starts multi-select: rows are checked,
the top bar says "N selected" with Delete; a delete shows a snackbar with UNDO. "+" opens
the New task form: a title, due chips (Today / Tomorrow / Next week / No date) and a
priority Spinner (High / Medium / Low).

``state()`` holds every task (title, done, due, priority). Screens: :mod:`.todo_views`.
"""

from __future__ import annotations

from omg_agent.vphone.apps.base import App, AppEnv
from omg_agent.vphone.ui.kit import Kit
from omg_agent.vphone.ui.lists import Selection, Undo
from omg_agent.vphone.ui.view import View

DUES = ("today", "tomorrow", "next_week", "")
PRIORITIES = ("high", "medium", "low")
DUE_NAMES = {"today": ("Today", "今天"), "tomorrow": ("Tomorrow", "明天"),
             "next_week": ("Next week", "下周"), "": ("No date", "无日期")}
PRIORITY_NAMES = {"high": ("High", "高"), "medium": ("Medium", "中"), "low": ("Low", "低")}
# (title, done, due, priority)
SEED = (("Water the plants", False, "today", "low"),
        ("Book flights to Lisbon", False, "tomorrow", "high"),
        ("Renew passport", False, "next_week", "medium"),
        ("Pick up dry cleaning", False, "today", "medium"),
        ("Plan weekend trip", False, "", "low"),
        ("Return library books", True, "today", "medium"),
        ("Email the landlord", True, "", "high"))


def task(title: str, done: bool = False, due: str = "", priority: str = "medium") -> dict:
    if due not in DUES or priority not in PRIORITIES:
        raise ValueError(f"due must be one of {DUES}, priority one of {PRIORITIES}")
    return {"title": title, "done": done, "due": due, "priority": priority}


class TodoApp(App):
    package = "com.omg.todo"
    label = "To-do"
    label_zh = "待办"
    glyph = "✓"
    color = (120, 90, 220)
    activities = {"main": ".TaskListActivity", "edit": ".EditTaskActivity"}

    def __init__(self, env: AppEnv) -> None:
        self.undo = Undo(env.clock)
        self.selection = Selection()
        super().__init__(env)

    def reset_data(self) -> None:
        self.tasks: list[dict] = [task(*row) for row in SEED]
        self.undo.dismiss()

    def reset_ui(self) -> None:
        super().reset_ui()
        self.expanded = False  # the Completed section
        self.menu = ""  # the open dropdown: "priority" or ""
        self.offset = 0
        self.draft_due, self.draft_priority = "", "medium"
        self.selection.clear()
        self.undo.dismiss()

    # -- words ---------------------------------------------------------------------------
    def due_name(self, due: str) -> str:
        return self.t(*DUE_NAMES[due])

    def priority_name(self, priority: str) -> str:
        return self.t(*PRIORITY_NAMES[priority])

    def meta(self, t: dict) -> str:
        """The line under a task: "Due tomorrow · High priority"."""
        prio = self.t(f"{PRIORITY_NAMES[t['priority']][0]} priority",
                      f"{PRIORITY_NAMES[t['priority']][1]}优先级")
        if not t["due"]:
            return prio
        en, zh = DUE_NAMES[t["due"]]
        return self.t(f"Due {en.lower()} · {prio}", f"{zh}到期 · {prio}")

    def open_tasks(self) -> list[dict]:
        return [t for t in self.tasks if not t["done"]]

    def done_tasks(self) -> list[dict]:
        return [t for t in self.tasks if t["done"]]

    def frame_key(self) -> tuple:
        return (self.undo.active(),)

    def back(self) -> bool:
        if self.ime_shown:
            return super().back()
        if self.menu:
            self.menu = ""
            return True
        if self.selection.active:
            self.selection.clear()
            return True
        return super().back()

    # -- actions -------------------------------------------------------------------------
    def toggle_done(self, index: int) -> None:
        self.tasks[index]["done"] = not self.tasks[index]["done"]

    def toggle_expanded(self) -> None:
        self.expanded = not self.expanded

    def delete_selected(self) -> None:
        """Delete the selected tasks; the snackbar's UNDO puts them back."""
        gone = sorted(i for i in self.selection.keys if isinstance(i, int))
        kept = [dict(t) for t in self.tasks]
        if not gone:
            return
        self.tasks = [t for i, t in enumerate(self.tasks) if i not in gone]
        self.selection.clear()
        label = self.t(f"{len(gone)} tasks", f"{len(gone)} 项待办") if len(gone) > 1 \
            else kept[gone[0]]["title"]

        def restore() -> None:
            self.tasks = kept

        self.undo.offer(label, restore)

    def open_form(self, index: int | None = None) -> None:
        self.undo.dismiss()
        self.push("edit", index=index)
        found = self.tasks[index] if index is not None else None
        self.fields = {"title": found["title"] if found else ""}
        self.draft_due = found["due"] if found else ""
        self.draft_priority = found["priority"] if found else "medium"
        self.focus = "title" if found is None else None

    def set_due(self, due: str) -> None:
        self.draft_due = due

    def open_menu(self, name: str) -> None:
        self.menu, self.focus = name, None

    def close_menu(self) -> None:
        self.menu = ""

    def pick_priority(self, i: int) -> None:
        self.draft_priority, self.menu = PRIORITIES[i], ""

    def save(self) -> None:
        title = self.field("title").strip()
        if not title:
            return
        index = self.screen.params.get("index")
        if index is None:
            self.tasks.append(task(title, False, self.draft_due, self.draft_priority))
        else:
            self.tasks[index].update(title=title, due=self.draft_due,
                                     priority=self.draft_priority)
        self.stack.pop()
        self.fields, self.focus = {}, None

    def scroll(self, delta: int) -> None:
        self.offset = max(0, self.offset + delta)

    # -- views and outcome ---------------------------------------------------------------
    def build(self, kit: Kit) -> View:
        from omg_agent.vphone.apps.todo_views import build

        return build(self, kit)

    def state(self) -> dict:
        draft = None
        if self.screen.name == "edit":
            draft = {"title": self.field("title"), "due": self.draft_due,
                     "priority": self.draft_priority, "index": self.screen.params.get("index")}
        return {"tasks": [dict(t) for t in self.tasks], "expanded": self.expanded,
                "selected": sorted(k for k in self.selection.keys if isinstance(k, int))
                if self.selection.active else [],
                "screen": self.screen.name, "draft": draft, "menu": self.menu,
                "snackbar": self.undo.label if self.undo.active() else ""}
