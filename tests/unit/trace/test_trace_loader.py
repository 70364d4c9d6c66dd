"""Trace loader: reads what the recorder wrote, survives truncated and corrupt lines."""

from __future__ import annotations

import logging

import pytest

from omg_agent.errors import ConfigError
from omg_agent.trace import EventRecord, StepRecord, TraceRecorder, load_trace


def _run(tmp_path, *, finish: bool = True):
    run = tmp_path / "run"
    rec = TraceRecorder(run, task="save the price in Notes")
    rec.record_event("plan", todo_markdown="- [ ] open Shop\n- [ ] open Notes")
    rec.record_step(1, observation=None, model_reply="r1", actions=[{"type": "home"}],
                    results=[{"index": 0, "ok": True}], timings={"model": 1.0})
    rec.record_step(2, observation=None, model_reply="r2")
    if finish:
        rec.finish("done", "$5", {})
    return run


def test_loads_task_steps_events_and_result_in_order(tmp_path):
    trace = load_trace(_run(tmp_path))
    assert trace.task == "save the price in Notes"
    assert [s.step for s in trace.steps] == [1, 2]
    assert trace.steps[0].actions == ({"type": "home"},) and trace.steps[0].timings == {
        "model": 1.0}
    assert [e.kind for e in trace.events] == ["plan"]
    assert [type(r) for r in trace.timeline] == [EventRecord, StepRecord, StepRecord]
    assert trace.plan is not None and "open Notes" in trace.plan.data["todo_markdown"]
    assert trace.result is not None and trace.result["answer"] == "$5"
    assert trace.warnings == ()


def test_a_truncated_last_line_is_skipped_with_a_warning_naming_file_and_line(tmp_path,
                                                                               caplog):
    run = _run(tmp_path, finish=False)
    path = run / "trace.jsonl"
    with path.open("a") as fh:
        fh.write('{"record": "step", "step": 3, "model_re')  # the process died mid-write
    with caplog.at_level(logging.WARNING, logger="omg_agent.trace"):
        trace = load_trace(run)
    assert [s.step for s in trace.steps] == [1, 2]
    assert trace.result is None
    assert len(trace.warnings) == 1 and f"{path}:5:" in trace.warnings[0]
    assert f"{path}:5:" in caplog.text


def test_corrupt_lines_in_the_middle_do_not_hide_the_rest(tmp_path):
    run = _run(tmp_path)
    path = run / "trace.jsonl"
    lines = path.read_text().splitlines()
    lines.insert(2, "not json at all")
    lines.insert(3, "[1, 2, 3]")
    lines.insert(4, '{"record": "step"}')  # no step number
    path.write_text("\n".join(lines) + "\n")
    trace = load_trace(run)
    assert [s.step for s in trace.steps] == [1, 2]
    assert [w.split(": ", 1)[0] for w in trace.warnings] == [f"{path}:3", f"{path}:4",
                                                             f"{path}:5"]


def test_a_folder_without_a_trace_is_an_error_that_says_so(tmp_path):
    with pytest.raises(ConfigError, match="has no trace.jsonl"):
        load_trace(tmp_path)
    with pytest.raises(ConfigError, match="not a folder"):
        load_trace(tmp_path / "missing")


def test_without_result_json_the_finish_line_is_the_result(tmp_path):
    run = _run(tmp_path)
    (run / "result.json").unlink()
    trace = load_trace(run)
    assert trace.result is not None and trace.result["status"] == "done"
    assert "record" not in trace.result
