"""A human takeover from the mirror (issue 16): the agent's next look waits for Continue and
sees the human's screen; an action decided before the takeover is not sent."""

from __future__ import annotations

import threading

from mirror_doubles import Client, PhoneDouble

from omg_agent.core.actions import PointTarget, Tap
from omg_agent.hitl.server import Mirror
from omg_agent.hitl.takeover import TOOK_OVER, HeldDriver, Takeover

TAP = Tap(target=PointTarget(x=500, y=500))


def test_the_agents_look_waits_for_continue_and_sees_the_humans_screen():
    phone, takeover = PhoneDouble(), Takeover()
    held = HeldDriver(phone, takeover)
    takeover.begin()
    seen: list[int] = []
    agent = threading.Thread(target=lambda: seen.append(
        held.observe().screenshot.getpixel((0, 0))[0]))
    agent.start()
    phone.shade = 50  # the human changes the screen during the takeover
    takeover.end()
    agent.join(10)
    assert seen == [50]


def test_an_action_decided_before_a_takeover_is_not_sent():
    phone, takeover = PhoneDouble(), Takeover()
    held = HeldDriver(phone, takeover)
    held.observe()
    takeover.begin()
    takeover.end()
    result = held.execute([TAP])
    assert not result.ok and result.outcomes[0].detail == TOOK_OVER
    assert phone.executed == []
    held.observe()  # the agent looks again: its next action goes through
    assert held.execute([TAP]).ok and phone.executed == [TAP]


def test_the_page_pauses_and_continues_the_agent_with_control_only():
    phone = PhoneDouble()
    with Mirror(phone) as mirror:
        first, second = Client(mirror), Client(mirror)
        first.sign_in()
        invite = mirror.session.invite()
        second.sign_in(invite)
        assert second.post("/api/takeover", {"on": True}).status == 409
        assert first.post("/api/takeover", {"on": "yes"}).status == 400
        assert first.post("/api/takeover", {"on": True}, key=False).status == 401  # no key
        assert not mirror.takeover.active
        assert first.post("/api/takeover", {"on": True}).status == 200
        assert mirror.takeover.active
        assert first.post("/api/takeover", {"on": False}).status == 200
        assert not mirror.takeover.active
        actions = [e["action"] for e in mirror.audit.entries if e["action"] != "sign_in"]
    assert actions == ["refused", "takeover", "continue"]  # refused: the request without a key


def test_closing_the_mirror_ends_a_takeover():
    with Mirror(PhoneDouble()) as mirror:
        mirror.takeover.begin()
    assert not mirror.takeover.active
