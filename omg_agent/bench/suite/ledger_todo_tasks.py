"""To-do tasks (issue 36, family B): add a task with a due chip and a priority from the
spinner (English, and Chinese on a Chinese phone), tick off two tasks, delete every
completed task with long-press multi-select (sensitive: the user confirms the Delete), and
reopen a task hidden in the collapsed Completed section.

Checks read To-do's state: every task as (title, done, due, priority), so a task changed
by mistake fails them too.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from omg_agent.bench.suite.nav import a_tap, a_type, back, confirm, front, wait
from omg_agent.bench.suite.settings_tasks import ZH_LOCALE
from omg_agent.sim.expert.screen import Screen, el, tap, type_into
from omg_agent.sim.expert.tasks import MoveContext, Moves, Task
from omg_agent.vphone.apps.todo import DUE_NAMES, PRIORITY_NAMES, task

log = logging.getLogger(__name__)

TODO = "com.omg.todo"
Row = tuple[str, bool, str, str]


def todo(phone: Any) -> Any:
    return phone.apps[TODO]


def rows(phone: Any) -> list[Row]:
    return [(t["title"], t["done"], t["due"], t["priority"]) for t in todo(phone).tasks]


def to_list(phone: Any, screen: Screen) -> Moves:
    """Moves to To-do's list, out of select mode (empty when there)."""
    moves = front(phone, screen, TODO)
    if moves:
        return moves
    app = todo(phone)
    return [back()] if app.screen.name != "main" or app.selection.active else []


def box_of(screen: Screen, title: str) -> Any:
    return screen.find(res="task_checkbox", desc=title)


@dataclass
class AddTodo(Task):
    """A new task with a due chip and a priority; ``zh``: the goal in Chinese on a Chinese
    phone."""

    title: str = ""
    due: str = "tomorrow"
    priority: str = "high"
    zh: bool = False

    def __post_init__(self) -> None:
        task(self.title, False, self.due, self.priority)  # ValueError: a bad due / priority
        due_en, due_zh = DUE_NAMES[self.due]
        prio_en, prio_zh = PRIORITY_NAMES[self.priority]
        if self.zh:
            self.goal = (f"在待办里新建「{self.title}」，{due_zh}到期，优先级设为{prio_zh}")
            self.criteria = f'待办列表显示 "{self.title}" 和 "{due_zh}到期 · {prio_zh}优先级"'
        else:
            self.goal = (f"Add a to-do {self.title} due {due_en.lower()} with "
                         f"{prio_en.lower()} priority")
            self.criteria = (f'the to-do list shows "{self.title}" with '
                             f'"Due {due_en.lower()} · {prio_en} priority"')
        self.before: list[Row] = []

    def setup(self, phone: Any) -> None:
        if self.zh:
            phone.set_locale(ZH_LOCALE)
        self.before = rows(phone)

    def check(self, phone: Any) -> bool:
        return rows(phone) == [*self.before, (self.title, False, self.due, self.priority)]

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        app = todo(phone)
        if self.check(phone):
            return to_list(phone, screen) if app.screen.name != "main" else []
        name = app.priority_name(self.priority)
        chip = a_tap(res=f"due_{self.due or 'none'}")
        route = [a_tap(res="fab_add"), a_type("title_input", self.title), chip,
                 a_tap(res="priority_spinner"), a_tap(text=name), a_tap(res="save")]
        moves = front(phone, screen, TODO, route)
        if moves:
            return moves
        if app.screen.name != "edit" or app.screen.params.get("index") is not None:
            moves = to_list(phone, screen)
            fab = screen.find(res="fab_add")
            return moves or ([tap(fab), *route[1:]] if fab else [wait()])
        if app.menu:
            option = screen.find(text=name)
            return [tap(option), a_tap(res="save")] if option else [back()]
        moves = []
        box = screen.find(res="title_input")
        if app.field("title") != self.title:
            moves.append(type_into(box, self.title) if box else route[1])
        if app.draft_due != self.due:
            moves.append(chip)
        if app.draft_priority != self.priority:
            moves += route[3:5]
        return [*moves, a_tap(res="save")]


@dataclass
class CompleteTodos(Task):
    """Tick off several open tasks (a multi-goal: each must be done, nothing else)."""

    titles: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.goal = f"In To-do, mark {' and '.join(self.titles)} as done"
        self.criteria = f'the To-do list shows "Completed ({{n}})" without {self.titles}'
        self.before: list[Row] = []

    def setup(self, phone: Any) -> None:
        self.before = rows(phone)
        n = sum(done for _, done, _, _ in self.before) + len(self.titles)
        self.criteria = f'the To-do list shows "Completed ({n})"'

    def wanted(self) -> list[Row]:
        return [(t, done or t in self.titles, d, p) for t, done, d, p in self.before]

    def check(self, phone: Any) -> bool:
        return rows(phone) == self.wanted()

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        moves = to_list(phone, screen)
        if moves:
            return moves
        done = {t["title"] for t in todo(phone).tasks if t["done"]}
        boxes = [b for t in self.titles if t not in done and (b := box_of(screen, t))]
        # the lowest first: ticking a task moves the ones below it up, never the ones above
        boxes.sort(key=lambda b: b.y, reverse=True)
        return [{"type": "tap", "target": el(b)} for b in boxes] or [wait()]


@dataclass
class DeleteCompleted(Task):
    """Delete every completed task: expand Completed, long-press one, tap the others,
    Delete — once the user confirmed (deleting is sensitive)."""

    also_done: str = ""  # an open task the setup ticks off first

    def __post_init__(self) -> None:
        self.goal = "Delete all completed tasks in To-do"
        self.criteria = 'the To-do list shows "Completed (0)"'
        self.question = "Delete all the completed tasks in To-do?"
        self.before: list[Row] = []

    def setup(self, phone: Any) -> None:
        for t in todo(phone).tasks:
            if t["title"] == self.also_done:
                t["done"] = True
        self.before = rows(phone)
        n = sum(done for _, done, _, _ in self.before)
        self.question = f"Delete the {n} completed tasks in To-do?"

    def check(self, phone: Any) -> bool:
        return rows(phone) == [r for r in self.before if not r[1]]

    def answer_user(self, question: str) -> str | None:
        return "Yes."

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return to_list(phone, screen) if todo(phone).selection.active else []
        app = todo(phone)
        moves = front(phone, screen, TODO, [a_tap(res="expand", desc="Expand")])
        if moves or app.screen.name != "main":
            return moves or [back()]
        if not app.expanded:
            arrow = screen.find(res="expand")
            return [tap(arrow)] if arrow else [wait()]
        done = [i for i, t in enumerate(app.tasks) if t["done"]]
        items = [e for e in screen.all(res="task_item")]
        by_title = {e.text: e for e in items}
        if not app.selection.active:
            first = by_title.get(app.tasks[done[0]]["title"])
            return [{"type": "long_press", "target": el(first)}] if first else [wait()]
        picked = set(app.selection.keys)
        wrong = [i for i in picked if i not in done]
        todo_taps = [by_title[app.tasks[i]["title"]] for i in [*wrong, *done]
                     if (i in wrong or i not in picked) and app.tasks[i]["title"] in by_title]
        if todo_taps:
            return [{"type": "tap", "target": el(e)} for e in todo_taps]
        delete = screen.find(res="delete_selected")
        return confirm(ctx, self.question, tap(delete)) if delete else [wait()]


@dataclass
class ReopenHidden(Task):
    """Un-tick a task that only shows once the collapsed Completed section is expanded."""

    title: str = ""

    def __post_init__(self) -> None:
        self.goal = f"I ticked off {self.title} in To-do by mistake: mark it as not done"
        self.criteria = f'the open tasks in To-do include "{self.title}"'
        self.before: list[Row] = []

    def setup(self, phone: Any) -> None:
        self.before = rows(phone)
        if not any(t == self.title and done for t, done, _, _ in self.before):
            raise ValueError(f"{self.title!r} is not a completed task")
        n = sum(done for _, done, _, _ in self.before) - 1
        self.criteria = f'the To-do list shows "Completed ({n})"'

    def check(self, phone: Any) -> bool:
        return rows(phone) == [(t, done and t != self.title, d, p)
                               for t, done, d, p in self.before]

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        moves = to_list(phone, screen)
        if moves:
            return moves
        box = box_of(screen, self.title)
        if box is not None:
            return [tap(box)]
        arrow = screen.find(res="expand", desc="Expand")
        return [tap(arrow)] if arrow else [wait()]
