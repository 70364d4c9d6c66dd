"""Attack round on a macro's shell chunk (docs/attack-round-consent.md, "Round: the
delete follow-through and the choke point", the macro-chunk probe): a stored macro is
played as ``omg-agent macro run`` plays it (:func:`omg_agent.macros.play.play`: the
driver's choke point bound to a gate that asks nobody) on a vphone through the real adb
server, where its first tap opens a screen and its next tap lands on that screen's Pay.

Feed's ``like_boost`` hazard is the hostile app: the 7th like opens a full-page "Boost"
offer whose Pay ¥6.00 is drawn where the next post's Like was. A chunk judged and sent as
one shell call on the screen it was planned on (both taps on Like buttons) pays; a chunk
that ends at a tap that may change the screen (the judged port's own rule,
:func:`omg_agent.drivers.inputs.keeps_screen`) never sends the second tap onto it.
The outcome is read from the phone (``state()["boosts"]``, ``like_log``), never from the
report.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from omg_agent.config import Settings
from omg_agent.drivers.adb import AdbDriver
from omg_agent.macros.model import Macro, Stop, Target
from omg_agent.macros.play import play
from omg_agent.macros.store import MacroStore

FEED = "com.omg.feed"
LIKES = Macro(name="feed-like", app=FEED, profile="1080x2400", container=f"{FEED}:id/feed",
              target=Target(resource_id=f"{FEED}:id/like", todo_text="Like",
                            done_text="Liked ♥"))
ENV = ("OMG_API_KEY", "OPENAI_API_KEY", "OMG_CONFIG", "OMG_RUNS_DIR", "OMG_ALLOW")


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def test_a_chunks_second_tap_never_lands_on_the_screen_its_first_tap_opened(
        vphone: Any, env: Path) -> None:
    phone = vphone.phone
    phone.set_hazards("like_boost")
    phone.start_activity(FEED)
    feed = phone.apps[FEED]
    with phone.lock:
        feed.liked = set(range(55, 61))  # six likes given before, far below: the next is 7th
        phone.changed()
    store = MacroStore(env / "macros")
    store.save(LIKES)
    macro = store.get("feed-like", app=FEED).macro
    settings = Settings(runs_dir=env / "runs", model=None, base_url=None)  # type: ignore[arg-type]

    with AdbDriver(vphone.serial) as driver:
        report = play(driver, macro, Stop(count=3), settings)

    state = phone.state()["apps"][FEED]
    assert state["boosts"] == [], report.summary()  # nothing paid without a yes
    assert state["like_log"][:1] == [1]  # the first like went out, as planned
    assert not report.completed and report.stopped_by == "checkpoint"
    assert "Boost your like?" in report.reason  # the new screen stopped it, before tap 2
