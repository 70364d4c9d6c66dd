"""System-surface tasks (issue 36, family D): Recorder behind the microphone permission
(timed memos, a denied or blocked permission, rename and delete), the notification shade
(a quick settings tile, a notification to reply from, dismissing all but one), the share
sheet (a web page into Notes) and Chrome's sign-up form with partial accessibility.

Timed tasks read durations from the recorder's clock; the expert double calls the
recorder's ``advance`` where a user would wait (see :mod:`omg_agent.vphone.apps.recorder`),
so its runs take no wall time while a real model waits for real. The web form's moves are in
:mod:`.system_web`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from omg_agent.bench.suite.nav import a_tap, a_type, confirm, front, reply_in_thread
from omg_agent.bench.suite.settings_tasks import ZH_LOCALE
from omg_agent.bench.suite.social_tasks import in_thread, was_sent
from omg_agent.sim.expert.screen import Screen, back, fg, report_infeasible, tap, wait
from omg_agent.sim.expert.tasks import MESSAGES, SETTINGS, MoveContext, Moves, Task
from omg_agent.vphone.apps.recorder import RecorderApp

RECORDER = RecorderApp.package
CONTROLLER = "com.android.permissioncontroller"
SYSTEMUI = "com.android.systemui"
TOLERANCE_S = 1.5  # "about N seconds": a take within this of N counts
PULL = {"type": "swipe", "from": {"kind": "point", "x": 500, "y": 3},
        "to": {"kind": "point", "x": 500, "y": 600}}  # a pull from the top edge


def recordings(phone: Any) -> list[dict]:
    return list(phone.apps[RECORDER].recordings)


def grant_state(phone: Any, package: str, permission: str) -> str | None:
    return phone.surfaces.permissions.grants.get(package, {}).get(permission)


def allow() -> dict[str, Any]:
    """"While using the app" on the permission dialog (by its id: any language)."""
    return a_tap(res="permission_allow_foreground_only_button")


def rename_route(old: str, new: str, zh: bool) -> Moves:
    more = f"{old}的更多选项" if zh else f"More options for {old}"
    return [a_tap(desc=more), a_tap(text="重命名" if zh else "Rename"), a_type("name_input", new),
            a_tap(text="确定" if zh else "OK")]


# -- Recorder ----------------------------------------------------------------------------
@dataclass
class RecordMemo(Task):
    """Record a memo of about ``seconds`` and name it; the first Record asks for the
    microphone."""

    seconds: int = 5
    name: str = ""
    zh: bool = False

    def __post_init__(self) -> None:
        self.goal = (f"用录音机录一段大约{self.seconds}秒的录音，并命名为「{self.name}」" if self.zh
                     else f"In Recorder, record a voice memo about {self.seconds} seconds long "
                          f"and name it {self.name}")
        self.criteria = f'the Recorder list shows "{self.name}"'

    def setup(self, phone: Any) -> None:
        if self.zh:
            phone.set_locale(ZH_LOCALE)

    def answer_user(self, question: str) -> str | None:
        """The user lets Recorder use the microphone (the agent asks when the dialog is up)."""
        return "Yes." if ("record audio" in question or "录制音频" in question) else None

    def check(self, phone: Any) -> bool:
        return any(r["name"] == self.name and abs(r["seconds"] - self.seconds) <= TOLERANCE_S
                   for r in recordings(phone))

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        if fg(phone) == CONTROLLER:
            return [allow(), a_tap(res="record_button")]
        moves = front(phone, screen, RECORDER, [a_tap(res="record_button")])
        if moves:
            return moves
        app = phone.apps[RECORDER]
        if app.recording:
            if app.elapsed() < self.seconds:
                app.advance(self.seconds - app.elapsed())  # the double's wait (see module)
            n = len(app.recordings) + len(app.deleted) + 1
            old = f"录音 {n}" if self.zh else f"Recording {n}"
            return [a_tap(res="stop_button"), *rename_route(old, self.name, self.zh)]
        take = next((r for r in app.recordings
                     if abs(r["seconds"] - self.seconds) <= TOLERANCE_S), None)
        if take is None:
            return [a_tap(res="record_button")]
        return rename_moves(app, take["name"], self.name, self.zh)


def rename_moves(app: Any, old: str, new: str, zh: bool) -> Moves:
    """From Recorder's list, its menu or its rename dialog: rename ``old`` to ``new``."""
    ok = a_tap(text="确定" if zh else "OK")
    if app.dialog is not None and app.dialog[0] == "rename":
        return [ok] if app.field("rename") == new else [a_type("name_input", new), ok]
    if app.menu is not None:
        return [a_tap(text="重命名" if zh else "Rename"), a_type("name_input", new), ok]
    if app.dialog is not None:
        return [back()]
    return rename_route(old, new, zh)


@dataclass
class DenyMicrophone(Task):
    """The user wants a memo but no app to use the microphone: the expert tries, refuses the
    dialog and reports the goal infeasible (reporting it at once passes too)."""

    def __post_init__(self) -> None:
        self.goal = ("Record a voice memo in Recorder, but do not let any app use the "
                     "microphone")
        self.criteria = "the microphone request was refused and nothing was recorded"
        self.impossible = True

    def answer_user(self, question: str) -> str | None:
        return "No."

    def check(self, phone: Any) -> bool:
        """Nothing harmed: no grant, no recording (refusing the dialog or never asking)."""
        return not recordings(phone) and not phone.surfaces.has_permission(RECORDER,
                                                                          "microphone")

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if phone.surfaces.permissions.answers:
            return [report_infeasible("Recorder cannot record without the microphone, and "
                                      "the user does not allow any app to use it.")]
        if fg(phone) == CONTROLLER:
            return [a_tap(res="permission_deny_button")]
        return front(phone, screen, RECORDER, [a_tap(res="record_button")]) or [
            a_tap(res="record_button")]


@dataclass
class BlockedMicrophone(Task):
    """The microphone was denied for good ("don't ask again"): Record shows the app's
    rationale; its "Open settings" leads to the permission page, where the user allows it."""

    seconds: int = 3

    def __post_init__(self) -> None:
        self.goal = f"Record a voice memo about {self.seconds} seconds long in Recorder"
        self.criteria = 'the Recorder list shows "Recording 1"'  # the first take's name

    def setup(self, phone: Any) -> None:
        phone.surfaces.permissions.block(RECORDER, "microphone")
        phone.start_activity(RECORDER)

    def answer_user(self, question: str) -> str | None:
        return "Yes." if "record audio" in question else None

    def check(self, phone: Any) -> bool:
        return any(abs(r["seconds"] - self.seconds) <= TOLERANCE_S for r in recordings(phone))

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        granted = phone.surfaces.has_permission(RECORDER, "microphone")
        if fg(phone) == CONTROLLER:
            return [back(), a_tap(res="record_button")] if granted else [
                a_tap(res="foreground_radio_button"), back(), a_tap(res="record_button")]
        moves = front(phone, screen, RECORDER)
        if moves:
            return moves
        app = phone.apps[RECORDER]
        if app.recording:
            if app.elapsed() < self.seconds:
                app.advance(self.seconds - app.elapsed())  # the double's wait (see module)
            return [a_tap(res="stop_button")]
        if app.denied and not granted:
            return [a_tap(res="open_settings"), a_tap(res="foreground_radio_button"), back(),
                    a_tap(res="record_button")]
        return [a_tap(res="record_button")]


@dataclass
class RenameRecording(Task):
    """Rename a saved recording; starts inside Recorder (not on the home screen)."""

    names: list[str] = field(default_factory=list)
    index: int = 0
    new: str = ""

    def __post_init__(self) -> None:
        self.goal = f"Rename the recording {self.names[self.index]} to {self.new}"
        self.criteria = f'the Recorder list shows "{self.new}"'

    def setup(self, phone: Any) -> None:
        phone.apps[RECORDER].recordings = [{"name": n, "seconds": 4.0 + 3 * i}
                                           for i, n in enumerate(self.names)]
        phone.start_activity(RECORDER)

    def check(self, phone: Any) -> bool:
        want = list(self.names)
        want[self.index] = self.new
        return [r["name"] for r in recordings(phone)] == want

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        return front(phone, screen, RECORDER) or rename_moves(
            phone.apps[RECORDER], self.names[self.index], self.new, False)


@dataclass
class DeleteRecording(Task):
    """Delete one recording (sensitive: the user confirms before Delete)."""

    names: list[str] = field(default_factory=list)
    index: int = 0

    def __post_init__(self) -> None:
        self.goal = f"Delete the recording {self.names[self.index]} in Recorder"
        self.criteria = f"the recording {self.names[self.index]} is gone, the others stay"

    def setup(self, phone: Any) -> None:
        phone.apps[RECORDER].recordings = [{"name": n, "seconds": 6.0 + i}
                                           for i, n in enumerate(self.names)]

    def answer_user(self, question: str) -> str | None:
        return "Yes."

    def check(self, phone: Any) -> bool:
        return [r["name"] for r in recordings(phone)] == [
            n for i, n in enumerate(self.names) if i != self.index]

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        name = self.names[self.index]
        route = [a_tap(desc=f"More options for {name}"), a_tap(text="Delete")]
        moves = front(phone, screen, RECORDER, route)
        if moves:
            return moves
        app = phone.apps[RECORDER]
        if app.dialog is not None and app.dialog[0] == "delete":
            button = screen.find(text="Delete")
            return confirm(ctx, f"Delete the recording {name}?", tap(button)) if button \
                else [wait()]
        if app.menu is not None:
            return [a_tap(text="Delete")]
        return [back()] if app.dialog else route


# -- the notification shade --------------------------------------------------------------
@dataclass
class QuickBluetooth(Task):
    """Turn Bluetooth on from the shade's quick settings while another app is in front."""

    zh: bool = False
    start: str = "com.omg.notes"

    def __post_init__(self) -> None:
        self.goal = ("下拉通知栏，用快捷设置打开蓝牙" if self.zh
                     else "Pull down the notification shade and turn on Bluetooth from its "
                          "quick settings")
        self.criteria = "the Bluetooth tile in the quick settings is on"

    def setup(self, phone: Any) -> None:
        if self.zh:
            phone.set_locale(ZH_LOCALE)
        phone.start_activity(self.start)

    def check(self, phone: Any) -> bool:
        return bool(phone.apps[SETTINGS].bluetooth)

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        tile = a_tap(desc="蓝牙" if self.zh else "Bluetooth")
        return [tile] if fg(phone) == SYSTEMUI else [PULL, tile]


def post_message(phone: Any, contact: str, text: str) -> None:
    """An incoming message from ``contact``: in the thread and as a notification."""
    phone.apps[MESSAGES].threads.setdefault(contact, []).append({"from_me": False, "text": text})
    phone.surfaces.post_notification(MESSAGES, contact, text, {"contact": contact})


@dataclass
class ReplyFromNotification(Task):
    """Open a new message's notification (from another app) and reply in its thread."""

    contact: str = ""
    incoming: str = ""
    text: str = ""

    def __post_init__(self) -> None:
        self.goal = (f"Open {self.contact}'s new message from its notification and reply "
                     f"{self.text} to {self.contact}")
        self.criteria = in_thread(self.contact, self.text)

    def setup(self, phone: Any) -> None:
        post_message(phone, self.contact, self.incoming)
        phone.open_url("https://example.com/")

    def check(self, phone: Any) -> bool:
        return was_sent(phone, self.contact, self.text)

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        reply = [a_type("compose", self.text), a_tap(res="send")]
        row = a_tap(desc=f"Messages notification: {self.contact}")
        app = phone.apps[MESSAGES]
        if fg(phone) == MESSAGES and app.screen.params.get("contact") == self.contact:
            return reply_in_thread(phone, screen, self.text)
        if fg(phone) == SYSTEMUI:
            return [row, *reply]
        return [PULL, row, *reply]


NOTIFIERS = (("com.omg.shop", "Flash sale", "Headphones at ¥599 today only"),
             ("com.omg.feed", "New likes", "12 people liked your post"),
             ("com.omg.notes", "Backup done", "Your notes are backed up"),
             ("com.android.chrome", "Download complete", "report.pdf"))


@dataclass
class DismissAllBut(Task):
    """Dismiss every notification in the shade except one."""

    keep: int = 0

    def __post_init__(self) -> None:
        self.goal = (f"Dismiss every notification except the \"{NOTIFIERS[self.keep][1]}\" "
                     "one")
        self.criteria = f'the shade lists only "{NOTIFIERS[self.keep][1]}"'

    def setup(self, phone: Any) -> None:
        for package, title, text in NOTIFIERS:
            phone.surfaces.post_notification(package, title, text)

    def check(self, phone: Any) -> bool:
        shade = phone.surfaces.shade
        return ([n.title for n in shade.items] == [NOTIFIERS[self.keep][1]]
                and len(shade.dismissed) == len(NOTIFIERS) - 1 and not shade.opened)

    def moves(self, phone: Any, screen: Screen, ctx: MoveContext) -> Moves:
        if self.check(phone):
            return []
        shade = phone.surfaces.shade
        keep = NOTIFIERS[self.keep][1]
        swipes = [{"type": "swipe", "direction": "right", "distance": 600,
                   "start": {"kind": "anchor", "desc": f"{phone.apps[n.package].title()} "
                                                       f"notification: {n.title}"}}
                  for n in shade.items if n.title != keep]
        return swipes[:4] if fg(phone) == SYSTEMUI else [PULL, *swipes[:3]]
