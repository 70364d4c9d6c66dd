"""Date and time pickers, drawn as Android's: ``NumberPicker`` columns and a month grid.

A :func:`number_picker` is one column (``android.widget.NumberPicker``): an increment button
above (desc "Increase hour"), its value as an ``EditText`` in the middle (typing a number
into it sets the value, as on a real NumberPicker; a number out of range is ignored, the
column keeps its last valid value) and a decrement button below; a vertical swipe on the
column turns it (dragging up shows the next values). Values live in the app's named text
fields (``fields[key]``), so the phone's typing reaches them like any field.

:func:`time_dialog` is a 24-hour TimePickerDialog (hour and minute columns, Cancel/OK);
:func:`date_dialog` a DatePickerDialog: a month grid with previous/next month buttons, day
cells whose text is the day number and whose desc is the full date, Cancel/OK.
"""

from __future__ import annotations

import calendar
from collections.abc import Callable, Sequence
from datetime import date

from omg_agent.vphone.ui.kit import MUTED, ON_SURFACE, PRIMARY, Kit
from omg_agent.vphone.ui.view import Bounds, Handler, View

STEP_DP = 40  # a swipe this long turns a column by one value
MONTHS_ZH = "一二三四五六七八九十"
WEEKDAYS_EN = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
WEEKDAYS_ZH = ("一", "二", "三", "四", "五", "六", "日")


def read(fields: dict[str, str], key: str, lo: int, hi: int, default: int = 0) -> int:
    """The column's value: the number typed or stepped into ``fields[key]`` when it is a
    whole number in ``lo..hi``, else its last valid value (``fields[key + '#ok']``)."""
    text = fields.get(key, "").strip()
    if text.isdigit() and lo <= int(text) <= hi:
        fields[f"{key}#ok"] = str(int(text))
        return int(text)
    kept = fields.get(f"{key}#ok", "")
    return int(kept) if kept.isdigit() else default


def put(fields: dict[str, str], key: str, value: int) -> None:
    """Set a column's value (both its text and its last valid value)."""
    fields[key] = f"{value:02d}"
    fields[f"{key}#ok"] = str(value)


def step(fields: dict[str, str], key: str, lo: int, hi: int, delta: int) -> None:
    """Turn a column by ``delta`` values, wrapping around as a NumberPicker does."""
    span = hi - lo + 1
    put(fields, key, lo + (read(fields, key, lo, hi, lo) - lo + delta) % span)


def full_date(day: date, zh: bool) -> str:
    """The desc of a day cell (and how the apps write a date): "2 March 2026" / "2026年3月2日"."""
    if zh:
        return f"{day.year}年{day.month}月{day.day}日"
    return f"{day.day} {calendar.month_name[day.month]} {day.year}"


def month_title(month: date, zh: bool) -> str:
    return f"{month.year}年{month.month}月" if zh else f"{calendar.month_name[month.month]} " \
                                                     f"{month.year}"


def number_picker(kit: Kit, bounds: Bounds, fields: dict[str, str], key: str, label: str,
                  lo: int, hi: int, *, focused: bool = False,
                  on_change: Callable[[], None] | None = None) -> View:
    """One NumberPicker column holding ``fields[key]``; ``label`` names it in the +/- descs
    ("Increase hour"). ``on_change`` runs after a step (the caller may redraw)."""
    left, top, right, bottom = bounds
    third = (bottom - top) // 3
    value = read(fields, key, lo, hi, lo)
    drag = f"{key}#drag"

    def turn(delta: int) -> None:
        step(fields, key, lo, hi, delta)
        if on_change is not None:
            on_change()

    def scroll(px: int) -> None:  # the remainder of a slow drag carries over
        total = int(fields.get(drag, "0") or 0) + px
        steps = int(total / kit.dp(STEP_DP))
        fields[drag] = str(total - steps * kit.dp(STEP_DP))
        if steps:
            turn(steps)

    column = kit.view("android.widget.NumberPicker", bounds, scrollable=True, focusable=True,
                      on_scroll=scroll, resource_id=f"{kit.package}:id/{key}",
                      style={"bg": (238, 240, 246), "radius": kit.dp(12)})
    shown = fields.get(key, f"{value:02d}") if focused else f"{value:02d}"
    column.add(
        _arrow(kit, (left, top, right, top + third), "▲", f"Increase {label}",
               lambda: turn(1), "increment"),
        kit.view("android.widget.EditText", (left, top + third, right, bottom - third),
                 text=shown, kind="text", resource_id=f"{kit.package}:id/{key}_input",
                 clickable=True, focusable=True, focused=focused, field_key=key,
                 long_clickable=True,
                 style={"size": kit.dp(28), "fg": ON_SURFACE, "bold": True,
                        "align": "center"}),
        _arrow(kit, (left, bottom - third, right, bottom), "▼", f"Decrease {label}",
               lambda: turn(-1), "decrement"))
    return column


def _arrow(kit: Kit, bounds: Bounds, glyph: str, desc: str, on_click: Handler,
           rid: str) -> View:
    return kit.view("android.widget.ImageButton", bounds, desc=desc, kind="glyph",
                    clickable=True, focusable=True, on_click=on_click,
                    resource_id=f"android:id/{rid}",
                    style={"glyph": glyph, "fg": PRIMARY})


def time_columns(kit: Kit, top: int, fields: dict[str, str], focus: str | None,
                 columns: Sequence[tuple[str, str, int]]) -> list[View]:
    """Side-by-side NumberPickers under ``top``: (field key, label, max value) each."""
    n = len(columns)
    width, gap = kit.dp(88), kit.dp(24)
    left = (kit.width - n * width - (n - 1) * gap) // 2
    out: list[View] = []
    for i, (key, label, hi) in enumerate(columns):
        x = left + i * (width + gap)
        out.append(number_picker(kit, (x, top, x + width, top + kit.dp(168)), fields, key,
                                 label, 0, hi, focused=focus == key))
        if i < n - 1:
            out.append(kit.text((x + width, top, x + width + gap, top + kit.dp(168)), ":",
                                size=28, bold=True, align="center"))
    return out


def _panel(kit: Kit, height_dp: int) -> tuple[View, View, Bounds]:
    """A modal scrim and the dialog panel on it (added to the scrim), and the panel's box."""
    p = kit.profile
    scrim = kit.view("android.widget.FrameLayout", (0, 0, p.width, p.height), kind="scrim",
                     modal=True, style={"bg": (0, 0, 0, 110)})
    w, h = p.width - kit.dp(40), kit.dp(height_dp)
    left, top = (p.width - w) // 2, (p.height - h) // 2
    box = (left, top, left + w, top + h)
    panel = kit.view("android.widget.LinearLayout", box, resource_id="android:id/parentPanel",
                     style={"bg": (255, 255, 255), "radius": kit.dp(24)})
    scrim.add(panel)
    return scrim, panel, box


def dialog_buttons(kit: Kit, box: Bounds, ok: tuple[str, Handler],
                   cancel: tuple[str, Handler]) -> list[View]:
    """Cancel and OK at the dialog's bottom right (``android:id/button2`` / ``button1``)."""
    _, _, right, bottom = box
    return kit.dialog_buttons(right - kit.dp(16), bottom - kit.dp(60), (ok, cancel),
                              width_dp=104)


def time_dialog(kit: Kit, title: str, fields: dict[str, str], focus: str | None,
                ok: tuple[str, Handler], cancel: tuple[str, Handler]) -> View:
    """A 24-hour TimePickerDialog on ``fields['hour']`` and ``fields['minute']``."""
    scrim, panel, box = _panel(kit, 320)
    left, top, right, _ = box
    panel.add(kit.view("android.widget.TextView", (left + kit.dp(24), top + kit.dp(16),
                                                   right - kit.dp(24), top + kit.dp(52)),
                       kind="text", text=title, resource_id="android:id/alertTitle",
                       style={"size": kit.dp(20), "fg": ON_SURFACE, "bold": True}))
    picker = kit.view("android.widget.TimePicker", (left, top + kit.dp(60), right,
                                                    top + kit.dp(240)),
                      resource_id="android:id/timePicker")
    picker.add(*time_columns(kit, top + kit.dp(64), fields, focus,
                             (("hour", "hour", 23), ("minute", "minute", 59))))
    panel.add(picker, *dialog_buttons(kit, box, ok, cancel))
    return scrim


def date_dialog(kit: Kit, month: date, picked: date, today: date, zh: bool,
                on_day: Callable[[date], None], on_month: Callable[[int], None],
                ok: tuple[str, Handler], cancel: tuple[str, Handler]) -> View:
    """A DatePickerDialog showing ``month``: ``picked`` is selected, ``today`` outlined."""
    scrim, panel, box = _panel(kit, 500)
    left, top, right, _ = box
    pad = kit.dp(16)
    panel.add(kit.view("android.widget.TextView", (left + kit.dp(24), top + pad,
                                                   right - kit.dp(24), top + kit.dp(56)),
                       kind="text", text=full_date(picked, zh),
                       resource_id="android:id/date_picker_header_date",
                       style={"size": kit.dp(22), "fg": ON_SURFACE, "bold": True}))
    y = top + kit.dp(64)
    nav = kit.dp(48)
    panel.add(
        kit.view("android.widget.ImageButton", (left + pad, y, left + pad + nav, y + nav),
                 desc="上一月" if zh else "Previous month", kind="glyph", clickable=True,
                 focusable=True, on_click=lambda: on_month(-1), resource_id="android:id/prev",
                 style={"glyph": "‹", "fg": PRIMARY}),
        kit.text((left + pad + nav, y, right - pad - nav, y + nav), month_title(month, zh),
                 size=17, bold=True, align="center",
                 resource_id="android:id/month_view"),
        kit.view("android.widget.ImageButton", (right - pad - nav, y, right - pad, y + nav),
                 desc="下一月" if zh else "Next month", kind="glyph", clickable=True,
                 focusable=True, on_click=lambda: on_month(1), resource_id="android:id/next",
                 style={"glyph": "›", "fg": PRIMARY}))
    grid = month_grid(kit, (left + pad, y + nav + kit.dp(4), right - pad,
                            y + nav + kit.dp(320)), month, zh, lambda d: {
        "selected": d == picked, "today": d == today, "dot": False}, on_day)
    panel.add(grid, *dialog_buttons(kit, box, ok, cancel))
    return scrim


def month_grid(kit: Kit, bounds: Bounds, month: date, zh: bool,
               mark: Callable[[date], dict], on_day: Callable[[date], None]) -> View:
    """A month's days in weeks (Monday first) under a row of weekday names; ``mark(day)``
    says whether a day is selected, today (outlined) or has events (a dot)."""
    left, top, right, bottom = bounds
    grid = kit.view("android.widget.GridView", bounds,
                    resource_id=f"{kit.package}:id/month_grid")
    weeks = calendar.Calendar(0).monthdatescalendar(month.year, month.month)
    cw = (right - left) // 7
    rh = (bottom - top) // (len(weeks) + 1)
    for i, name in enumerate(WEEKDAYS_ZH if zh else WEEKDAYS_EN):
        grid.add(kit.text((left + i * cw, top, left + (i + 1) * cw, top + rh), name, size=13,
                          color=MUTED, align="center"))
    for w, week in enumerate(weeks):
        for i, day in enumerate(week):
            if day.month != month.month:
                continue
            cell = (left + i * cw, top + (w + 1) * rh, left + (i + 1) * cw,
                    top + (w + 2) * rh)
            grid.add(_day_cell(kit, cell, day, zh, mark(day), on_day))
    return grid


def _day_cell(kit: Kit, cell: Bounds, day: date, zh: bool, marks: dict,
              on_day: Callable[[date], None]) -> View:
    selected, today = marks.get("selected", False), marks.get("today", False)
    style = {"size": kit.dp(15), "fg": (255, 255, 255) if selected else ON_SURFACE,
             "bold": today or selected, "align": "center"}
    if selected:
        style.update(bg=PRIMARY, radius=kit.dp(18))
    elif today:
        style.update(bg=(222, 232, 252), radius=kit.dp(18))
    view = kit.view("android.widget.TextView", cell, text=str(day.day), desc=full_date(day, zh),
                    kind="text", clickable=True, focusable=True, selected=selected,
                    on_click=lambda: on_day(day), resource_id=f"{kit.package}:id/day",
                    style=style)
    if marks.get("dot"):
        x, y = (cell[0] + cell[2]) // 2, cell[3] - kit.dp(7)
        view.add(kit.view("android.view.View", (x - kit.dp(3), y - kit.dp(3), x + kit.dp(3),
                                                y + kit.dp(3)),
                          style={"bg": (230, 120, 40), "radius": kit.dp(3)}))
    return view


def choice_dialog(kit: Kit, title: str, options: Sequence[tuple[str, bool, Handler]],
                  cancel: tuple[str, Handler]) -> View:
    """A single-choice dialog: one RadioButton per option (label, checked, on pick)."""
    scrim, panel, box = _panel(kit, 120 + 56 * len(options))
    left, top, right, bottom = box
    pad = kit.dp(24)
    panel.add(kit.view("android.widget.TextView", (left + pad, top + kit.dp(16), right - pad,
                                                   top + kit.dp(52)),
                       kind="text", text=title, resource_id="android:id/alertTitle",
                       style={"size": kit.dp(20), "fg": ON_SURFACE, "bold": True}))
    listing = kit.view("android.widget.ListView", (left, top + kit.dp(60), right,
                                                   top + kit.dp(60 + 56 * len(options))),
                       resource_id="android:id/select_dialog_listview")
    for i, (label, checked, handler) in enumerate(options):
        y = top + kit.dp(60 + 56 * i)
        listing.add(kit.view("android.widget.RadioButton", (left + pad, y, right - pad,
                                                            y + kit.dp(56)),
                             text=label, kind="text",
                             checkable=True, checked=checked, clickable=True, focusable=True,
                             on_click=handler, resource_id="android:id/text1",
                             style={"size": kit.dp(17), "bold": checked,
                                    "fg": PRIMARY if checked else ON_SURFACE}))
    panel.add(listing)
    bw = kit.dp(104)
    panel.add(kit.view("android.widget.Button", (right - kit.dp(16) - bw, bottom - kit.dp(60),
                                                 right - kit.dp(16), bottom - kit.dp(12)),
                       kind="flat_button", text=cancel[0], clickable=True, focusable=True,
                       on_click=cancel[1], resource_id="android:id/button2",
                       style={"fg": PRIMARY, "size": kit.dp(16), "bold": True}))
    return scrim
