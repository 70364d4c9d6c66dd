"""The H.264 socket keeps the mirror's locks, and falls back to JPEG (issue 30): asking for
video (``/ws?video=h264``, what a WebCodecs page does) needs the same cookie, key and
Origin; a phone with no shell stream (this double) gets JPEG frames and the reason."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from mirror_doubles import Client, PhoneDouble  # tests/unit/mirror_doubles.py
from websockets.exceptions import InvalidStatus

from omg_agent.hitl.server import Mirror

VIDEO = "/ws?video=h264"


@pytest.fixture
def client() -> Iterator[Client]:
    with Mirror(PhoneDouble()) as mirror:
        tab = Client(mirror)
        tab.sign_in()
        yield tab


@pytest.mark.parametrize("refused", [{"cookie": False}, {"key": False}, {"key": "forged"},
                                     {"origin": "http://evil.example"}])
def test_asking_for_video_needs_every_credential_the_frames_need(client, refused) -> None:
    with pytest.raises(InvalidStatus):
        client.socket(path=VIDEO, **refused)


def test_a_phone_without_a_shell_stream_sends_jpeg_and_says_why(client) -> None:
    states, frame = [], b""
    with client.socket(path=VIDEO) as ws:
        while not frame or not states or states[-1]["video"]["path"] != "jpeg":
            message = ws.recv(timeout=10)
            if isinstance(message, bytes):
                frame = message
            else:
                states.append(json.loads(message))
    assert frame.startswith(b"\xff\xd8")  # a JPEG, as before
    assert "no shell stream" in states[-1]["video"]["why"]
    assert client.mirror.video is not None and client.mirror.video.watchers == 0


def test_a_page_that_does_not_ask_for_video_is_told_why_it_gets_jpeg(client) -> None:
    with client.socket() as ws:
        state = ws.recv(timeout=10)
    assert isinstance(state, str)
    assert json.loads(state)["video"] == {
        "path": "jpeg", "why": "this browser cannot decode H.264 (no WebCodecs VideoDecoder)"}
