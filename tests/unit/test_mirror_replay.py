"""The mirror's session cannot be replayed from another port (issue 24).

Browsers send a host's cookies to every port of it, so a page another local program serves
on 127.0.0.1 receives the mirror's cookie. These tests send exactly what that program could:
the cookie, with the right Host, and nothing of the page's key.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from mirror_doubles import Client, PhoneDouble
from websockets.exceptions import InvalidStatus

from omg_agent.hitl.server import Mirror


@pytest.fixture
def phone() -> PhoneDouble:
    return PhoneDouble()


@pytest.fixture
def victim(phone) -> Iterator[Client]:
    """A signed-in tab."""
    with Mirror(phone) as mirror:
        client = Client(mirror)
        client.sign_in()
        yield client


def replayer(victim: Client) -> Client:
    """Another program holding the victim's cookie, and nothing else."""
    return Client(victim.mirror, cookie=victim.cookie)


def test_the_cookie_alone_is_401_for_frames_tree_actions_invite_and_answers(victim, phone):
    thief = replayer(victim)
    assert thief.request("GET", "/api/tree").status == 401
    for path, body in [("/api/act/key", {"key": "home"}), ("/api/act/tap", {"x": 5, "y": 5}),
                       ("/api/invite", {}), ("/api/control", {}), ("/api/takeover", {"on": True}),
                       ("/api/answer", {"id": 1, "answer": True})]:
        assert thief.post(path, body).status == 401, path
    with pytest.raises(InvalidStatus) as refused:
        thief.socket()
    assert refused.value.response.status_code == 401
    assert phone.executed == [] and not victim.mirror.takeover.active
    actions = {e["action"] for e in victim.mirror.audit.entries}
    assert actions == {"sign_in", "refused"}  # no link minted, nothing done as the victim
    assert victim.post("/api/act/key", {"key": "home"}).status == 200  # the victim goes on


def test_the_page_a_cookie_alone_loads_holds_no_key(victim):
    page = replayer(victim).request("GET", "/")
    assert page.status == 200
    text = page.data.decode()
    assert victim.key not in text and '<meta name="mirror-key" content="">' in text


def test_the_audit_names_the_replayed_cookie_not_an_action_of_its_owner(victim):
    thief = replayer(victim)
    thief.post("/api/act/key", {"key": "home"})
    thief.post("/api/invite", {})
    victim.post("/api/act/key", {"key": "back"})
    entries = victim.mirror.audit.entries
    refused = [e for e in entries if e["action"] == "refused"]
    assert [(e["path"], e["cookie_of"]) for e in refused] == [("/api/act/key", 1),
                                                               ("/api/invite", 1)]
    assert all("viewer" not in e for e in refused)
    sign_in = entries[0]
    assert sign_in["action"] == "sign_in" and sign_in["via"] == "the printed link"
    [key] = [e for e in entries if e["action"] == "key"]
    assert key["key"] == "back" and key["session"] == sign_in["session"]
    assert victim.key not in str(entries) and victim.cookie not in str(entries)


def test_a_key_works_only_with_its_own_browsers_cookie(victim, phone):
    other = Client(victim.mirror)
    other.sign_in(victim.mirror.session.invite())
    assert other.cookie != victim.cookie
    stolen_key = Client(victim.mirror, key=victim.key)  # the key without any cookie
    assert stolen_key.post("/api/act/tap", {"x": 1, "y": 1}).status == 401
    assert other.post("/api/act/tap", {"x": 1, "y": 1}, key=victim.key).status == 401
    with pytest.raises(InvalidStatus):
        other.socket(key=victim.key)
    assert phone.executed == []


def test_a_second_tab_of_the_same_browser_keeps_the_cookie_and_gets_its_own_key(victim):
    link = json.loads(victim.post("/api/invite", {}).data)["url"]
    second = Client(victim.mirror, cookie=victim.cookie)  # same browser, a new tab
    assert second.sign_in(link).status == 200
    assert second.cookie == victim.cookie and second.key != victim.key
    assert victim.request("GET", "/api/tree").status == 200  # the first tab still works
    assert second.request("GET", "/api/tree").status == 200
    sign_ins = [e for e in victim.mirror.audit.entries if e["action"] == "sign_in"]
    assert [e["via"] for e in sign_ins] == ["the printed link", "an invite by viewer 1"]
    assert sign_ins[0]["session"] != sign_ins[1]["session"]


def test_a_reloaded_tab_goes_on_with_its_key_and_a_used_link_stays_refused(victim):
    reload = victim.request("GET", "/", key=False)  # what a reload sends
    assert reload.status == 200
    assert victim.request("GET", "/api/tree").status == 200  # the key it kept still works
    assert victim.sign_in().status == 401  # the printed link again: used
