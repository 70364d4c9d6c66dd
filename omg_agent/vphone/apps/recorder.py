"""Recorder / 录音机 (``com.omg.recorder``): voice memos timed by the phone's clock.

The first Record asks for the microphone (the system's permission dialog, see
:mod:`omg_agent.vphone.system_permissions`); granted, the next Record records; refused, the
app shows its rationale instead. Recording shows the elapsed time, read from the injected
clock (``AppEnv.clock``) and never from a timer of its own, so Pause / Resume / Stop are
exact. Stop saves
"Recording N" with its duration; each saved recording has a "More options" menu with Rename
(a dialog with a name field) and Delete (asks first). ``state()`` lists the recordings with
their durations in seconds.

``advance(seconds)`` moves the recorder's clock on without waiting: the expert double uses it
where a user would wait, so a timed task's test takes no wall time (a real model waits).
"""

from __future__ import annotations

from functools import partial

from omg_agent.vphone.apps.base import App
from omg_agent.vphone.apps.recorder_views import build_main, build_menu, build_rename, clock_text
from omg_agent.vphone.ui.kit import Kit
from omg_agent.vphone.ui.view import View

MIC = "microphone"


class RecorderApp(App):
    package = "com.omg.recorder"
    label = "Recorder"
    label_zh = "录音机"
    glyph = "●"
    color = (220, 60, 70)
    activities = {"main": ".RecorderActivity"}

    def reset_data(self) -> None:
        self.recordings: list[dict] = []
        self.deleted: list[str] = []
        self.skew = 0.0  # seconds ``advance`` added to the phone's clock
        self.denied = False  # the last microphone request was refused
        self._clear_take()

    def _clear_take(self) -> None:
        self.started: float | None = None  # when the running take (re)started
        self.banked = 0.0  # seconds recorded before the last pause
        self.paused = False

    def reset_ui(self) -> None:
        super().reset_ui()
        self.menu: int | None = None  # index whose "More options" menu is open
        self.dialog: tuple[str, int] | None = None  # ("rename" | "delete", index)
        if hasattr(self, "recordings"):
            self._clear_take()

    # -- time ----------------------------------------------------------------------------
    def now(self) -> float:
        return self.env.clock() + self.skew

    def advance(self, seconds: float) -> None:
        self.skew += seconds

    @property
    def recording(self) -> bool:
        return self.started is not None or self.paused

    def elapsed(self) -> float:
        running = self.now() - self.started if self.started is not None else 0.0
        return self.banked + running

    def frame_key(self) -> tuple:
        return (int(self.elapsed()),) if self.started is not None else ()

    # -- recording -----------------------------------------------------------------------
    def _record(self) -> None:
        system = self.env.system
        if system is None or system.has_permission(self.package, MIC):
            self._start()
            return
        system.request_permission(self.package, MIC, self._answered)

    def _answered(self, granted: bool) -> None:
        # Granted, the next Record starts a take (the user taps it again, knowing the
        # microphone is on), so a take's length never includes the time spent in the dialog.
        self.denied = not granted

    def open_settings(self) -> None:
        """The rationale's "Open settings": the system's page for the microphone."""
        if self.env.system is not None:
            self.env.system.open_permission_settings(self.package, MIC)

    def _start(self) -> None:
        self.denied = False
        self._clear_take()
        self.started = self.now()

    def _pause(self) -> None:
        if self.started is not None:
            self.banked = self.elapsed()
            self.started, self.paused = None, True
        elif self.paused:
            self.started, self.paused = self.now(), False

    def _stop(self) -> None:
        if not self.recording:
            return
        seconds = round(self.elapsed(), 1)
        n = len(self.recordings) + len(self.deleted) + 1
        self.recordings.insert(0, {"name": self.t(f"Recording {n}", f"录音 {n}"),
                                   "seconds": seconds})
        self._clear_take()

    # -- the list ------------------------------------------------------------------------
    def _open_menu(self, index: int) -> None:
        self.menu = index

    def _choose(self, what: str) -> None:
        index, self.menu = self.menu, None
        if index is None:
            return
        self.dialog = (what, index)
        if what == "rename":
            self.fields["rename"] = self.recordings[index]["name"]
            self.focus = "rename"

    def _rename(self) -> None:
        if self.dialog is None:
            return
        name = self.field("rename").strip()
        if name:
            self.recordings[self.dialog[1]]["name"] = name
        self._close_dialog()

    def _delete(self) -> None:
        if self.dialog is not None:
            gone = self.recordings.pop(self.dialog[1])
            self.deleted.append(gone["name"])
        self._close_dialog()

    def _close_dialog(self) -> None:
        self.dialog, self.menu = None, None
        self.fields.pop("rename", None)
        self.focus = None

    def on_enter(self, key: str) -> bool:
        if key == "rename":
            self._rename()
            return True
        return False

    def back(self) -> bool:
        if self.ime_shown:
            self.ime_shown = False
            return True
        if self.menu is not None or self.dialog is not None:
            self._close_dialog()
            return True
        return super().back()

    # -- drawing -------------------------------------------------------------------------
    def build(self, kit: Kit) -> View:
        root = kit.root()
        build_main(self, kit, root, record=self._record, pause=self._pause, stop=self._stop,
                   more=lambda i: partial(self._open_menu, i))
        if self.menu is not None:
            root.add(build_menu(self, kit, self.menu, partial(self._choose, "rename"),
                                partial(self._choose, "delete"), self._close_dialog))
        if self.dialog is not None and self.dialog[0] == "rename":
            root.add(build_rename(self, kit, self._rename, self._close_dialog))
        elif self.dialog is not None:
            name = self.recordings[self.dialog[1]]["name"]
            root.add(kit.dialog(self.t("Delete recording?", "删除录音？"),
                                self.t(f"“{name}” will be deleted.", f"将删除“{name}”。"),
                                [(self.t("Cancel", "取消"), self._close_dialog),
                                 (self.t("Delete", "删除"), self._delete)]))
        return root

    def state(self) -> dict:
        return {"recordings": [dict(r) for r in self.recordings], "deleted": list(self.deleted),
                "recording": self.recording, "elapsed": round(self.elapsed(), 1),
                "denied": self.denied, "timer": clock_text(self.elapsed())}
