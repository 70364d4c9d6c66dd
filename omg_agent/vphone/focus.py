"""Keyboard focus on the VirtualPhone, moved and used as Android does.

Tab and the D-pad move focus between the screen's focusable controls (Tab and DPAD_DOWN /
DPAD_RIGHT forward, DPAD_UP / DPAD_LEFT back, in the nearest control that way); the
focused control shows ``focused="true"`` in the uiautomator dump, and ENTER, DPAD_CENTER,
SPACE or NUMPAD_ENTER activate it as a tap would. A touch leaves focus mode (Android's
touch mode), as does a new screen. With a dialog up, focus stays in the dialog. An edit
field that takes focus this way is the app's focused field (typing goes there).
"""

from __future__ import annotations

from omg_agent.vphone.ui.view import View, visible_children

KEY_DPAD_UP, KEY_DPAD_DOWN, KEY_DPAD_LEFT, KEY_DPAD_RIGHT = 19, 20, 21, 22
KEY_DPAD_CENTER, KEY_TAB, KEY_SPACE, KEY_ENTER, KEY_NUMPAD_ENTER = 23, 61, 62, 66, 160
MOVES = frozenset({KEY_TAB, KEY_DPAD_UP, KEY_DPAD_DOWN, KEY_DPAD_LEFT, KEY_DPAD_RIGHT})
ACTIVATES = frozenset({KEY_DPAD_CENTER, KEY_SPACE, KEY_ENTER, KEY_NUMPAD_ENTER})
Ident = tuple[str, str, str, tuple[int, int, int, int]]


def ident(view: View) -> Ident:
    return view.resource_id, view.text, view.desc, view.bounds


def focusables(root: View) -> list[View]:
    """The controls focus can move to, in the order a Tab visits them (with a dialog up:
    the dialog's)."""
    scope = next((v for v in reversed(root.children) if v.modal), root)
    found: list[View] = []

    def walk(view: View, clip: tuple[int, int, int, int]) -> None:
        if view.enabled and view.focusable and (view.clickable or view.field_key is not None) \
                and view.cls != "android.webkit.WebView":
            found.append(view)
        for child, shown in visible_children(view, clip):
            walk(child, shown)
    walk(scope, scope.bounds)
    return found


class KeyFocus:
    """Which control has keyboard focus (``None``: touch mode, nothing focused)."""

    def __init__(self) -> None:
        self.at: Ident | None = None

    def clear(self) -> None:
        self.at = None

    def current(self, root: View) -> View | None:
        """The focused control of ``root``, if it is still on the screen."""
        if self.at is None:
            return None
        return next((v for v in focusables(root) if ident(v) == self.at), None)

    def move(self, root: View, keycode: int) -> View | None:
        """Move focus for ``keycode`` (Tab or a D-pad arrow); the newly focused control."""
        views = focusables(root)
        if not views:
            self.at = None
            return None
        here = self.current(root) or next((v for v in views if v.focused), None)
        if here is None:
            target = views[0] if keycode != KEY_DPAD_UP else views[-1]
        elif keycode == KEY_TAB:
            target = views[(views.index(here) + 1) % len(views)]
        else:
            target = _nearest(here, views, keycode) or here
        self.at = ident(target)
        return target

    def mark(self, root: View) -> None:
        """Show the focus in the tree: the focused control says ``focused="true"``, and no
        other control does."""
        focused = self.current(root)
        if focused is None:
            return
        for view in root.walk():
            view.focused = view is focused


def _nearest(here: View, views: list[View], keycode: int) -> View | None:
    """The control nearest to ``here`` in the D-pad's direction (Android's focus search:
    the main axis first, then how far off it)."""
    hx, hy = here.center
    dx, dy = {KEY_DPAD_UP: (0, -1), KEY_DPAD_DOWN: (0, 1), KEY_DPAD_LEFT: (-1, 0),
              KEY_DPAD_RIGHT: (1, 0)}[keycode]
    best: tuple[int, View] | None = None
    for view in views:
        if view is here:
            continue
        x, y = view.center
        main = (x - hx) * dx + (y - hy) * dy
        if main <= 0:
            continue
        off = abs((x - hx) * dy) + abs((y - hy) * dx)
        score = main + 2 * off
        if best is None or score < best[0]:
            best = (score, view)
    return best[1] if best is not None else None
