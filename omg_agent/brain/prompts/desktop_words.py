"""The prompts in desktop words: each template's phone sentences and their desktop ones.

A desktop is worked with clicks, windows, menus and keyboard shortcuts, not taps, a home
screen, a back button or a launcher; the rules (targets, bundles, checks, safety) are the
same. So the templates stay one text each, written for the phone, and :func:`for_desktop`
swaps the sentences that differ. A swap that does not find its sentence exactly once is an
error (:class:`ValueError`): a template edited without its desktop words must fail the
tests, not ship a desktop prompt that says "phone".
"""

from __future__ import annotations

SWAPS: dict[str, tuple[tuple[str, str], ...]] = {
    "operator": (
        ("You operate an Android phone for a user",
         "You operate a desktop computer (its apps, windows and menus) for a user"),
        ("Elements after a line `-- keyboard: … --`\n(or popup, system) belong to that "
         "window; app elements under it are not listed, nor are\nstatus and navigation bars "
         "(use `back` / `home`). A popup or dialog over the app takes its\ntaps: dismiss it "
         "first (its close, \"No thanks\", `back`) unless the task needs it.",
         "Elements after a line `-- popup: … --`\n(a dialog, a sheet such as Save, an open "
         "menu) belong to that window, and what it covers is\nnot listed; `-- menubar: … --` "
         "starts the app's menu bar. A dialog or sheet over the window\ntakes its clicks: "
         "answer it or close it (its Cancel, `back` = Escape) unless the task needs it."),
        ("- `tap` (`target`), `double_tap` (`target`), `long_press` (`target`, "
         "`duration_ms`).",
         "- `tap` (`target`) clicks, `double_tap` (`target`) double-clicks, `long_press` "
         "(`target`, `duration_ms`)\n  right-clicks (a context menu)."),
        ("- `key` (`key`: back, home, enter, delete, tab, …; on a desktop a hotkey like "
         "`ctrl+l`),\n  `launch` (`app`: name or package), `back`, `home`, `wait` "
         "(`seconds`).",
         "- `key` (`key`: a keyboard shortcut like `ctrl+s`, `cmd+s` on a Mac, or enter, "
         "escape, delete,\n  tab, …), `launch` (`app`: the application's name), `back` "
         "(Escape), `wait` (`seconds`);\n  `home` does nothing on a desktop."),
        ("- `swipe` (`from`/`to`, or `direction` and `distance`: 0–1000 of that axis, from "
         "the centre\n  or `start`; `duration_ms`). \"up\" shows what is below; at a list's "
         "end the content moves\n  less than the finger: compare the lists.",
         "- `swipe` (`from`/`to`: a drag with the mouse button held; or `direction` and "
         "`distance`: 0–1000\n  of that axis, from the centre or `start`: the mouse wheel; "
         "`duration_ms`). \"up\" shows what is\n  below; at a list's end the content moves "
         "less: compare the lists."),
        ("a tap anchored on any of an item's texts", "a click anchored on any of an item's "
         "texts"),
        ("close\nthe popup or go back.", "close\nthe dialog or press Escape."),
        ("a secret only the phone may see", "a secret only this computer may see"),
        ("when the phone shows the task cannot be done", "when the screen shows the task "
         "cannot be done"),
    ),
    "operator_bundles": (
        ("- A tap (except on an edit field or a switch), long press, double tap, swipe, "
         "launch,\n  back, home, enter or type with submit can change the screen",
         "- A click (except on an edit field or a switch), right click, double click, "
         "drag,\n  launch, Escape, enter, a shortcut or type with submit can change the "
         "screen"),
        ("- Good: type user name and password, tap \"Sign in\"; launch Settings, tap the "
         "anchor\n  `resource_id: wifi_switch`; type a query with submit, tap the expected "
         "result's anchor.",
         "- Good: type user name and password, click \"Sign in\"; click the \"File\" menu, "
         "then its\n  \"Save…\" item by anchor; type a query with submit, click the "
         "expected result's anchor."),
        ("fits the phone;", "fits the desktop;"),
    ),
    "planner": (
        ("which works an Android phone for a user.",
         "which works a desktop computer (its apps, windows, menus and dialogs) for a user."),
        ("the apps on the phone and a summary of the current\nscreen.",
         "the apps on this computer and a summary of the current\nscreen: the foreground "
         "app and its window."),
        ("choosing taps and typing", "choosing clicks, keyboard shortcuts and typing"),
        ("- Milestones, not taps: \"Open Shop and find the MacBook Air page\", never "
         "\"tap (512, 880)\".",
         "- Milestones, not clicks: \"Open TextEdit and save the note as todo.txt\", never "
         "\"click (512, 880)\"."),
        ("(which app, what to search for, which menu)",
         "(which app, which menu or keyboard shortcut, which dialog)"),
        ("`{\"kind\": \"app\", \"app\": \"com.android.settings\"}`",
         "`{\"kind\": \"app\", \"app\": \"TextEdit\"}`"),
    ),
    "replan": (
        ("from where the phone is\n  now", "from where the desktop is\n  now"),
        ("when the phone shows the task cannot be done",
         "when the screen shows the task cannot be done"),
    ),
}


def for_desktop(name: str, text: str) -> str:
    """Template ``name``'s rendered ``text`` in desktop words."""
    for phone, desktop in SWAPS.get(name, ()):
        found = text.count(phone)
        if found != 1:
            raise ValueError(f"prompt {name!r}: the desktop wording expects {phone[:60]!r} "
                             f"once, found it {found} times — update prompts/desktop_words.py")
        text = text.replace(phone, desktop)
    return text
