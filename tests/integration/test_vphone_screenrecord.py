"""``screenrecord`` on a vphone through the real adb and adbutils (issue 29): an mp4 in a file,
an h264 stream on stdout, the size and bit rate asked for, and adbutils' own recorder (which
runs ``screenrecord`` in a background job of a pushed script and stops it with ``kill -INT``).

The encoder is PyAV's libx264, so the module needs ``av`` (a project dependency).
"""

from __future__ import annotations

import io
import subprocess
from collections.abc import Iterator

import adbutils
import pytest

from omg_agent.errors import AdbNotFound
from omg_agent.vphone import adbhost
from omg_agent.vphone.phone import VirtualPhone

av = pytest.importorskip("av")


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[VirtualPhone, str]]:
    try:
        adbhost.adb_path()
    except AdbNotFound as exc:
        pytest.skip(str(exc))
    phone = VirtualPhone()
    server = phone.serve()
    serial = adbhost.connect("127.0.0.1", server.port)
    try:
        yield phone, serial
    finally:
        adbhost.disconnect(serial)
        phone.close()


@pytest.fixture
def device(served: tuple[VirtualPhone, str]) -> adbutils.AdbDevice:
    return adbutils.AdbClient().device(served[1])


def frames(data: bytes, fmt: str | None = None) -> list:
    with av.open(io.BytesIO(data), format=fmt) as container:
        return list(container.decode(video=0))


def test_a_time_limited_recording_is_an_mp4_of_the_size_asked(device, served):
    result = device.shell2("screenrecord --time-limit 1 --size 540x1200 --bit-rate 4M "
                           "/sdcard/clip.mp4")
    assert result.returncode == 0, result.output
    video = frames(device.sync.read_bytes("/sdcard/clip.mp4"))
    assert video and (video[0].width, video[0].height) == (540, 1200)


def test_h264_to_stdout_streams_frames_as_the_screen_changes(served):
    phone, serial = served
    phone.go_home()
    proc = subprocess.Popen(["adb", "-s", serial, "exec-out", "screenrecord",
                             "--output-format=h264", "--time-limit", "2", "-"],
                            stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, bufsize=0)
    head = b""
    while len(head) < 4:  # unbuffered: read what arrives, as a mirroring client does
        chunk = proc.stdout.read(4 - len(head))  # type: ignore[union-attr]
        assert chunk, "screenrecord ended before writing anything"
        head += chunk
    assert head == b"\x00\x00\x00\x01"  # an Annex-B start code: the stream has begun
    phone.start_activity("com.omg.notes")  # a change: another frame
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0
    video = frames(head + out, "h264")
    assert len(video) >= 2 and video[0].width == phone.profile.width


def test_adbutils_start_and_stop_recording_pulls_a_playable_mp4(device, tmp_path):
    target = tmp_path / "output.mp4"
    device.start_recording(str(target))
    device.stop_recording()
    assert frames(target.read_bytes())


def test_bad_options_are_refused_with_androids_exit_status(device):
    assert device.shell2("screenrecord --size 3x3 /sdcard/x.mp4").returncode == 2
    assert device.shell2("screenrecord -").returncode == 2  # mp4 cannot go to stdout
