"""A one-step run the CLI tests script on the model double: plan "look", the operator says
it looked, the planner confirms naming an element the launcher shows — and the environment
that keeps the machine's own model settings out of such a run."""

from __future__ import annotations

import json

# every variable that would point a run at a model other than the test's
BLANK = {"OMG_MODEL": "", "OMG_BASE_URL": "", "OMG_API_KEY": "", "OPENAI_API_KEY": "",
         "OPENAI_BASE_URL": "", "OMG_CONFIG": "", "OMG_PLANNER_MODEL": "",
         "OMG_OPERATOR_MODEL": "", "OMG_RUN_TIMEOUT_S": ""}
PLAN = json.dumps({"goal": "look", "steps": [
    {"description": "Look at the screen", "success_criteria": "anything"}]})
LOOKED = json.dumps({"thought": "done", "last_action_result": "none", "goal_complete": True,
                     "answer": "looked"})
# the planner confirms from the launcher it was shown, naming an element there
CONFIRMED = json.dumps({"status": "done", "response": "the screen was looked at",
                        "evidence": [{"kind": "element", "text": "Settings"}]})
