"""A scripted model for the mirror's agent tests: it asks which app to open and opens the
one the human named (read from the vphone itself), then reports done."""

from __future__ import annotations

import json
from typing import Any

from omg_agent.sim.expert.screen import request_text
from omg_agent.sim.model_double import contract_name

SETTINGS = "com.android.settings"
QUESTION = "Which app should I open?"
ANSWER = "Settings please"


def _plan(goal: str) -> str:
    return json.dumps({"goal": goal, "steps": [
        {"description": goal, "success_criteria": "done", "complexity": 3}]})


def _bundle(*actions: dict[str, Any]) -> str:
    return json.dumps({"thought": "looking", "last_action_result": "success",
                       "execute_now": {"intent": "act", "actions": list(actions)}})


class AskingModel:
    """Asks which app to open, then opens the one the human named."""

    goal = "Open the app the user wants"

    def __init__(self, phone: Any) -> None:
        self.phone = phone
        self.seen_answer = False

    def reply(self, request: dict[str, Any]) -> str:
        name = contract_name(request)
        if name == "TaskPlan":
            return _plan(self.goal)
        if name == "Replan":
            if self.seen_answer and self.phone.foreground == SETTINGS:
                return json.dumps({"status": "done", "plan": None,
                                   "response": "Settings is open",
                                   "evidence": [{"kind": "element", "text": "Wi-Fi"}]})
            return json.dumps({"status": "replanned", "plan": json.loads(_plan(self.goal))})
        text = request_text(request)
        if ANSWER not in text:
            return _bundle({"type": "ask_user", "question": QUESTION})
        self.seen_answer = True
        if self.phone.foreground != SETTINGS:
            return _bundle({"type": "launch", "app": SETTINGS})
        return json.dumps({"thought": "Settings is open", "last_action_result": "success",
                           "goal_complete": True, "answer": "Settings is open"})
