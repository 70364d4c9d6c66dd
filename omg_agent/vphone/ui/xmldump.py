"""Serialise a view tree as ``uiautomator dump`` XML.

The attribute set and order follow what Android's uiautomator writes, so parsers written
for real phones (adbutils, uiautomator2's xpath, our own ``perception.uitree``) read it
unchanged. Only what a user could see is dumped; WebView-like views keep their children to
themselves, as real WebViews often do. A modal dialog is a window of its own: from Android 11
(sdk 30) the dump holds one top-level node per window — the app's, then each dialog's, whose
root is the dialog's panel (the dim behind it is a window flag, not a view) — while older
releases dump only the active window, the dialog.
"""

from __future__ import annotations

from xml.sax.saxutils import quoteattr

from omg_agent.vphone.ui.view import Bounds, View, intersect, visible_children

_HEADER = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"


def _flag(value: bool) -> str:
    return "true" if value else "false"


MULTI_WINDOW_SDK = 30  # Android 11: uiautomator dumps every window, not just the active one


def window_root(root: View) -> View:
    """The active window's view: the topmost modal dialog, or the app when none is up."""
    top = root
    for view in root.walk():
        if view.modal:
            top = view
    return top


def _dialog_window(scrim: View) -> View:
    """A modal view as its window: a DecorView the size of what the dialog draws."""
    boxes = [c.bounds for c in scrim.children] or [scrim.bounds]
    bounds = (min(b[0] for b in boxes), min(b[1] for b in boxes),
              max(b[2] for b in boxes), max(b[3] for b in boxes))
    return View("android.widget.FrameLayout", bounds, package=scrim.package,
                children=scrim.children)


def windows(root: View, sdk: int) -> list[View]:
    """The top-level nodes of a dump, bottom first."""
    if sdk < MULTI_WINDOW_SDK:
        return [window_root(root)]
    return [root, *(_dialog_window(v) for v in root.walk() if v.modal)]


# Android 14's uiautomator writes four more attributes per node; what matters to a reader
# is ``hint``: an empty EditText reports its placeholder as its text (TextView's text for
# accessibility), and only ``hint`` tells the two apart
ANDROID_14 = 34


def dump(root: View, screen: Bounds, rotation: int = 0, *, sdk: int = ANDROID_14) -> str:
    parts = [_HEADER, f'<hierarchy rotation="{rotation}">']
    order = [0] if sdk >= ANDROID_14 else None
    for window in windows(root, sdk):
        _node(parts, window, 0, intersect(window.bounds, screen) or screen, order)
    parts.append("</hierarchy>")
    return "".join(parts)


def _node(parts: list[str], view: View, index: int, shown: Bounds,
          order: list[int] | None) -> None:
    left, top, right, bottom = shown
    attrs = (
        f'index="{index}" text={quoteattr(view.text)} '
        f'resource-id={quoteattr(view.resource_id)} class={quoteattr(view.cls)} '
        f'package={quoteattr(view.package)} content-desc={quoteattr(view.desc)} '
        f'checkable="{_flag(view.checkable)}" checked="{_flag(view.checked)}" '
        f'clickable="{_flag(view.clickable)}" enabled="{_flag(view.enabled)}" '
        f'focusable="{_flag(view.focusable)}" focused="{_flag(view.focused)}" '
        f'scrollable="{_flag(view.scrollable)}" long-clickable="{_flag(view.long_clickable)}" '
        f'password="{_flag(view.password)}" selected="{_flag(view.selected)}" '
        + ('visible-to-user="true" ' if order is not None else "")
        + f'bounds="[{left},{top}][{right},{bottom}]"'
    )
    if order is not None:  # Android 14 (see ANDROID_14)
        attrs += (f' drawing-order="{order[0]}" hint={quoteattr(view.hint)} '
                  'display-id="0"')
        order[0] += 1
    # A modal view below this one is a window of its own (see ``windows``).
    children = [] if view.opaque_to_tree else [
        (c, b) for c, b in visible_children(view, shown) if not c.modal]
    if not children:
        parts.append(f"<node {attrs} />")
        return
    parts.append(f"<node {attrs}>")
    for i, (child, child_shown) in enumerate(children):
        _node(parts, child, i, child_shown, order)
    parts.append("</node>")
