"""The mirror's H.264 feed (issue 30): a real libx264 Annex-B stream (PyAV) written into a
socket the way ``adb exec-out screenrecord`` delivers it, cut into access units by the
feed; what a viewer is sent next; a device without H.264 output falls back."""

from __future__ import annotations

import io
import socket

import pytest
from PIL import Image

from omg_agent.hitl.frames import Changes
from omg_agent.hitl.video import RESTART_S, VideoFeed, codec_string, video_size

av = pytest.importorskip("av")


def h264_pictures(count: int, size: tuple[int, int] = (64, 128)) -> list[bytes]:
    """``count`` pictures of a changing screen, each encoded picture's bytes on its own."""
    out = io.BytesIO()
    container = av.open(out, mode="w", format="h264")
    stream = container.add_stream("libx264", rate=30)
    stream.width, stream.height = size
    stream.pix_fmt = "yuv420p"
    stream.options = {"preset": "ultrafast", "tune": "zerolatency"}
    pictures, done = [], 0
    for i in range(count):
        frame = av.VideoFrame.from_image(Image.new("RGB", size, (i * 30 % 256, 90, 40)))
        frame.pts = i
        for packet in stream.encode(frame):
            container.mux(packet)
        container.flush() if hasattr(container, "flush") else None
        pictures.append(out.getvalue()[done:])
        done = len(out.getvalue())
    container.close()
    return pictures


class Phone:
    """Only what the feed asks a driver: the screen's size."""

    def info(self):
        class Info:
            width, height = 1080, 2400

        return Info()


def _feed(changes: Changes) -> tuple[VideoFeed, socket.socket, list[str]]:
    device_end, mirror_end = socket.socketpair()
    commands: list[str] = []

    def open_stream(cmd: str) -> socket.socket:
        commands.append(cmd)
        return mirror_end

    return VideoFeed(Phone(), changes, open_stream=open_stream), device_end, commands


def _await(changes: Changes, condition, what: str) -> None:
    version = -1
    for _ in range(200):
        if condition():
            return
        version = changes.wait(version, 0.1)
    assert condition(), f"never happened: {what}"


def test_the_screen_is_scaled_to_even_sizes_within_the_long_side() -> None:
    assert video_size(1080, 2400) == (576, 1280)
    assert video_size(720, 1280) == (720, 1280)
    assert video_size(1081, 1001, max_side=500) == (500, 462)


def test_the_codec_string_comes_from_the_key_frame_s_sequence_parameters() -> None:
    key = h264_pictures(1)[0]
    name = codec_string(key)
    assert name is not None and name.startswith("avc1.42")  # x264 ultrafast: baseline
    assert len(name) == len("avc1.42C01E")
    assert codec_string(b"\x00\x00\x00\x01\x41\x9a\x00\x00") is None  # a slice, no SPS


def test_each_picture_becomes_one_unit_even_when_the_screen_then_stays_still() -> None:
    changes = Changes()
    feed, device, commands = _feed(changes)
    pictures = h264_pictures(3)
    assert feed.watch()
    try:
        for n, picture in enumerate(pictures, start=1):
            device.sendall(picture)  # then nothing: the stream is quiet, not closed
            _await(changes, lambda n=n: len(feed.units) == n, f"picture {n} published")
        units = feed.units
        assert [u.data for u in units] == pictures
        assert [u.key for u in units] == [True, False, False]
        assert feed.codec == codec_string(pictures[0])
        assert feed.since(0, -1) == units  # a new viewer starts at the key frame
        assert feed.since(units[0].gop, 0) == units[1:]  # one who has it: the rest
        assert commands[0].startswith("screenrecord --output-format=h264 --size 576x1280 ")
        assert commands[0].endswith(" - 2>/dev/null") and "--time-limit 180" in commands[0]
    finally:
        feed.close()
        device.close()
    assert feed.failed is None


def test_a_device_that_prints_no_h264_leaves_the_feed_failed_with_the_reason() -> None:
    changes = Changes()
    feed, device, _ = _feed(changes)
    assert feed.watch()
    device.sendall(b"/system/bin/sh: screenrecord: inaccessible or not found\n")
    _await(changes, lambda: feed.failed is not None, "the feed gave up")
    device.close()
    feed.close()
    assert "not an H.264 stream" in (feed.failed or "")
    assert feed.watch() is False  # the mirror sends JPEG frames from now on


def test_a_driver_without_a_shell_stream_has_no_video() -> None:
    changes = Changes()
    feed = VideoFeed(Phone(), changes)
    assert feed.watch()
    _await(changes, lambda: feed.failed is not None, "the feed gave up")
    feed.close()
    assert "no shell stream" in (feed.failed or "")


def test_when_nobody_watches_the_recording_s_stream_is_hung_up() -> None:
    changes = Changes()
    feed, device, _ = _feed(changes)
    assert feed.watch()
    device.sendall(h264_pictures(1)[0])
    _await(changes, lambda: len(feed.units) == 1, "the key frame")
    feed.unwatch()
    device.settimeout(10)
    try:
        assert device.recv(1) == b""  # the device's screenrecord sees its reader leave
    finally:
        device.close()
        feed.close()
    assert feed.failed is None


def test_a_recording_is_restarted_before_screenrecord_s_time_limit() -> None:
    changes = Changes()
    now = [0.0]
    pairs = [socket.socketpair() for _ in range(2)]
    opened: list[socket.socket] = []

    def open_stream(cmd: str) -> socket.socket:
        opened.append(pairs[len(opened)][1])
        changes.bump()
        return opened[-1]

    feed = VideoFeed(Phone(), changes, open_stream=open_stream, clock=lambda: now[0])
    assert feed.watch()
    try:
        first, second = pairs[0][0], pairs[1][0]
        first.sendall(h264_pictures(1)[0])
        _await(changes, lambda: len(feed.units) == 1, "the first recording's key frame")
        now[0] = RESTART_S + 1  # the first recording is near its 180 s limit
        _await(changes, lambda: len(opened) == 2, "a second recording")
        first.settimeout(10)
        assert first.recv(1) == b""  # the old one was hung up
        second.sendall(h264_pictures(1)[0])
        _await(changes, lambda: feed.units[0].gop == 2, "the new recording's key frame")
    finally:
        feed.close()
        for a, b in pairs:
            a.close()
            b.close()
    assert feed.failed is None
