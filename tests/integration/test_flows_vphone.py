"""Flows on vphones through the real adb server: recorded on one profile and replayed on
another and on a phone where the button moved; shipped flows (ours and Maestro syntax);
the gate on a flow; outcomes read from the phone's app state."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

import pytest

from omg_agent.config import Settings
from omg_agent.core.actions import Back, Launch, PointTarget, Tap, TypeText
from omg_agent.drivers.adb import AdbDriver
from omg_agent.errors import AdbNotFound
from omg_agent.flows.parse import load_flow, parse_flow
from omg_agent.flows.record import FlowRecorder
from omg_agent.flows.session import replay
from omg_agent.flows.write import dump_flow
from omg_agent.trace.loader import load_trace
from omg_agent.vphone import adbhost
from omg_agent.vphone.phone import VirtualPhone

FEED, NOTES, SHOP = "com.omg.feed", "com.omg.notes", "com.omg.shop"
SHIPPED = resources.files("omg_agent.assets") / "flows"


@contextmanager
def phone_on_adb(profile: str = "default", seed: int = 0
                 ) -> Iterator[tuple[VirtualPhone, AdbDriver]]:
    try:
        adbhost.adb_path()
    except AdbNotFound as exc:
        pytest.skip(str(exc))
    phone = VirtualPhone(profile, seed=seed)
    server = phone.serve()
    serial = adbhost.connect("127.0.0.1", server.port)
    driver = AdbDriver(serial)
    try:
        yield phone, driver
    finally:
        driver.close()
        adbhost.disconnect(serial)
        phone.close()


def no_model(tmp: Path, **changes: object) -> Settings:
    """Settings with no model configured at all: a replay must not need one."""
    return Settings(runs_dir=tmp, model=None, base_url=None, **changes)  # type: ignore[arg-type]


def pixel_of(driver: AdbDriver, **keys: str) -> tuple[int, int]:
    """Where a user's finger would land on the element: its centre, in pixels."""
    obs = driver.observe()
    found = [e for e in obs.elements
             if all(getattr(e, k) == v or getattr(e, k).endswith("/" + v)
                    for k, v in keys.items())]
    assert len(found) == 1, (keys, found)
    return found[0].bounds.center


def record_by_pixels(driver: AdbDriver) -> tuple[str, tuple[int, int]]:
    """Record on the phone as a user would: launch Feed, tap two Like buttons and Notes'
    + / title / Save by their pixels; returns the flow text and the Like-2 pixel."""
    rec = FlowRecorder()

    def do(action, point=None):  # type: ignore[no-untyped-def]
        obs = driver.observe()
        assert driver.execute([action], obs).ok
        rec.add(action, obs, point)

    def tap(**keys: str) -> tuple[int, int]:
        point = pixel_of(driver, **keys)
        obs = driver.observe()
        x, y = obs.to_normalized(point)
        do(Tap(target=PointTarget(x=x, y=y)), point)
        return point

    do(Launch(app=FEED))
    like2 = tap(desc="Like post 2")
    tap(desc="Like post 3")
    do(Launch(app=NOTES))
    tap(resource_id="fab_new")
    title = pixel_of(driver, resource_id="title_input")
    obs = driver.observe()
    x, y = obs.to_normalized(title)
    do(TypeText(text="Recorded", target=PointTarget(x=x, y=y)), title)
    tap(resource_id="save")
    return dump_flow(rec.flow()), like2


def test_a_flow_recorded_on_1080x2400_replays_on_720x1600_and_where_the_button_moved(
        tmp_path: Path) -> None:
    with phone_on_adb("default") as (phone, driver):
        assert driver.info().width == 1080 and driver.info().height == 2400
        text, like2 = record_by_pixels(driver)
        assert phone.apps[FEED].liked == {2, 3}
    assert "point" not in text and "Like post 2" in text  # taps became anchors

    with phone_on_adb("compact") as (phone, driver):
        assert (driver.info().width, driver.info().height) == (720, 1600)
        result = replay(driver, parse_flow(text), no_model(tmp_path), tmp_path / "compact")
        assert result.status == "done", result.failed
        assert phone.apps[FEED].liked == {2, 3}
        assert [n["title"] for n in phone.apps[NOTES].notes] == ["Recorded"]

    with phone_on_adb("default") as (phone, driver):
        phone.apps[FEED].offset = 260  # the feed opens scrolled: every Like button moved
        driver.execute([Launch(app=FEED)])
        under = driver.observe().element_at(like2)
        assert under is None or under.desc != "Like post 2"  # the old pixel misses it now
        result = replay(driver, parse_flow(text), no_model(tmp_path), tmp_path / "moved")
        assert result.status == "done", result.failed
        assert phone.apps[FEED].liked == {2, 3}
        assert [n["title"] for n in phone.apps[NOTES].notes] == ["Recorded"]
    assert (tmp_path / "moved" / "report.html").is_file()
    steps = load_trace(tmp_path / "moved").steps
    assert [s.phase for s in steps] == ["flow"] * len(steps) and len(steps) >= 6


@pytest.mark.parametrize("profile, count", [("default", None), ("compact", 12)])
def test_shipped_like_flow_likes_exactly_the_first_n_posts(tmp_path: Path, profile: str,
                                                           count: int | None) -> None:
    flow = load_flow(Path(str(SHIPPED / "like_first_posts.yaml")))
    given = {"count": str(count)} if count else None
    with phone_on_adb(profile) as (phone, driver):
        phone.apps[FEED].liked = {3}  # liked before: must stay liked, not be toggled off
        result = replay(driver, flow, no_model(tmp_path), tmp_path / "run", variables=given)
        assert result.status == "done", result.failed
        first_n = set(range(1, (count or 5) + 1))
        assert phone.apps[FEED].liked == first_n  # post 3 kept, nothing past N (issue 38)
        # idempotent: run again (as after a kill, from wherever the list was left) — the
        # same posts liked, none toggled, none past N
        toggles = len(phone.apps[FEED].like_log)
        again = replay(driver, flow, no_model(tmp_path), tmp_path / "again", variables=given)
        assert again.status == "done", again.failed
        assert phone.apps[FEED].liked == first_n
        assert len(phone.apps[FEED].like_log) == toggles


def test_shipped_price_flow_saves_the_price_of_the_product_given_by_var(tmp_path: Path
                                                                        ) -> None:
    from omg_agent.vphone.apps.shop_catalog import BY_ID, format_price

    flow = load_flow(Path(str(SHIPPED / "price_to_notes.yaml")))
    with phone_on_adb("default", seed=3) as (phone, driver):
        result = replay(driver, flow, no_model(tmp_path), tmp_path / "run",
                        variables={"product": "AirPods Pro"})
        assert result.status == "done", result.failed
        shop = phone.apps[SHOP]
        pid = next(p for p, prod in BY_ID.items() if prod.name == "AirPods Pro")
        assert [n["body"] for n in phone.apps[NOTES].notes] == [format_price(shop.prices[pid])]


def test_a_maestro_flow_file_runs_unchanged(tmp_path: Path) -> None:
    source = Path(str(SHIPPED / "maestro_new_note.yaml"))
    flow = load_flow(source)
    with phone_on_adb("default") as (phone, driver):
        result = replay(driver, flow, no_model(tmp_path), tmp_path / "run")
        assert result.status == "done", result.failed
        assert phone.apps[NOTES].notes == [{"title": "Groceries",
                                            "body": "milk, eggs, bread"}]


def test_a_flow_that_cannot_anchor_a_step_fails_with_the_screen_saved(tmp_path: Path) -> None:
    flow = parse_flow("appId: com.omg.notes\n---\n- launchApp\n- tapOn:\n    id: no_such\n")
    with phone_on_adb("default") as (phone, driver):
        result = replay(driver, flow, no_model(tmp_path), tmp_path / "run")
    assert result.status == "failed" and "no_such" in result.failed
    trace = load_trace(tmp_path / "run")
    last = trace.steps[-1]
    assert last.observation is not None and "not found" in last.note
    assert (tmp_path / "run" / last.observation["image"]).is_file()
    assert trace.result is not None and trace.result["status"] == "failed"


def test_a_flow_cannot_delete_without_a_yes_or_an_allow(tmp_path: Path) -> None:
    flow = parse_flow("appId: com.omg.notes\n---\n- launchApp\n"
                      "- tapOn:\n    id: note_item\n- tapOn: Delete\n")
    with phone_on_adb("default") as (phone, driver):
        phone.apps[NOTES].notes = [{"title": "Keep me", "body": "x"}]
        held = replay(driver, flow, no_model(tmp_path), tmp_path / "held")
        assert held.status == "needs_confirmation" and "delete" in held.failed.lower()
        assert phone.apps[NOTES].notes == [{"title": "Keep me", "body": "x"}]
        assert driver.execute([Back()]).ok  # leave the note's editor: the list again
        allowed = replay(driver, flow, no_model(tmp_path, allow="delete"), tmp_path / "ok")
        assert allowed.status == "done", allowed.failed
        assert phone.apps[NOTES].notes == []
