"""The mirror's small things (issue 37): a fresh one-time link on demand at the terminal
(the unused ones stop working), and no agent widgets on a mirror no agent uses."""

from __future__ import annotations

import json
from importlib import resources

from mirror_doubles import Client, PhoneDouble

from omg_agent.cli.mirror import links_on_demand
from omg_agent.hitl.server import Mirror


def _first_state(client: Client) -> dict:
    with client.socket() as ws:
        return json.loads(next(m for m in iter(lambda: ws.recv(timeout=10), None)
                               if isinstance(m, str)))


def test_a_fresh_link_replaces_the_unused_ones(capsys) -> None:
    with Mirror(PhoneDouble(), agent=False) as mirror:
        printed = mirror.url
        links_on_demand(mirror.session, ["\n", "\n"])
        shown = [line.split("open ", 1)[1] for line in capsys.readouterr().out.splitlines()]
        assert len(shown) == 2 and len({printed, *shown}) == 3
        late = Client(mirror)
        late.sign_in(printed)
        assert not late.key  # the printed link no longer signs a tab in
        first = Client(mirror)
        first.sign_in(shown[0])
        assert not first.key  # replaced by the second
        newest = Client(mirror)
        newest.sign_in(shown[1])
        assert newest.key and newest.post("/api/act/tap", {"x": 10, "y": 10}).status == 200


def test_agent_widgets_only_where_an_agent_uses_the_page() -> None:
    with Mirror(PhoneDouble(), agent=False) as alone, Mirror(PhoneDouble()) as with_agent:
        for mirror, expected in ((alone, False), (with_agent, True)):
            client = Client(mirror)
            client.sign_in()
            assert _first_state(client)["agent"] is expected
    page = (resources.files("omg_agent.hitl") / "page.html").read_text(encoding="utf-8")
    for widget in ('class="box quiet agent-only" id="asks" hidden',  # questions, approvals
                   'id="pause" class="agent-only" hidden',  # pause the agent
                   '<div class="row agent-only" hidden><label><input type="checkbox" '
                   'id="voice">'):  # speak the agent's questions
        assert widget in page, widget
    assert "showAgent(state.agent)" in page
