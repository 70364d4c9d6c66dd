"""The screens of Contacts (:mod:`.contacts`), built from Compose-style views."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from omg_agent.vphone.ui.compose import Compose
from omg_agent.vphone.ui.kit import MUTED, Kit
from omg_agent.vphone.ui.view import View

if TYPE_CHECKING:
    from omg_agent.vphone.apps.contacts import ContactsApp


def full_name(c: dict) -> str:
    """How the list names a contact: "First Last", or the Chinese "姓名" without a space."""
    first, last = c.get("first", ""), c.get("last", "")
    if any("\u4e00" <= ch <= "\u9fff" for ch in first + last):
        return f"{first}{last}"
    return " ".join(p for p in (first, last) if p)

COLORS = ((230, 120, 60), (60, 140, 220), (150, 90, 200), (40, 160, 120), (210, 80, 110))


def build(app: ContactsApp, kit: Kit) -> View:
    c = Compose(kit)
    root = kit.root()
    name = app.screen.name
    if name == "detail" and app.current() is not None:
        _detail(app, c, root)
    elif name == "edit":
        _form(app, c, root)
    else:
        _list(app, c, root)
    if app.toast and name != "edit":
        root.add(c.text(kit.row(kit.content[3] - kit.dp(120), 32), app.toast, color=MUTED,
                        align="center"))
    return root


def _initial(name: str) -> str:
    return name[:1].upper() or "#"


def _list(app: ContactsApp, c: Compose, root: View) -> None:
    kit = c.kit
    root.add(c.top_bar(app.t("Contacts", "通讯录")))
    top = kit.content[1] + kit.dp(64)
    root.add(c.field(kit.row(top, 52), "search", app.field("search"),
                     app.t("Search contacts", "搜索联系人"), focused=app.focus == "search"))
    items: list[tuple[str, int | None]] = []
    letter = ""
    for i in app.sorted_indices():
        if _initial(full_name(app.contacts[i])) != letter:
            letter = _initial(full_name(app.contacts[i]))
            items.append((letter, None))  # a letter header
        items.append((full_name(app.contacts[i]), i))
    if not items:
        root.add(c.text(kit.row(top + kit.dp(96), 40), app.t("No contacts", "没有联系人"),
                        color=MUTED, align="center"))
    heights = [kit.dp(32) if idx is None else kit.dp(64) for _, idx in items]
    list_top = top + kit.dp(64)

    def item(n: int, bounds: tuple[int, int, int, int]) -> View:
        label, idx = items[n]
        if idx is None:
            left, t, right, b = bounds
            return c.text((left + kit.dp(16), t, right, b), label, size=14, color=MUTED,
                          bold=True)
        contact = app.contacts[idx]
        size = kit.dp(40)
        y = (bounds[1] + bounds[3] - size) // 2
        lead = c.avatar((kit.dp(16), y, kit.dp(16) + size, y + size), _initial(label),
                        COLORS[idx % len(COLORS)])
        texts = [label, *contact["phones"][:1]]
        return c.merged_row(bounds, texts, on_click=partial(app.open, idx), lead=lead)

    lst = kit.scroll_list((0, list_top, kit.width, kit.content[3]), heights, app.offset, item,
                          app.scroll)
    lst.resource_id = ""  # a LazyColumn: no id
    lst.cls = "android.view.View"
    root.add(lst)
    root.add(c.fab("+", app.t("Create contact", "新建联系人"), partial(app.open_form, None)))


def _detail(app: ContactsApp, c: Compose, root: View) -> None:
    kit = c.kit
    contact = app.current()
    assert contact is not None
    w, top = kit.width, kit.profile.status_bar_height
    fav = contact["favorite"]
    star = c.icon((w - kit.dp(160), top, w - kit.dp(112), top + kit.dp(56)),
                  "★" if fav else "☆",
                  app.t("Remove from favorites", "取消收藏") if fav
                  else app.t("Add to favorites", "收藏"), app.toggle_favorite,
                  fg=(255, 255, 255), selected=fav)
    edit = c.icon((w - kit.dp(112), top, w - kit.dp(64), top + kit.dp(56)), "✎",
                  app.t("Edit", "编辑"), partial(app.open_form, app.screen.params["index"]),
                  fg=(255, 255, 255))
    more_b = (w - kit.dp(56), top, w - kit.dp(8), top + kit.dp(56))
    more = c.icon(more_b, "︙", app.t("More options", "更多选项"),
                  partial(setattr, app, "menu", True), fg=(255, 255, 255))
    root.add(c.top_bar("", on_back=app.back, actions=[star, edit, more]))
    y = kit.content[1] + kit.dp(72)
    size = kit.dp(72)
    root.add(c.avatar(((w - size) // 2, y, (w + size) // 2, y + size),
                      _initial(full_name(contact)),
                      COLORS[app.screen.params["index"] % len(COLORS)]))
    root.add(c.text(kit.row(y + size + kit.dp(8), 40), full_name(contact), size=24, bold=True,
                    align="center"))
    y += size + kit.dp(64)
    rows: list[list[str]] = [[p, app.t("Mobile" if i == 0 else "Phone", "手机" if i == 0
                                       else "电话")] for i, p in enumerate(contact["phones"])]
    if contact["email"]:
        rows.append([contact["email"], app.t("Email", "电子邮件")])
    if contact["notes"]:
        rows.append([contact["notes"], app.t("Notes", "备注")])
    for texts in rows:
        root.add(c.row((0, y, w, y + kit.dp(64)), texts, on_click=None))
        y += kit.dp(64)
    if app.menu:
        root.add(c.menu(more_b, [(app.t("Delete", "删除"), app.ask_delete),
                                 (app.t("Share", "分享"), partial(setattr, app, "menu", False))],
                        on_dismiss=partial(setattr, app, "menu", False)))
    if app.confirm:
        root.add(c.dialog(app.t("Delete this contact?", "删除此联系人？"), [],
                          [(app.t("Cancel", "取消"), partial(setattr, app, "confirm", False)),
                           (app.t("Delete", "删除"), app.delete)],
                          message=app.t(f"{full_name(contact)} will be removed from your "
                                        "contacts.", f"将从通讯录中删除{full_name(contact)}。")))


def _form(app: ContactsApp, c: Compose, root: View) -> None:
    kit = c.kit
    creating = app.screen.params.get("index") is None
    w, top = kit.width, kit.profile.status_bar_height
    save = c.button((w - kit.dp(104), top + kit.dp(8), w - kit.dp(12), top + kit.dp(48)),
                    app.t("Save", "保存"), app.save, color=(20, 70, 190))
    root.add(c.top_bar(app.t("Create contact", "新建联系人") if creating
                       else app.t("Edit contact", "编辑联系人"), on_back=app.back,
                       actions=[save]))
    y = kit.content[1] + kit.dp(72)
    labels = [("first", app.t("First name", "名字")), ("last", app.t("Last name", "姓氏"))]
    labels += [(f"phone{i}", app.t("Phone", "电话")) for i in range(app.phone_slots)]
    for key, label in labels:
        root.add(c.field(kit.row(y, 56), key, app.field(key), label, focused=app.focus == key))
        y += kit.dp(68)
    root.add(c.row((0, y, kit.dp(200), y + kit.dp(48)), [app.t("+ Add phone", "+ 添加电话")],
                   on_click=app.add_phone))
    y += kit.dp(56)
    for key, label in (("email", app.t("Email", "电子邮件")), ("notes", app.t("Notes", "备注"))):
        root.add(c.field(kit.row(y, 56), key, app.field(key), label, focused=app.focus == key))
        y += kit.dp(68)
    if app.toast:
        root.add(c.text(kit.row(y, 32), app.toast, color=(200, 60, 60)))
