"""A small Tk app to drive in tests and benchmarks: buttons, a text field, a long list.

Run it as ``python -m omg_agent.drivers.desktop.testapp --state state.json``. It writes its
own state to that JSON file (atomically) whenever the state changes — button presses by
label, the field's text, the list's first visible row, the selected and the double-clicked
row, right clicks, the status line — so a test reads what the app itself holds, never
what the agent claims. The field shows a grey placeholder ("Type here") until it gets
focus, as web and native fields do, which gives OCR something to anchor on. The file
first appears once the window is mapped (``ready``).
"""

from __future__ import annotations

import argparse
import json
import os
import tkinter as tk
from functools import partial
from pathlib import Path

from omg_agent.durable import write_atomic

PLACEHOLDER = "Type here"
BUTTONS = ("Save", "Clear", "Add item")
ITEMS = 60
POLL_MS = 30


class TestApp:
    def __init__(self, root: tk.Tk, state_path: Path) -> None:
        self.root, self.path = root, state_path
        self.clicks = dict.fromkeys(BUTTONS, 0)
        self.status = tk.StringVar(value="Ready")
        self._last = ""
        font = ("DejaVu Sans", 16)
        root.title("OMG Desk")
        root.geometry("+0+0")
        bar = tk.Frame(root)
        bar.pack(side="top", fill="x", padx=12, pady=12)
        for label in BUTTONS:
            tk.Button(bar, text=label, font=font, width=9,
                      command=partial(self.press, label)).pack(side="left", padx=8)
        self.entry = tk.Entry(root, font=font, width=32, fg="grey50")
        self.entry.insert(0, PLACEHOLDER)
        self.entry.bind("<FocusIn>", self._focus_in)
        self.entry.pack(side="top", padx=12, pady=8, anchor="w")
        self.listbox = tk.Listbox(root, font=font, height=8, width=24, exportselection=False)
        for i in range(1, ITEMS + 1):
            self.listbox.insert("end", f"Row {i:02d}")
        self.listbox.pack(side="top", padx=12, pady=8, anchor="w")
        tk.Label(root, textvariable=self.status, font=font).pack(side="top", padx=12,
                                                                  pady=8, anchor="w")
        self.placeholder = True
        self.right_clicks = 0
        self.opened: str | None = None
        root.bind_all("<Button-3>", self._right_click)
        self.listbox.bind("<Double-Button-1>", self._open_row)
        root.after(POLL_MS, self._poll)

    def press(self, name: str) -> None:
        self.clicks[name] += 1
        if name == "Clear":
            self.entry.delete(0, "end")
        elif name == "Add item":
            self.listbox.insert("end", f"Row {self.listbox.size() + 1:02d}")
        self.status.set(f"{name} pressed {self.clicks[name]}x")

    def _right_click(self, _event: object) -> None:
        self.right_clicks += 1

    def _open_row(self, _event: object) -> None:
        selected = self.listbox.curselection()
        self.opened = self.listbox.get(selected[0]) if selected else None

    def _focus_in(self, _event: object) -> None:
        if self.placeholder:
            self.placeholder = False
            self.entry.delete(0, "end")
            self.entry.configure(fg="black")

    def state(self) -> dict[str, object]:
        selected = self.listbox.curselection()
        return {"ready": True, "clicks": self.clicks,
                "entry": "" if self.placeholder else self.entry.get(),
                "list_top": round(float(self.listbox.yview()[0]) * self.listbox.size()),
                "list_size": self.listbox.size(),
                "selected": self.listbox.get(selected[0]) if selected else None,
                "status": self.status.get(), "right_clicks": self.right_clicks,
                "opened": self.opened, "pid": os.getpid()}

    def _poll(self) -> None:
        if self.root.winfo_viewable():
            text = json.dumps(self.state(), ensure_ascii=False, sort_keys=True)
            if text != self._last:
                write_atomic(self.path, text, sync=False)  # the test reads it whole
                self._last = text
        self.root.after(POLL_MS, self._poll)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--state", type=Path, required=True, help="where to write the state")
    args = parser.parse_args(argv)
    root = tk.Tk(className="omgdesk")
    TestApp(root, args.state)
    root.mainloop()


if __name__ == "__main__":
    main()
