"""A model double that knows macros: the expert policy, plus what a careful model does when
the operator prompt offers a macro (issue 15).

:class:`MacroAwarePolicy` wraps :class:`~omg_agent.sim.expert.policy.ExpertPolicy` for Feed
like tasks (:class:`~omg_agent.bench.suite.social_tasks.LikeSet` and kin). On an operator
request it:

* closes an app's rating popup ("Not now") — the screen a stopped macro hands back;
* accepts an offered macro when the offer fits the task — its filter names the task's
  author, or there is none and the task likes every post — with ``count`` = the wanted
  posts not yet liked, read from the phone (as the expert reads everything);
* otherwise answers as the expert would.
"""

from __future__ import annotations

import re
import threading
from typing import Any

from omg_agent.sim.expert.policy import ExpertPolicy
from omg_agent.sim.expert.screen import Screen, request_text
from omg_agent.sim.model_double import contract_name
from omg_agent.sim.replies import FEED, bundle

POPUP_DISMISS = "Not now"
_OFFER = re.compile(r"Macro offer (\S+): (.*)")


class MacroAwarePolicy:
    """The expert, accepting macros offered for its like task."""

    def __init__(self, expert: ExpertPolicy, *, accept: bool = True) -> None:
        self.expert = expert
        self.accept = accept
        self.accepted: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def reply(self, request: dict[str, Any]) -> str:
        if contract_name(request) != "DecisionBundle":
            return self.expert.reply(request)
        text = request_text(request)
        with self._lock:
            popup = Screen(text).find(text=POPUP_DISMISS)
            if popup is not None:
                return bundle([{"type": "tap", "target": {"kind": "element", "id": popup.id}}],
                               "close the popup")
            macro = self._macro(text)
        if macro is not None:
            return bundle([macro], "run the offered macro")
        return self.expert.reply(request)

    def _macro(self, text: str) -> dict[str, Any] | None:
        task, phone = self.expert.task, self.expert.phone
        if not self.accept or phone.foreground != FEED:
            return None
        offer = next((m for m in _OFFER.finditer(text)), None)
        if offer is None:
            return None
        name, what = offer.group(1), offer.group(2)
        author = getattr(task, "author", "")
        fits = f"author is {author!r}" in what if author else "only items" not in what
        want = set(getattr(task, "posts", ()))
        left = want - phone.apps[FEED].liked
        if not fits or not left:
            return None
        action = {"type": "macro", "name": name, "count": len(left)}
        self.accepted.append(action)
        return action
