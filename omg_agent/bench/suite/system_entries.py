"""The system family's table (issue 36, D): permission dialogs, the notification shade, the
share sheet, Recorder's timed memos and Chrome's sign-up form (see system_tasks.py and
system_web.py)."""

from __future__ import annotations

import random

from omg_agent.bench.suite.entry import Entry
from omg_agent.bench.suite.system_tasks import (
    BlockedMicrophone,
    DeleteRecording,
    DenyMicrophone,
    DismissAllBut,
    QuickBluetooth,
    RecordMemo,
    RenameRecording,
    ReplyFromNotification,
)
from omg_agent.bench.suite.system_web import SharePageToNotes, WebSignup
from omg_agent.vphone.apps.browser_forms import PLANS

MEMO_NAMES = ("Standup", "Shopping list", "Idea", "Lecture notes", "Birdsong", "Interview")
MEMO_NAMES_ZH = ("会议纪要", "购物清单", "灵感", "课堂笔记", "鸟叫声")
RECORDING_SETS = (["Recording 3", "Recording 2", "Recording 1"],
                  ["Team sync", "Voice note", "Recording 1"],
                  ["Lecture", "Podcast idea", "Reminder"])
PEOPLE = (("Ann Lee", "ann.lee@example.org"), ("Ben Okafor", "ben@okafor.example"),
          ("Chen Jing", "chen.jing@example.com"), ("Dana Cruz", "dana.cruz@example.net"))
PROMOS = ("SPRING24", "WELCOME10", "OMG2026")
REPLY_CONTACTS = ("Alice", "Bob", "David")
INCOMING = ("Are you coming tonight?", "Can you pick up milk?", "Where are we meeting?")
REPLIES = ("Yes, see you at 8", "Sure, on my way", "At the station")


def _memo(r: random.Random, zh: bool = False) -> RecordMemo:
    return RecordMemo(seconds=r.randint(4, 8), name=r.choice(MEMO_NAMES_ZH if zh else MEMO_NAMES),
                      zh=zh)


def _recordings(r: random.Random) -> tuple[list[str], int]:
    names = list(r.choice(RECORDING_SETS))
    return names, r.randrange(len(names))


def _rename(r: random.Random) -> RenameRecording:
    names, index = _recordings(r)
    new = r.choice([n for n in MEMO_NAMES if n not in names])
    return RenameRecording(names=names, index=index, new=new)


def _delete(r: random.Random) -> DeleteRecording:
    names, index = _recordings(r)
    return DeleteRecording(names=names, index=index)


def _signup(r: random.Random, promo: bool = False, zh: bool = False) -> WebSignup:
    name, email = r.choice(PEOPLE)
    return WebSignup(name=name, email=email, plan=r.choice(PLANS[1:]),
                     promo=r.choice(PROMOS) if promo else "", zh=zh)


def _reply(r: random.Random) -> ReplyFromNotification:
    return ReplyFromNotification(contact=r.choice(REPLY_CONTACTS), incoming=r.choice(INCOMING),
                                 text=r.choice(REPLIES))


E = Entry
ENTRIES: tuple[Entry, ...] = (
    E("system.recorder.memo", ("single-app", "permission", "popup", "timed"), _memo),
    E("system.recorder.memo.zh", ("single-app", "permission", "popup", "timed", "zh"),
      lambda r: _memo(r, zh=True)),
    E("system.recorder.deny_mic", ("single-app", "permission", "popup", "impossible"),
      lambda r: DenyMicrophone()),
    E("system.recorder.mic_blocked", ("single-app", "permission", "timed", "non-home"),
      lambda r: BlockedMicrophone(seconds=r.randint(3, 6))),
    E("system.recorder.rename", ("single-app", "non-home"), _rename),
    E("system.recorder.delete", ("single-app", "sensitive", "popup"), _delete),
    E("system.shade.bluetooth", ("single-app", "non-home"),
      lambda r: QuickBluetooth(start=r.choice(("com.omg.notes", "com.omg.shop")))),
    E("system.shade.bluetooth.zh", ("single-app", "non-home", "zh"),
      lambda r: QuickBluetooth(zh=True)),
    E("system.shade.reply", ("cross-app", "non-home"), _reply),
    E("system.shade.dismiss_all_but", ("single-app", "repetitive"),
      lambda r: DismissAllBut(keep=r.randrange(4))),
    E("system.share.page_to_notes", ("cross-app", "webview", "non-home"),
      lambda r: SharePageToNotes()),
    E("system.web.signup", ("single-app", "webview"), _signup),
    E("system.web.signup_promo", ("single-app", "webview", "multi-goal"),
      lambda r: _signup(r, promo=True)),
    E("system.web.signup.zh", ("single-app", "webview", "zh"), lambda r: _signup(r, zh=True)),
)
