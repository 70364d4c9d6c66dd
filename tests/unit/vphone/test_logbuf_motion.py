"""The log buffer (lines, chatter, clearing), the process table and motion's transitions,
on a fake clock: no sleeping, no vphone server."""

from __future__ import annotations

from omg_agent.vphone.logbuf import CHATTER_S, LogBuffer, Processes
from omg_agent.vphone.motion import animation_scale
from omg_agent.vphone.phone import VirtualPhone
from omg_agent.vphone.shell.commands.log_cmds import render


class Clock:
    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_a_quiet_phone_still_logs_every_few_seconds() -> None:
    clock = Clock()
    log = LogBuffer(clock)
    log.add(4242, "I", "Test", "one\ntwo")
    assert [line.message for line in log.since(0)] == ["one", "two"]
    clock.now += CHATTER_S * 2.5
    lines = log.since(0)
    assert len(lines) == 4 and lines[-1].when <= clock.now
    log.clear()
    assert log.since(0) == []
    clock.now += 3600
    assert len(log.since(0)) == 3  # at most a few lines for a long silence


def test_pids_are_new_for_each_process_start_and_logged() -> None:
    log = LogBuffer(Clock())
    procs = Processes(log)
    first = procs.start("com.x", ".Main")
    assert procs.start("com.x", ".Main") == first
    procs.force_stopped("com.x")
    assert procs.pid("com.x") is None
    assert procs.start("com.x", ".Main") != first
    text = "\n".join(render(line, "brief") for line in log.since(0))
    assert f"Killing {first}:com.x" in text and "Force stopping com.x" in text


def test_render_formats() -> None:
    log = LogBuffer(Clock())
    log.add(12, "W", "Tag", "msg", tid=13)
    line = log.since(0)[0]
    assert render(line, "brief") == "W/Tag     (   12): msg"
    assert render(line, "tag") == "W/Tag     : msg"
    assert render(line, "raw") == "msg"
    assert render(line, "thread") == "W(   12:   13) msg"
    assert render(line, "threadtime").endswith("   12    13 W Tag     : msg")


def test_animation_scale_reads_settings_like_the_framework() -> None:
    assert animation_scale({"global": {"window_animation_scale": "0"}},
                           "window_animation_scale") == 0
    assert animation_scale({"global": {"window_animation_scale": "nope"}},
                           "window_animation_scale") == 1.0
    assert animation_scale({}, "window_animation_scale") == 1.0
    assert animation_scale({"global": {"window_animation_scale": "99"}},
                           "window_animation_scale") == 10.0


def test_a_launch_slides_the_window_in_and_keeps_the_app_busy() -> None:
    clock = Clock()
    phone = VirtualPhone(motion=True, clock=clock)
    assert phone.start_activity("com.omg.notes")
    transition = phone.profile.transition_ms / 1000
    assert phone.motion.offset() > 0
    content = phone.find_view(resource_id="android:id/content")
    assert content is not None and content.bounds[0] == phone.motion.offset()
    clock.now += transition / 2
    assert 0 < phone.motion.offset() < round(0.25 * phone.profile.width)
    clock.now += transition / 2
    assert phone.motion.offset() == 0 and phone.motion.idle_in() > 0  # still launching
    clock.now += phone.profile.launch_busy_ms / 1000
    assert phone.motion.idle_in() == 0
    phone.key(4)  # BACK to the launcher: the window slides the other way
    assert phone.motion.offset() < 0


def test_no_motion_and_scale_zero_mean_no_transition() -> None:
    still = VirtualPhone(motion=False)
    still.start_activity("com.omg.notes")
    assert still.motion.offset() == 0 and still.motion.idle_in() == 0
    phone = VirtualPhone(motion=True)
    phone.settings["global"]["window_animation_scale"] = "0"
    phone.start_activity("com.omg.notes")
    assert phone.motion.offset() == 0 and phone.motion.idle_in() == 0
