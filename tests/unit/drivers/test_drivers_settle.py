"""Settling (drivers.settle) and the dump taken ahead (drivers.nextlook), on scripted looks."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from omg_agent.drivers import settle
from omg_agent.drivers.nextlook import UNCHANGED, DumpAhead
from omg_agent.drivers.settle import Settled, Unavailable, exact_signal


def scripted(*tokens: str):
    """A look that returns ``tokens`` in turn, then the last one for ever."""
    seq = list(tokens)

    def look() -> str:
        return seq.pop(0) if len(seq) > 1 else seq[0]
    return look


def run(*signals, window=0.05, timeout=2.0, grace=0.0, **kw) -> Settled:
    return settle.settle(list(signals), timeout=timeout, window=window, change_grace=grace,
                         **kw)


def test_an_animation_settles_only_on_its_last_frame() -> None:
    frames = ["a", "b", "c", "d", "e", "f"]  # every look mid-animation differs
    result = run(exact_signal("digest", scripted(*frames)))
    assert result.ok and result.token == "f" and result.looks >= 8


def test_changed_by_is_when_the_final_screen_was_first_seen() -> None:
    marks: list[float] = []
    look = scripted("old", "new")

    def timed_look() -> str:
        token = look()
        marks.append(time.monotonic())
        return token
    result = run(exact_signal("digest", timed_look))
    assert result.ok and result.token == "new"
    assert result.changed_by == pytest.approx(marks[1], abs=0.01)


def test_the_old_screen_is_not_taken_as_settled_during_the_grace() -> None:
    changes: list[int] = []
    result = run(exact_signal("digest", scripted("old", "old", "old", "new"), previous="old"),
                 grace=1.0, on_change=lambda: changes.append(1))
    assert result.ok and result.token == "new" and changes == [1]


def test_a_signal_that_keeps_moving_hands_over_to_the_next() -> None:
    counter = iter(range(10_000))
    moving = exact_signal("digest", lambda: str(next(counter)))  # a clock in the frame
    masked = exact_signal("frames", scripted("x"))
    result = run(moving, masked, switch_after=0.1)
    assert result.ok and result.signal == "frames"


def test_an_unavailable_signal_hands_over_at_once() -> None:
    def missing() -> str:
        raise Unavailable("no md5sum")
    result = run(exact_signal("digest", missing), exact_signal("frames", scripted("x")))
    assert result.ok and result.signal == "frames"


def test_a_screen_that_never_stops_times_out() -> None:
    counter = iter(range(10_000))
    result = run(exact_signal("digest", lambda: str(next(counter))), timeout=0.2)
    assert not result.ok


# -- the dump taken ahead ------------------------------------------------------------------

@pytest.fixture
def pool():
    with ThreadPoolExecutor(max_workers=2) as p:
        yield p


def ahead_with(pool, xml="<hierarchy/>", gate: threading.Event | None = None) -> DumpAhead:
    def dump() -> str:
        if gate is not None:
            gate.wait(5)
        return xml
    return DumpAhead(pool, dump, margin=0.2)


def test_a_dump_that_ended_after_the_last_change_is_taken(pool) -> None:
    ahead = ahead_with(pool, "<hierarchy>new</hierarchy>")
    ahead.start()
    ahead.settled(Settled(True, "digest", "new", changed_by=time.monotonic() - 10))
    assert ahead.take(lambda signal: "new") == "<hierarchy>new</hierarchy>"
    assert ahead.taken == 1 and not ahead.pending


def test_a_dump_that_may_predate_the_last_change_is_not_taken(pool) -> None:
    ahead = ahead_with(pool)
    ahead.start()
    ahead.settled(Settled(True, "digest", "new", changed_by=time.monotonic() + 10))
    assert ahead.take(lambda signal: "new") is None


def test_a_screen_that_moved_after_settling_is_dumped_again(pool) -> None:
    ahead = ahead_with(pool)
    ahead.start()
    ahead.settled(Settled(True, "digest", "settled", changed_by=0.0))
    assert ahead.take(lambda signal: "moved on") is None


def test_no_dump_is_taken_after_a_settle_that_timed_out(pool) -> None:
    ahead = ahead_with(pool)
    ahead.start()
    ahead.settled(Settled(False, "digest", "x", changed_by=0.0))
    assert ahead.take(lambda signal: "x") is None


def test_the_same_pixels_as_before_the_action_keep_the_last_list(pool) -> None:
    gate = threading.Event()  # the dump never finishes: not waited for
    ahead = ahead_with(pool, gate=gate)
    ahead.start()
    ahead.settled(Settled(True, "digest", "same", changed_by=0.0), previous="same")
    assert ahead.take(lambda signal: "same") == UNCHANGED and ahead.skipped == 1
    gate.set()


def test_dumps_never_overlap_on_the_device(pool) -> None:
    running, overlaps = [0], []
    lock = threading.Lock()

    def dump() -> str:
        with lock:
            running[0] += 1
            overlaps.append(running[0])
        time.sleep(0.02)
        with lock:
            running[0] -= 1
        return "<hierarchy/>"
    ahead = DumpAhead(pool, dump)
    ahead.start()
    ahead.dump()
    ahead.reset()
    pool.shutdown(wait=True)
    assert overlaps == [1, 1]


def test_the_app_is_taken_from_a_read_that_started_after_the_last_change(pool) -> None:
    gate = threading.Event()

    def dump() -> str:
        gate.wait(5)
        return "<hierarchy/>"
    ahead = DumpAhead(pool, dump, margin=0.0)
    ahead.start()
    ahead.read_focus(lambda: None)
    ahead.settled(Settled(True, "digest", "x", changed_by=time.monotonic() - 10))
    gate.set()
    assert ahead.take(lambda signal: "x") == "<hierarchy/>" and ahead.focus_ok
    gate.clear()
    ahead.start()
    ahead.read_focus(lambda: None)  # started before the screen's last change
    ahead.settled(Settled(True, "digest", "x", changed_by=time.monotonic()))
    gate.set()  # the dump ends after the change: taken; the app is read again
    assert ahead.take(lambda signal: "x") == "<hierarchy/>" and not ahead.focus_ok


def test_a_device_that_says_it_is_still_settles_on_its_first_still_answer() -> None:
    answers = [(False, "a"), (False, "b"), (True, "c")]
    result = settle.settle_reported(lambda: answers.pop(0), timeout=2.0)
    assert result.ok and result.token == "c" and result.looks == 3
    assert result.signal == "digest"  # its tokens are frame digests: the dump ahead's terms


def test_a_device_busy_for_longer_than_the_timeout_is_not_settled() -> None:
    result = settle.settle_reported(lambda: (False, "a"), timeout=0.05)
    assert not result.ok and result.looks >= 2


def test_a_device_that_cannot_say_raises_unavailable() -> None:
    def ask() -> tuple[bool, str]:
        raise Unavailable("not found")

    with pytest.raises(Unavailable):
        settle.settle_reported(ask, timeout=1.0)
