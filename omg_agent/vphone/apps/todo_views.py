"""The screens of :mod:`.todo`: the task list (checkbox rows, the collapsible Completed
section, multi-select with its "N selected" bar, the undo snackbar) and the task form
(title, due chips, priority spinner and its dropdown)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from omg_agent.vphone.apps.todo import DUES, PRIORITIES
from omg_agent.vphone.ui.kit import MUTED, SURFACE, Kit
from omg_agent.vphone.ui.lists import (
    checkbox,
    chip,
    dropdown,
    selectable,
    selection_bar,
    snackbar,
    spinner,
)
from omg_agent.vphone.ui.view import Bounds, View

if TYPE_CHECKING:
    from omg_agent.vphone.apps.todo import TodoApp

PRIORITY_COLORS = {"high": (210, 60, 60), "medium": (230, 150, 30), "low": (110, 112, 120)}


def build(app: TodoApp, kit: Kit) -> View:
    root = kit.root()
    if app.screen.name == "edit":
        _form(app, kit, root)
        if app.menu == "priority":
            root.add(dropdown(kit, priority_bounds(kit),
                              [app.priority_name(p) for p in PRIORITIES],
                              app.priority_name(app.draft_priority), app.pick_priority,
                              app.close_menu))
    else:
        _list(app, kit, root)
    return root


def res(app: TodoApp, name: str) -> str:
    return f"{app.package}:id/{name}"


# -- the list ----------------------------------------------------------------------------
def _list(app: TodoApp, kit: Kit, root: View) -> None:
    sel = app.selection
    if sel.active:
        n = len(sel.keys)
        root.add(selection_bar(kit, app.t(f"{n} selected", f"已选择 {n} 项"),
                               app.t("Delete", "删除"), app.delete_selected, sel.clear,
                               close_desc=app.t("Close", "关闭")))
    else:
        root.add(kit.app_bar(app.title()))
    top = kit.content[1] + kit.dp(56)
    done = app.done_tasks()
    items: list[tuple[str, int]] = [("task", i) for i, t in enumerate(app.tasks)
                                    if not t["done"]]
    items.append(("header", -1))
    if app.expanded:
        items += [("task", i) for i, t in enumerate(app.tasks) if t["done"]]
    heights = [kit.dp(56) if kind == "header" else kit.dp(72) for kind, _ in items]

    def row(n: int, bounds: Bounds) -> View:
        kind, i = items[n]
        return _header(app, kit, bounds, len(done)) if kind == "header" \
            else _task_row(app, kit, bounds, i)

    bottom = kit.content[3]
    most = max(0, sum(heights) - (bottom - top) + kit.dp(96))
    app.offset = min(app.offset, most)
    root.add(kit.scroll_list((0, top, kit.width, bottom), heights, app.offset, row,
                             app.scroll, resource_id=res(app, "task_list")))
    if app.undo.active():
        label = app.undo.label
        root.add(snackbar(kit, app.t(f"Deleted {label}", f"已删除「{label}」"),
                          app.t("UNDO", "撤销"), app.undo.undo))
        bottom -= kit.dp(72)
    if not sel.active:
        root.add(kit.fab(bottom, partial(app.open_form, None), desc=app.t("Add task", "新建待办"),
                         resource_id=res(app, "fab_add")))


def _task_row(app: TodoApp, kit: Kit, bounds: Bounds, i: int) -> View:
    t = app.tasks[i]
    left, top, right, bottom = bounds
    item = kit.view("android.widget.LinearLayout", bounds, clickable=True, focusable=True,
                    on_click=partial(app.open_form, i), resource_id=res(app, "task_item"),
                    style={"bg": SURFACE, "divider": (225, 226, 230)})
    # as Google Tasks: the box at the left (named by the task), the title and the due
    # date / priority line beside it; the row opens the task
    item.add(checkbox(kit, (left + kit.dp(8), top + kit.dp(12), left + kit.dp(56),
                            top + kit.dp(60)), "", t["done"], partial(app.toggle_done, i),
                      resource_id=res(app, "task_checkbox"), desc=t["title"]))
    item.add(kit.text((left + kit.dp(64), top + kit.dp(8), right - kit.dp(16),
                       top + kit.dp(40)), t["title"], size=17,
                      color=MUTED if t["done"] else (28, 28, 32),
                      resource_id=res(app, "task_title")))
    color = MUTED if t["done"] else PRIORITY_COLORS[t["priority"]]
    item.add(kit.text((left + kit.dp(64), top + kit.dp(40), right - kit.dp(16),
                       bottom - kit.dp(8)), app.meta(t), size=14, color=color,
                      resource_id=res(app, "task_meta")))
    return selectable(item, i, app.selection)


def _header(app: TodoApp, kit: Kit, bounds: Bounds, count: int) -> View:
    """"Completed (N)" with the arrow that expands or collapses the done tasks."""
    left, top, right, bottom = bounds
    header = kit.view("android.widget.LinearLayout", bounds, clickable=True, focusable=True,
                      on_click=app.toggle_expanded, resource_id=res(app, "completed_header"),
                      style={"bg": SURFACE, "divider": (225, 226, 230)})
    header.add(kit.text((left + kit.dp(16), top, right - kit.dp(72), bottom),
                        app.t(f"Completed ({count})", f"已完成（{count}）"), size=16, bold=True,
                        color=MUTED, resource_id=res(app, "completed_title")))
    header.add(kit.view("android.widget.ImageButton", (right - kit.dp(64), top, right, bottom),
                        desc=app.t("Collapse", "收起") if app.expanded
                        else app.t("Expand", "展开"),
                        kind="glyph", clickable=True, focusable=True,
                        on_click=app.toggle_expanded, resource_id=res(app, "expand"),
                        style={"glyph": "▲" if app.expanded else "▼", "fg": MUTED}))
    return header


# -- the form ----------------------------------------------------------------------------
def priority_bounds(kit: Kit) -> Bounds:
    top = kit.content[1] + kit.dp(248)
    return (kit.dp(112), top, kit.width - kit.dp(16), top + kit.dp(48))


def _form(app: TodoApp, kit: Kit, root: View) -> None:
    editing = app.screen.params.get("index") is not None
    root.add(kit.app_bar(app.t("Edit task", "编辑待办") if editing
                         else app.t("New task", "新建待办"), on_back=app.back))
    top = kit.content[1] + kit.dp(72)
    root.add(kit.edit(kit.row(top, 56), "title", app.field("title"),
                      hint=app.t("Task", "待办事项"), focused=app.focus == "title",
                      resource_id=res(app, "title_input")))
    y = top + kit.dp(72)
    root.add(kit.text(kit.row(y, 28), app.t("Due", "截止"), size=14, color=MUTED,
                      resource_id=res(app, "due_label")))
    m = kit.dp(16)
    w = (kit.width - 2 * m) // len(DUES)
    for n, due in enumerate(DUES):
        x = m + n * w
        root.add(chip(kit, (x + 4, y + kit.dp(32), x + w - 4, y + kit.dp(72)),
                      app.due_name(due), app.draft_due == due, partial(app.set_due, due),
                      resource_id=res(app, f"due_{due or 'none'}")))
    spin = priority_bounds(kit)
    root.add(kit.text((kit.dp(16), spin[1], kit.dp(108), spin[3]), app.t("Priority", "优先级"),
                      color=MUTED, resource_id=res(app, "priority_label")))
    root.add(spinner(kit, spin, app.priority_name(app.draft_priority),
                     partial(app.open_menu, "priority"),
                     resource_id=res(app, "priority_spinner"),
                     desc=app.t("Priority", "优先级")))
    root.add(kit.button(kit.row(spin[3] + kit.dp(32), 52), app.t("Save", "保存"), app.save,
                        enabled=bool(app.field("title").strip()),
                        resource_id=res(app, "save")))
