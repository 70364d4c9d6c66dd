"""The screens of Files (:mod:`.files`), built from Compose-style views."""

from __future__ import annotations

import posixpath
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING

from omg_agent.vphone.ui.compose import Compose
from omg_agent.vphone.ui.kit import MUTED, Kit
from omg_agent.vphone.ui.view import View

if TYPE_CHECKING:
    from omg_agent.vphone.apps.files import FilesApp

ROOT = "/sdcard"
ROW_DP = 72
KINDS = {".pdf": ((220, 60, 50), "P"), ".jpg": ((60, 150, 90), "▣"),
         ".png": ((60, 150, 90), "▣"), ".mp3": ((150, 90, 200), "♪"),
         ".txt": ((90, 100, 120), "≡"), ".md": ((90, 100, 120), "M"),
         ".docx": ((40, 90, 200), "W"), ".xlsx": ((30, 140, 70), "X")}


def human_size(size: int) -> str:
    """A size as Android's Formatter shows it: "812 B", "48 kB", "1.5 MB"."""
    if size < 1000:
        return f"{size} B"
    for unit in ("kB", "MB", "GB"):
        size_f = size / 1000
        if size_f < 1000 or unit == "GB":
            return f"{size_f:.1f} {unit}" if size_f < 10 else f"{size_f:.0f} {unit}"
        size = int(size_f)
    return f"{size} GB"


def build(app: FilesApp, kit: Kit) -> View:
    c = Compose(kit)
    root = kit.root()
    name = app.screen.name
    if name == "viewer":
        _viewer(app, c, root)
    elif name == "picker":
        _picker(app, c, root)
    else:
        _browser(app, c, root)
    if app.toast and not app.dialog:
        root.add(c.text(kit.row(kit.content[3] - kit.dp(48), 32), app.toast, color=MUTED,
                        align="center"))
    if app.dialog == "rename":
        root.add(_rename_dialog(app, c))
    elif app.dialog == "delete":
        n = len(app.targets)
        what = (posixpath.basename(app.targets[0]) if n == 1
                else app.t(f"{n} items", f"{n} 项"))
        root.add(c.dialog(app.t(f"Delete {what}?", f"删除{what}？"), [],
                          [(app.t("Cancel", "取消"), app.cancel_dialog),
                           (app.t("Delete", "删除"), app.confirm_delete)],
                          message=app.t("This can't be undone.", "此操作无法撤消。")))
    return root


def folder_title(app: FilesApp, path: str) -> str:
    return app.t("Internal storage", "内部存储") if path == ROOT else posixpath.basename(path)


def _subtitle(app: FilesApp, path: str, is_dir: bool, size: int, mtime: int) -> str:
    if is_dir:
        n = app.items_in(path)
        return app.t(f"{n} item{'s' if n != 1 else ''}", f"{n} 项")
    day = datetime.fromtimestamp(mtime, UTC).strftime("%b %d, %Y")
    return f"{human_size(size)} · {day}"


def _lead(c: Compose, bounds: tuple[int, int, int, int], name: str, is_dir: bool) -> View:
    kit = c.kit
    size = kit.dp(40)
    y = (bounds[1] + bounds[3] - size) // 2
    color, glyph = ((230, 170, 40), "▰") if is_dir else KINDS.get(
        posixpath.splitext(name)[1].lower(), ((120, 120, 130), "?"))
    return c.node((kit.dp(16), y, kit.dp(16) + size, y + size), cls="android.widget.ImageView",
                  kind="image", style={"bg": color, "glyph": glyph, "fg": (255, 255, 255),
                                       "radius": kit.dp(8)})


def _selection_bar(app: FilesApp, c: Compose) -> View:
    kit = c.kit
    w, top = kit.width, kit.profile.status_bar_height
    icons = [("Move to", "移动到", "⇒", partial(app.act, "move")),
             ("Copy to", "复制到", "▣", partial(app.act, "copy")),
             ("Delete", "删除", "🗑", partial(app.act, "delete")),
             ("More options", "更多选项", "︙", partial(setattr, app, "menu", "overflow"))]
    actions = [c.icon((w - kit.dp(8) - kit.dp(48) * (len(icons) - i), top,
                       w - kit.dp(8) - kit.dp(48) * (len(icons) - i - 1), top + kit.dp(56)),
                      glyph, app.t(en, zh), handler, fg=(255, 255, 255))
               for i, (en, zh, glyph, handler) in enumerate(icons)]
    n = len(app.selection)
    return c.top_bar(app.t(f"{n} selected", f"已选择 {n} 项"), on_back=app.end_selection,
                     actions=actions, color=(40, 60, 110))


def _browser(app: FilesApp, c: Compose, root: View) -> None:
    kit = c.kit
    at_root = app.cwd == ROOT
    if app.selecting:
        root.add(_selection_bar(app, c))
    else:
        root.add(c.top_bar(folder_title(app, app.cwd), on_back=None if at_root else app.up))
    top = kit.content[1] + kit.dp(56)
    crumbs = " › ".join([app.t("Internal storage", "内部存储"),
                         *app.cwd[len(ROOT):].strip("/").split("/")]).rstrip(" ›")
    root.add(c.text(kit.row(top, 36), crumbs, size=14, color=MUTED))
    entries = app.entries()
    list_top = top + kit.dp(40)
    if not entries:
        root.add(c.text(kit.row(list_top + kit.dp(40), 40),
                        app.t("This folder is empty", "此文件夹为空"), color=MUTED,
                        align="center"))

    def item(n: int, bounds: tuple[int, int, int, int]) -> View:
        name, is_dir, size, mtime = entries[n]
        path = f"{app.cwd}/{name}"
        w = kit.width
        more_b = (w - kit.dp(56), bounds[1] + kit.dp(12), w - kit.dp(8), bounds[3] - kit.dp(12))
        trailing = [] if app.selecting else [
            c.icon(more_b, "︙", app.t("More options", "更多选项"),
                   partial(setattr, app, "menu", path))]
        lead = _lead(c, bounds, name, is_dir)
        if app.selecting:
            lead = c.checkbox(lead.bounds, path in app.selection)
        return c.row(bounds, [name, _subtitle(app, path, is_dir, size, mtime)],
                     on_click=partial(app.tap_row, path),
                     on_long_click=partial(app.long_press, path), lead=lead,
                     trailing=trailing, selected=path in app.selection)

    lst = kit.scroll_list((0, list_top, kit.width, kit.content[3]),
                          [kit.dp(ROW_DP)] * len(entries), app.offset, item, app.scroll)
    lst.resource_id, lst.cls = "", "android.view.View"  # a LazyColumn
    root.add(lst)
    _menus(app, c, root, entries)


def _menus(app: FilesApp, c: Compose, root: View, entries: list) -> None:
    kit = c.kit
    close = partial(setattr, app, "menu", "")
    if app.menu == "overflow":
        items = [(app.t("Select all", "全选"), app.select_all)]
        if len(app.selection) == 1:
            items.insert(0, (app.t("Rename", "重命名"), partial(app.act, "rename")))
        top = kit.profile.status_bar_height
        root.add(c.menu((0, top, kit.width - kit.dp(8), top + kit.dp(56)), items,
                        on_dismiss=close))
    elif app.menu:
        path = app.menu
        names = [e[0] for e in entries]
        name = posixpath.basename(path)
        if name not in names:
            return
        i = names.index(name)
        list_top = kit.content[1] + kit.dp(96)
        y = list_top + i * kit.dp(ROW_DP) - app.offset
        anchor = (0, y, kit.width - kit.dp(8), y + kit.dp(ROW_DP))
        items = [(app.t("Open", "打开"), partial(app.open_path, path)),
                 (app.t("Rename", "重命名"), partial(app.act, "rename", [path])),
                 (app.t("Move to…", "移动到…"), partial(app.act, "move", [path])),
                 (app.t("Copy to…", "复制到…"), partial(app.act, "copy", [path])),
                 (app.t("Delete", "删除"), partial(app.act, "delete", [path])),
                 (app.t("Share", "分享"), partial(app.act, "share", [path]))]
        root.add(c.menu(anchor, items, on_dismiss=close))


def _rename_dialog(app: FilesApp, c: Compose) -> View:
    kit = c.kit
    left, _, right, _ = c.dialog_box()
    y = c.dialog_body_top()
    box = c.field((left + kit.dp(24), y, right - kit.dp(24), y + kit.dp(56)), "rename",
                  app.field("rename"), app.t("File name", "文件名"),
                  focused=app.focus == "rename")
    body = [box]
    if app.toast:  # why OK did nothing, under the field
        body.append(c.text((left + kit.dp(24), y + kit.dp(60), right - kit.dp(24),
                            y + kit.dp(84)), app.toast, size=14, color=(200, 60, 60)))
    return c.dialog(app.t("Rename", "重命名"), body,
                    [(app.t("Cancel", "取消"), app.cancel_dialog),
                     (app.t("OK", "确定"), app.confirm_rename)])


def _picker(app: FilesApp, c: Compose, root: View) -> None:
    kit = c.kit
    path = app.screen.params["path"]
    op = app.screen.params["op"]
    title = app.t("Move to", "移动到") if op == "move" else app.t("Copy to", "复制到")

    def up() -> None:
        if path == ROOT:
            app.stack.pop()
        else:
            app.picker_into(posixpath.dirname(path))

    root.add(c.top_bar(f"{title}: {folder_title(app, path)}", on_back=up))
    y = kit.content[1] + kit.dp(64)
    for name, is_dir, _, _ in app.entries(path):
        if not is_dir:
            continue
        b = (0, y, kit.width, y + kit.dp(64))
        full = f"{path}/{name}"
        root.add(c.row(b, [name], on_click=partial(app.picker_into, full),
                       lead=_lead(c, b, name, True)))
        y += kit.dp(64)
    bottom = kit.content[3] - kit.dp(24)
    half = (kit.width - kit.dp(48)) // 2
    root.add(c.button((kit.dp(16), bottom - kit.dp(52), kit.dp(16) + half, bottom),
                      app.t("Cancel", "取消"), partial(app.stack.pop), color=(120, 120, 130)))
    here = app.t("Move here", "移动到此处") if op == "move" else app.t("Copy here", "复制到此处")
    root.add(c.button((kit.width - kit.dp(16) - half, bottom - kit.dp(52),
                       kit.width - kit.dp(16), bottom), here, app.picker_here))


def _viewer(app: FilesApp, c: Compose, root: View) -> None:
    kit = c.kit
    path = app.screen.params["path"]
    root.add(c.top_bar(posixpath.basename(path), on_back=app.back))
    y = kit.content[1] + kit.dp(72)
    if path.endswith((".txt", ".md")) and app.env.fs.exists(path):
        body = app.env.fs.read(path).decode("utf-8", "replace")
        root.add(c.text((kit.dp(16), y, kit.width - kit.dp(16), y + kit.dp(400)),
                        body.rstrip("\n") or app.t("(empty file)", "（空文件）")))
    else:
        root.add(c.text(kit.row(y, 60), app.t("No app can open this file",
                                              "没有可打开此文件的应用"), color=MUTED,
                        align="center"))
