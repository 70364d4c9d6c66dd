"""The screens of :mod:`.expenses`: the list (filter spinner, monthly total, swipe-to-delete
rows, snackbar), the Add / Edit form (amount keypad, category spinner, note) and Recently
deleted; the open dropdown (filter, category or the ⋮ menu) over whichever is up."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from omg_agent.vphone.apps.expenses import CATEGORIES, parse_amount
from omg_agent.vphone.apps.shop_catalog import format_price
from omg_agent.vphone.ui.kit import MUTED, Kit
from omg_agent.vphone.ui.lists import dropdown, snackbar, spinner, swipeable
from omg_agent.vphone.ui.view import Bounds, View

if TYPE_CHECKING:
    from omg_agent.vphone.apps.expenses import ExpensesApp

KEYS = ("1", "2", "3", "4", "5", "6", "7", "8", "9", ".", "0", "⌫")
KEY_IDS = {".": "key_dot", "⌫": "key_backspace"}
KEY_BG = (236, 238, 244)


def build(app: ExpensesApp, kit: Kit) -> View:
    root = kit.root()
    name = app.screen.name
    if name == "edit":
        _form(app, kit, root)
    elif name == "trash":
        _trash(app, kit, root)
    else:
        _list(app, kit, root)
    if app.menu:
        root.add(_menu(app, kit))
    return root


def res(app: ExpensesApp, name: str) -> str:
    return f"{app.package}:id/{name}"


# -- geometry shared by a spinner and its dropdown ---------------------------------------
def filter_bounds(kit: Kit) -> Bounds:
    top = kit.content[1] + kit.dp(64)
    return (kit.dp(112), top, kit.width - kit.dp(16), top + kit.dp(48))


def category_bounds(kit: Kit) -> Bounds:
    top = kit.content[1] + kit.dp(176)
    return (kit.dp(112), top, kit.width - kit.dp(16), top + kit.dp(48))


def overflow_bounds(kit: Kit) -> Bounds:
    top = kit.profile.status_bar_height
    return (kit.width - kit.dp(56), top, kit.width, top + kit.dp(56))


def _menu(app: ExpensesApp, kit: Kit) -> View:
    cats = [app.cat(c) for c in CATEGORIES]
    if app.menu == "filter":
        options = [app.t("All categories", "全部分类"), *cats]
        chosen = app.cat(app.filter) if app.filter else options[0]
        return dropdown(kit, filter_bounds(kit), options, chosen, app.pick_filter,
                        app.close_menu)
    if app.menu == "category":
        return dropdown(kit, category_bounds(kit), cats, app.cat(app.draft_category),
                        app.pick_category, app.close_menu)
    left, top, right, bottom = overflow_bounds(kit)
    return dropdown(kit, (right - kit.dp(220), top, right - kit.dp(8), top + kit.dp(8)),
                    [app.t("Recently deleted", "最近删除")], None, app.pick_overflow,
                    app.close_menu, menu=True)


# -- the list ----------------------------------------------------------------------------
def _list(app: ExpensesApp, kit: Kit, root: View) -> None:
    bar = kit.app_bar(app.title())
    bar.add(kit.view("android.widget.ImageButton", overflow_bounds(kit),
                     desc=app.t("More options", "更多选项"), kind="glyph", clickable=True,
                     focusable=True, on_click=partial(app.open_menu, "overflow"),
                     resource_id=res(app, "overflow"),
                     style={"glyph": "︙", "fg": (255, 255, 255)}))
    root.add(bar)
    spin = filter_bounds(kit)
    root.add(kit.text((kit.dp(16), spin[1], kit.dp(108), spin[3]), app.t("Category", "分类"),
                      color=MUTED, resource_id=res(app, "filter_label")))
    value = app.cat(app.filter) if app.filter else app.t("All categories", "全部分类")
    root.add(spinner(kit, spin, value, partial(app.open_menu, "filter"),
                     resource_id=res(app, "filter_spinner"),
                     desc=app.t("Filter by category", "按分类筛选")))
    total = format_price(app.total(app.filter))
    if app.filter:
        line = app.t(f"{app.cat(app.filter)} this month: {total}",
                     f"{app.cat(app.filter)}本月：{total}")
    else:
        line = app.t(f"This month: {total}", f"本月支出：{total}")
    root.add(kit.text(kit.row(spin[3] + kit.dp(8), 40), line, size=20, bold=True,
                      resource_id=res(app, "month_total")))
    _rows(app, kit, root, spin[3] + kit.dp(56))
    bottom = kit.content[3]
    if app.undo.active():
        label = app.undo.label
        root.add(snackbar(kit, app.t(f"Deleted {label}", f"已删除「{label}」"),
                          app.t("UNDO", "撤销"), app.undo.undo))
        bottom -= kit.dp(72)
    root.add(kit.fab(bottom, partial(app.open_form, None), desc=app.t("Add expense", "记一笔"),
                     resource_id=res(app, "fab_add")))


def _rows(app: ExpensesApp, kit: Kit, root: View, top: int) -> None:
    rows = app.shown()
    if not rows:
        root.add(kit.text(kit.row(top + kit.dp(40), 40),
                          app.t("No expenses this month", "本月没有支出"), color=MUTED,
                          align="center", resource_id=res(app, "empty")))
        return
    h = kit.dp(72)

    def row(i: int, bounds: Bounds) -> View:
        e = rows[i]
        amount = kit.text((bounds[2] - kit.dp(128), bounds[1], bounds[2] - kit.dp(16),
                           bounds[3]), format_price(e["amount"]), size=17, bold=True,
                          align="right", resource_id=res(app, "amount"))
        item = kit.list_item(bounds, e["note"] or app.cat(e["category"]),
                             f"{app.cat(e['category'])} · {e['date']}",
                             on_click=partial(app.open_form, e["id"]),
                             resource_id=res(app, "expense_item"), trailing=amount)
        return swipeable(kit, item, partial(app.delete, e["id"]))

    bottom = kit.content[3]
    most = max(0, len(rows) * h - (bottom - top) + kit.dp(96))
    app.offset = min(app.offset, most)
    root.add(kit.scroll_list((0, top, kit.width, bottom), [h] * len(rows), app.offset, row,
                             app.scroll, resource_id=res(app, "expense_list")))


# -- the Add / Edit form -----------------------------------------------------------------
def _form(app: ExpensesApp, kit: Kit, root: View) -> None:
    editing = app.screen.params.get("id") is not None
    root.add(kit.app_bar(app.t("Edit expense", "编辑支出") if editing
                         else app.t("Add expense", "记一笔"), on_back=app.back))
    top = kit.content[1] + kit.dp(64)
    shown = "¥" + (app.entry or "0")
    root.add(kit.view("android.widget.TextView", kit.row(top, 96), text=shown, kind="text",
                      desc=app.t("Amount", "金额"), resource_id=res(app, "amount_display"),
                      style={"size": kit.dp(40), "fg": (28, 28, 32) if app.entry else MUTED,
                             "bold": True, "align": "center"}))
    spin = category_bounds(kit)
    root.add(kit.text((kit.dp(16), spin[1], kit.dp(108), spin[3]), app.t("Category", "分类"),
                      color=MUTED, resource_id=res(app, "category_label")))
    root.add(spinner(kit, spin, app.cat(app.draft_category),
                     partial(app.open_menu, "category"),
                     resource_id=res(app, "category_spinner"),
                     desc=app.t("Category", "分类")))
    root.add(kit.edit(kit.row(spin[3] + kit.dp(16), 56), "note", app.field("note"),
                      hint=app.t("Note", "备注"), focused=app.focus == "note",
                      resource_id=res(app, "note_input")))
    _keypad(app, kit, root, spin[3] + kit.dp(88))
    y = spin[3] + kit.dp(88) + 4 * kit.dp(64) + kit.dp(16)
    root.add(kit.button(kit.row(y, 52), app.t("Save", "保存"), app.save,
                        enabled=parse_amount(app.entry) > 0, resource_id=res(app, "save")))


def _keypad(app: ExpensesApp, kit: Kit, root: View, top: int) -> None:
    """The amount keypad: a GridLayout of 1–9, ".", 0 and backspace."""
    m, h = kit.dp(16), kit.dp(64)
    w = (kit.width - 2 * m) // 3
    grid = kit.view("android.widget.GridLayout", (m, top, kit.width - m, top + 4 * h),
                    resource_id=res(app, "keypad"))
    for i, key in enumerate(KEYS):
        x, y = m + (i % 3) * w, top + (i // 3) * h
        desc = app.t("Backspace", "退格") if key == "⌫" else ""
        grid.add(kit.view("android.widget.Button", (x + 4, y + 4, x + w - 4, y + h - 4),
                          text="←" if key == "⌫" else key, desc=desc, kind="button",
                          clickable=True, focusable=True,
                          on_click=partial(app.press, key),
                          resource_id=res(app, KEY_IDS.get(key, f"key_{key}")),
                          style={"bg": KEY_BG, "fg": (28, 28, 32), "size": kit.dp(22),
                                 "radius": kit.dp(12)}))
    root.add(grid)


# -- Recently deleted --------------------------------------------------------------------
def _trash(app: ExpensesApp, kit: Kit, root: View) -> None:
    root.add(kit.app_bar(app.t("Recently deleted", "最近删除"), on_back=app.back))
    top = kit.content[1] + kit.dp(64)
    if not app.deleted:
        root.add(kit.text(kit.row(top + kit.dp(40), 40), app.t("Nothing here", "没有内容"),
                          color=MUTED, align="center", resource_id=res(app, "empty")))
    h = kit.dp(72)
    for i, e in enumerate(reversed(app.deleted)):
        y = top + i * h
        title = e["note"] or app.cat(e["category"])
        restore = kit.button((kit.width - kit.dp(120), y + kit.dp(14), kit.width - kit.dp(16),
                              y + h - kit.dp(14)), app.t("Restore", "恢复"),
                             partial(app.restore, e["id"], None),
                             desc=app.t(f"Restore {title}", f"恢复{title}"),
                             resource_id=res(app, "restore"))
        root.add(kit.list_item((0, y, kit.width, y + h), title,
                               f"{app.cat(e['category'])} · {format_price(e['amount'])}",
                               resource_id=res(app, "deleted_item"), trailing=restore))
