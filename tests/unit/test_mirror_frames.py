"""Frames: made only when the screen changes, polled only while someone watches, at most
five viewers, each of which gets every change (issue 16)."""

from __future__ import annotations

import threading
from contextlib import ExitStack

import pytest
from mirror_doubles import Client, PhoneDouble
from websockets.exceptions import InvalidStatus

from omg_agent.hitl.app import MAX_VIEWERS
from omg_agent.hitl.frames import Changes, FrameSource
from omg_agent.hitl.server import Mirror


def test_a_static_screen_makes_one_frame_and_a_change_makes_the_next():
    phone = PhoneDouble()
    source = FrameSource(phone, Changes())
    assert source.poll_once() is True
    first = source.latest
    assert first is not None and first.jpeg[:2] == b"\xff\xd8"  # a JPEG
    assert source.poll_once() is False and source.poll_once() is False
    assert source.latest is first and source.changes.version == 1
    phone.shade = 200
    assert source.poll_once() is True
    assert source.latest.seq == 2 and source.latest.digest != first.digest


def test_the_poller_runs_only_while_someone_watches():
    phone = PhoneDouble()
    source = FrameSource(phone, Changes(), poll_s=0.01)
    assert source._thread is None  # nobody watches: the device is not touched
    assert source.watch()
    source.changes.wait(0, 10)
    thread = source._thread
    assert thread is not None and thread.is_alive() and source.latest is not None
    source.unwatch()
    thread.join(10)
    assert not thread.is_alive()
    assert source.watch() and source._thread is not thread  # a new viewer: a new poller
    source.close()


def test_a_failing_screenshot_is_reported_not_raised():
    class Broken(PhoneDouble):
        def screenshot(self):
            raise OSError("device offline")

    source = FrameSource(Broken(), Changes())
    assert source.poll_once() is False and source.error == "device offline"


def test_five_viewers_each_get_every_change_and_a_sixth_is_refused():
    phone = PhoneDouble()
    with Mirror(phone) as mirror:
        client = Client(mirror)
        client.sign_in()
        with ExitStack() as stack:
            sockets = [stack.enter_context(client.socket()) for _ in range(MAX_VIEWERS)]
            with pytest.raises(InvalidStatus):
                client.socket()
            received: list[list[bytes]] = [[] for _ in sockets]

            def read_frames(i: int, want: int) -> None:
                while len(received[i]) < want:
                    message = sockets[i].recv(timeout=20)
                    if isinstance(message, bytes):
                        received[i].append(message)

            for i in range(len(sockets)):
                read_frames(i, 1)
            phone.shade = 30  # the screen changes: every viewer gets the new frame
            readers = [threading.Thread(target=read_frames, args=(i, 2))
                       for i in range(len(sockets))]
            for reader in readers:
                reader.start()
            for reader in readers:
                reader.join(30)
            assert all(len(r) == 2 and r[0] != r[1] for r in received)
