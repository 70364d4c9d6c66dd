"""The agent's requests answered on the mirror page.

:class:`PageChannel` holds the open requests — ``ask_user`` questions and sensitive-action
approvals — which the page lists and answers by POST. It is both an ``ask_user`` callable
(:meth:`ask`) and a :class:`~omg_agent.guards.confirmation.ConfirmationChannel`
(:meth:`confirm`). With a terminal as well (:meth:`with_terminal`), the terminal is asked at
the same time in a thread: whichever answers first wins, the other answer is dropped.
"""

from __future__ import annotations

import base64
import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from omg_agent.guards.confirmation import ConfirmationChannel, ConfirmationRequest, words_of
from omg_agent.hitl.audit import AuditLog
from omg_agent.hitl.frames import Changes

WAIT_SLICE_S = 0.5  # a waiting run wakes this often (so Ctrl-C reaches it)
RECENT = 8  # recent actions shown on the page (each with at most one thumbnail)


@dataclass
class Pending:
    id: int
    kind: str  # "ask" or "confirm"
    text: str
    detail: dict[str, str] = field(default_factory=dict)
    answer: Any = None
    by: str = ""
    done: threading.Event = field(default_factory=threading.Event)

    def public(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "text": self.text, **self.detail}


class PageChannel:
    def __init__(self, changes: Changes | None = None, audit: AuditLog | None = None) -> None:
        self.changes = changes or Changes()
        self.audit = audit or AuditLog()
        self._ids = itertools.count(1)
        self._open: dict[int, Pending] = {}
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self.run: dict[str, Any] | None = None  # the run's progress, as the page shows it
        self.task = ""  # the run's task, its secrets masked (set by progress_hook)
        # its last actions, newest last, each with the JPEG thumbnail (base64, "" for none)
        # of the screen it acted on
        self.recent: list[tuple[str, str]] = []

    # -- the run's progress -----------------------------------------------------------------
    def show_progress(self, progress: Any, thumb: bytes | None = None) -> None:
        """A run's :class:`~omg_agent.brain.run_state.Progress` (masked by the caller) and
        ``thumb``: the small JPEG of the screen its last action acted on (None: no picture;
        see :func:`~omg_agent.hitl.attach.progress_hook` for when there is none)."""
        last = progress.last_action or ""
        if last and not self.lists(last):
            shown = base64.b64encode(thumb).decode("ascii") if thumb else ""
            self.recent = [*self.recent, (last, shown)][-RECENT:]
        from omg_agent.core.todo import render_todo

        self.run = {"task": self.task, "phase": progress.phase, "step": progress.step,
                    "todo": render_todo(progress.plan, "✔", "○"),  # shown as it is
                    "steps": f"{progress.steps_used}/{progress.steps_limit}",
                    "recent": [{"text": text, "thumb": shot} for text, shot in self.recent]}
        self.changes.bump()

    def lists(self, action: str) -> bool:
        """Whether ``action`` is already the newest recent action (progress of the same turn
        again: nothing to add, no thumbnail to make)."""
        return bool(self.recent) and self.recent[-1][0] == action

    # -- the page's side --------------------------------------------------------------------
    def pending(self) -> list[dict[str, Any]]:
        with self._lock:
            return [p.public() for p in self._open.values()]

    def kind_of(self, request_id: int) -> str | None:
        """``"ask"`` or ``"confirm"`` for an open request, else ``None``."""
        with self._lock:
            item = self._open.get(request_id)
            return item.kind if item is not None else None

    def answer(self, request_id: int, value: Any, by: str = "page", **who: Any) -> bool:
        """Settle request ``request_id`` with ``value``; False when it is not open (already
        answered elsewhere, or never asked)."""
        with self._lock:
            item = self._open.pop(request_id, None)
            if item is None:
                return False
            item.answer, item.by = value, by
            item.done.set()
        shown = value if item.kind == "confirm" else "(answered)"
        self.audit.write("answer", request=item.kind, id=request_id, question=item.text,
                         answer=shown, by=by, **who)
        self.changes.bump()
        return True

    def close(self) -> None:
        """Nobody will answer any more: every open request settles with ``None``."""
        self._closed.set()
        with self._lock:
            items = list(self._open.values())
            self._open.clear()
        for item in items:
            item.done.set()
        self.changes.bump()

    # -- the agent's side -------------------------------------------------------------------
    def ask(self, question: str) -> str | None:
        answer = self._wait(self._open_request("ask", question))
        return answer.strip() or None if isinstance(answer, str) else None

    def confirm(self, request: ConfirmationRequest) -> bool | None:
        detail = {"describe": request.describe, "cls": request.cls, "reason": request.reason}
        answer = self._wait(self._open_request("confirm", request.text(), detail))
        return answer if isinstance(answer, bool) else None

    def with_terminal(self, ask: Callable[[str], str | None] | None,
                      confirm: ConfirmationChannel | None
                      ) -> tuple[Callable[[str], str | None], ConfirmationChannel]:
        """An ``ask_user`` and a channel asking this page and (when given) the terminal at
        once."""
        page = self

        def ask_both(question: str) -> str | None:
            item = page._open_request("ask", question)
            if ask is not None:
                page._race(item, lambda: ask(question))
            answer = page._wait(item)
            return answer.strip() or None if isinstance(answer, str) else None

        class Both:
            said = ""  # the terminal's record of its answer (words_of), when it answered

            def confirm(self, request: ConfirmationRequest) -> bool | None:
                detail = {"describe": request.describe, "cls": request.cls,
                          "reason": request.reason}
                item = page._open_request("confirm", request.text(), detail)
                if confirm is not None:
                    page._race(item, lambda: confirm.confirm(request))
                answer = page._wait(item)
                self.said = words_of(confirm) if item.by == "terminal" else ""
                return answer if isinstance(answer, bool) else None

        return ask_both, Both()

    def _race(self, item: Pending, read: Callable[[], Any]) -> None:
        def run() -> None:
            try:
                value = read()
            except Exception:  # a terminal that went away: the page still answers
                return
            if value is None and not self._closed.is_set():
                return  # no human on the terminal: leave it to the page
            self.answer(item.id, value, by="terminal")

        threading.Thread(target=run, name="mirror-terminal", daemon=True).start()

    def _open_request(self, kind: str, text: str,
                      detail: dict[str, str] | None = None) -> Pending:
        item = Pending(next(self._ids), kind, text, detail or {})
        with self._lock:
            if not self._closed.is_set():
                self._open[item.id] = item
            else:
                item.done.set()
        self.changes.bump()
        return item

    def _wait(self, item: Pending) -> Any:
        while not item.done.wait(WAIT_SLICE_S):
            pass
        return item.answer
