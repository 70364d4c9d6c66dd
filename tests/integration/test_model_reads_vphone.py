"""What the model reads on a long list task (issue 40), on the vphone over the real adb
server with the real openai client and a model double: a 40-post scan stays in the prompt,
whole, however many turns the likes that follow take."""

from __future__ import annotations

import json
import re
from collections import Counter
from contextlib import ExitStack
from typing import Any

from omg_agent.brain.agent import open_agent
from omg_agent.core.actions import Launch
from omg_agent.drivers.adb import AdbDriver
from omg_agent.sim.expert.runner import sim_settings, with_overrides
from omg_agent.sim.expert.screen import request_text
from omg_agent.sim.model_double import ModelDouble, contract_name

FEED = "com.omg.feed"
POST = re.compile(r"^#\d+ (.+?) \| .*?Post (\d+) \|", re.M)


def bundle(actions: list[dict[str, Any]] | None = None, **flags: Any) -> str:
    return json.dumps({"thought": "liking", "last_action_result": "success",
                       "execute_now": {"intent": "like the next post", "actions": actions}
                       if actions else None, **flags}, ensure_ascii=False)


class Liker:
    """Scans 40 posts once, then likes the authors' posts one a turn, trusting only the
    scan result in the request — never a list of its own."""

    def __init__(self, authors: set[str], count: int) -> None:
        self.authors, self.count = authors, count
        self.items_seen: list[int] = []  # scan items each request after the scan carried
        self.liked: list[int] = []

    def reply(self, request: dict[str, Any]) -> str:
        assert contract_name(request) == "DecisionBundle"
        found = {int(n): a for a, n in POST.findall(request_text(request))}
        if not self.liked and not found:
            return bundle([{"type": "scan", "count": 40}])
        self.items_seen.append(len(found))
        todo = sorted(n for n, a in found.items() if a in self.authors and n <= 40
                      and n not in self.liked)
        if not todo or len(self.liked) == self.count:
            return bundle(goal_complete=True, answer=f"liked {len(self.liked)} posts")
        self.liked.append(todo[0])
        return bundle([{"type": "tap", "target": {"kind": "anchor",
                                                  "desc": f"Like post {todo[0]}"}}])


def test_a_40_post_scan_is_still_in_the_prompt_after_eight_turns(vphone, tmp_path):
    posts = vphone.phone.apps[FEED].state()["posts"][:40]
    authors = {a for a, _ in Counter(p["author"] for p in posts).most_common(2)}
    wanted = sorted(p["id"] for p in posts if p["author"] in authors)[:8]
    assert len(wanted) == 8  # enough likes to push the scan's turn out of the last six
    goal = f"Like the first 8 posts by {' or '.join(sorted(authors))} in Feed's first 40"
    liker = Liker(authors, 8)
    with ExitStack() as stack:
        driver = stack.enter_context(AdbDriver(vphone.serial))
        driver.execute([Launch(app=FEED)])
        driver.observe()
        double = stack.enter_context(ModelDouble(liker))
        settings = with_overrides(sim_settings(double.base_url, tmp_path, max_steps=40),
                                  {"planning": "unified", "confirm_done": "never"})
        result = open_agent(stack, driver, settings, goal, run_dir=tmp_path / "run").run(goal)
    liked = [p["id"] for p in vphone.phone.apps[FEED].state()["posts"] if p["liked"]]
    assert result.status == "done" and liked == wanted == sorted(liker.liked)
    # every request after the scan carried all 40 items, the last ones 8+ turns later
    assert len(liker.items_seen) >= 9 and min(liker.items_seen) >= 40, liker.items_seen
    last = request_text(double.requests[-1].body)
    assert "earlier turns summarised: " in last and "[scan1, turn 1] scan read 40" in last


LOGIN = "com.omg.login"


class SignIn:
    """Opens Login, then in one bundle types the user, the password and taps Sign in; says
    done once the welcome screen shows. Counts its turns."""

    def __init__(self) -> None:
        self.turns: list[str] = []

    def reply(self, request: dict[str, Any]) -> str:
        assert contract_name(request) == "DecisionBundle"
        text = request_text(request)
        if f"Foreground app: {LOGIN}" not in text:
            self.turns.append("launch")
            return bundle([{"type": "launch", "app": LOGIN}])
        if "sign_in" not in text:
            self.turns.append("done")
            return bundle(goal_complete=True, answer="signed in")
        self.turns.append("sign in")
        return bundle([
            {"type": "type", "text": "demo",
             "target": {"kind": "anchor", "resource_id": f"{LOGIN}:id/username"}},
            {"type": "type", "text": "{{secret:PASS}}",
             "target": {"kind": "anchor", "resource_id": f"{LOGIN}:id/password"}},
            {"type": "tap", "target": {"kind": "anchor", "resource_id": f"{LOGIN}:id/sign_in"}}])


def test_a_yes_to_the_held_password_runs_the_rest_of_its_bundle(vphone, tmp_path):
    from omg_agent.config import Settings
    from omg_agent.phone import Phone

    app = vphone.phone.apps[LOGIN]
    task = "Sign in to Login as demo with password {{secret:PASS}}"
    model = SignIn()
    with ModelDouble(model) as double, Phone(vphone.serial, driver="adb", settings=Settings(
            base_url=double.base_url, model="double", max_steps=12, retry_backoff_s=0.001,
            retry_backoff_max_s=0.01, timeout_s=20, runs_dir=tmp_path / "runs",
            planning="unified", confirm_done="never",
            secrets={"PASS": app.valid_password})) as phone:
        held = phone.run(task, use_cache=False)
        assert held.status == "needs_confirmation", held
        assert "secret" in (held.question or "") and not app.logged_in
        done = phone.resume(held.run_dir, "yes")
    assert app.logged_in and done.status == "done", done
    # the Sign in tap the model planned ran after the yes: no turn to plan it again
    assert model.turns == ["launch", "sign in", "done"]
