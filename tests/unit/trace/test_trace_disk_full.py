"""A disk that fills under the trace (issue 25): the recorder never raises out of a write,
keeps the action log ahead of the screenshots, and says so at the next safe point; the
report is written whole or not at all. The disk is a real tmpfs of a few pages (root only:
skipped where mounting is not permitted)."""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from omg_agent.bench.diskfull import can_mount, fill, small_disk
from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import Observation, UIElement
from omg_agent.durable import append_line
from omg_agent.errors import DiskTrouble
from omg_agent.trace import TraceRecorder, render_report

pytestmark = pytest.mark.skipif(not can_mount(), reason="mounting a tmpfs is not permitted")


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    with small_disk(tmp_path / "disk", 160) as folder:
        yield folder


def _noisy_obs(seed: int) -> Observation:
    """A screen whose JPEG does not compress (random pixels): ~100 KiB a screenshot."""
    rng = random.Random(seed)
    image = Image.frombytes("RGB", (360, 800), rng.randbytes(360 * 800 * 3))
    like = UIElement(id=1, cls="android.widget.Button", role="button",
                     bounds=Bounds(10, 100, 200, 160), text="Like")
    return Observation(screenshot=image, elements=(like,), package="com.omg.feed",
                       activity=".Main", screen_hash=f"h{seed}")


def test_a_full_disk_never_raises_from_the_recorder_and_keeps_each_turns_actions(
        disk: Path) -> None:
    rec = TraceRecorder(disk / "run", task="like the posts")
    for step in range(1, 7):  # the screenshots fill the disk within a few turns
        rec.record_step(step, observation=_noisy_obs(step), actions=[
            {"type": "tap", "target": {"kind": "element", "id": 1}}],
            results=[{"index": 0, "type": "tap", "ok": True}], model_reply="tap Like")
    assert isinstance(rec.trouble, OSError)
    with pytest.raises(DiskTrouble, match="No space left"):
        rec.check()  # the run's next safe point
    assert [t["step"] for t in rec.turns] == list(range(1, 7))  # counted, written or not
    result = rec.finish("interrupted", "")  # result.json may not fit: the result is returned
    assert result["turns"] == 6
    lines = (disk / "run" / "trace.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]  # whole lines only, none torn
    steps = [r for r in records if r["record"] == "step"]
    assert steps and all(r["actions"] for r in steps)
    no_screens = [r for r in steps if "image" not in r["observation"]]
    assert no_screens, "after the first refused screenshot, the turns go on without any"
    for shot in (disk / "run" / "screens").glob("step-*[0-9].jpg"):  # each one whole,
        Image.open(shot).verify()  # with its set-of-marks twin
        assert shot.with_name(f"{shot.stem}-som.jpg").is_file()


def test_a_line_the_disk_takes_only_part_of_is_cut_back_off(disk: Path) -> None:
    log = disk / "trace.jsonl"
    append_line(log, json.dumps({"n": 1}))
    fill(disk, leave=8192)  # room for the start of the next line, not all of it
    with pytest.raises(OSError):
        append_line(log, json.dumps({"n": 2, "pad": "x" * 64 * 1024}))
    assert log.read_text() == '{"n": 1}\n'


def test_a_report_that_does_not_fit_is_not_written_at_all(disk: Path, tmp_path: Path
                                                          ) -> None:
    run = tmp_path / "run"  # the trace on a roomy disk, the report aimed at the full one
    rec = TraceRecorder(run, task="like the posts")
    for step in range(1, 4):
        rec.record_step(step, observation=_noisy_obs(step), actions=[{"type": "back"}],
                        results=[{"index": 0, "type": "back", "ok": True}])
    rec.finish("done", "")
    with pytest.raises(OSError):
        render_report(run, disk / "report.html")
    assert os.listdir(disk) == [], "no report, and no temp file, under any name"
