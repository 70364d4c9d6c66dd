"""Trace recorder: incremental lines, screenshots, observation summaries, secrets, result."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from PIL import Image

from omg_agent.core.actions import parse_action
from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import Observation, UIElement
from omg_agent.core.secrets import SecretVault
from omg_agent.errors import ConfigError
from omg_agent.trace import REDACTED, TraceRecorder, load_trace, new_run_dir, render_report

SECRET = "hunter2-Secret!"
PLACEHOLDER = "{{secret:secret}}"


def _obs(n_elements: int = 3, *, password_text: str = "", focused_password: bool = False
         ) -> Observation:
    elements = [UIElement(id=i, cls="android.widget.Button", role="button",
                          bounds=Bounds(10, 100 * i, 500, 100 * i + 80), text=f"Item {i}")
                for i in range(1, n_elements + 1)]
    elements.append(UIElement(id=n_elements + 1, cls="android.widget.EditText", role="input",
                              bounds=Bounds(10, 2000, 1000, 2100), text=password_text,
                              password=True, editable=True, focused=focused_password))
    return Observation(screenshot=Image.new("RGB", (1080, 2400), (200, 210, 220)),
                       elements=tuple(elements), package="com.example.shop",
                       activity=".Main", screen_hash="abcd1234",
                       timings={"total": 0.25, "screencap": 0.1})


def _lines(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "trace.jsonl").read_text().splitlines()]


def test_each_record_is_on_disk_as_one_json_line_as_soon_as_it_is_recorded(tmp_path):
    run = tmp_path / "run"
    rec = TraceRecorder(run, task="find the price")
    assert [r["record"] for r in _lines(run)] == ["task"]
    rec.record_step(1, observation=_obs(), model_reply="thinking", prompt_tokens=100,
                    completion_tokens=20, actions=[{"type": "tap"}],
                    results=[{"index": 0, "ok": True, "point": [300, 400]}],
                    timings={"observe": 0.2, "model": 1.5, "act": 0.3})
    assert [r["record"] for r in _lines(run)] == ["task", "step"]
    rec.record_event("plan", todo_markdown="- [ ] open Shop")
    lines = _lines(run)
    assert [r["record"] for r in lines] == ["task", "step", "event"]
    assert lines[1]["step"] == 1 and lines[1]["results"][0]["point"] == [300, 400]
    assert lines[2] == {"record": "event", "kind": "plan", "t": lines[2]["t"],
                        "data": {"todo_markdown": "- [ ] open Shop"}}
    rec.finish("done", "42", {})


def test_screenshots_are_saved_small_as_jpeg_with_a_set_of_marks_twin(tmp_path):
    with TraceRecorder(tmp_path / "run", task="t") as rec:
        rec.record_step(3, observation=_obs(), phase="act")
        rec.record_step(3, observation=_obs(), phase="verify")
    obs = _lines(tmp_path / "run")[1]["observation"]
    assert obs["image"] == "screens/step-003.jpg" and obs["som"] == "screens/step-003-som.jpg"
    for rel in (obs["image"], obs["som"]):
        with Image.open(tmp_path / "run" / rel) as img:
            assert img.format == "JPEG" and max(img.size) == 1080
    assert obs["size"] == [1080, 2400] and obs["image_size"] == [486, 1080]
    second = _lines(tmp_path / "run")[2]["observation"]
    assert second["image"] == "screens/step-003-2.jpg"  # a second observation never overwrites


def test_observation_summary_is_compact_and_capped_at_forty_elements(tmp_path):
    with TraceRecorder(tmp_path / "run", task="t") as rec:
        rec.record_step(1, observation=_obs(60, password_text="s3cr3t-pw"))
    obs = _lines(tmp_path / "run")[1]["observation"]
    assert obs["package"] == "com.example.shop" and obs["activity"] == ".Main"
    assert obs["screen_hash"] == "abcd1234" and obs["element_count"] == 61
    assert len(obs["elements"]) == 40
    assert obs["elements"][0] == {"id": 1, "role": "button", "text": "Item 1",
                                  "bounds": [10, 100, 500, 180]}


def test_password_field_text_is_redacted(tmp_path):
    obs = _obs(2, password_text="s3cr3t-pw")
    with TraceRecorder(tmp_path / "run", task="t") as rec:
        rec.record_step(1, observation=obs)
    summary = _lines(tmp_path / "run")[1]["observation"]["elements"]
    assert summary[-1]["text"] == REDACTED and summary[-1]["password"] is True
    assert "s3cr3t-pw" not in (tmp_path / "run" / "trace.jsonl").read_text()


def _all_text_files(run: Path) -> dict[str, str]:
    return {str(p.relative_to(run)): p.read_text(encoding="utf-8")
            for p in run.rglob("*") if p.is_file() and p.suffix != ".jpg"}


def test_secrets_are_redacted_in_every_file_written_including_the_report(tmp_path):
    run = tmp_path / "run"
    rec = TraceRecorder(run, task=f"log in with password {SECRET}", redact=[SECRET])
    rec.record_step(1, observation=_obs(), model_reply=f'{{"thought": "type {SECRET}"}}',
                    actions=[{"type": "type", "text": SECRET}],
                    results=[{"index": 0, "ok": True, "detail": f"typed {SECRET}"}],
                    note=f"note {SECRET}")
    rec.record_event("memory", key="pw", value=SECRET, **{SECRET: "as a key too"})
    rec.finish("done", f"logged in using {SECRET}", {"typed": [SECRET]})
    render_report(run)
    files = _all_text_files(run)
    assert set(files) >= {"trace.jsonl", "result.json", "answer.txt", "report.html"}
    for name, text in files.items():
        assert SECRET not in text, name
        assert SECRET.replace("!", "") not in text, name
    assert PLACEHOLDER in files["answer.txt"] and PLACEHOLDER in files["result.json"]


def test_a_secret_the_shared_vault_learns_mid_run_is_masked_from_then_on(tmp_path):
    run = tmp_path / "run"
    vault = SecretVault()
    with TraceRecorder(run, task="log in", secrets=vault) as rec:
        typed = parse_action({"type": "type", "text": "pa55word-A",
                              "target": {"kind": "element", "id": 3}})
        vault.add("password", "pa55word-A")  # the driver saw a password field: learned
        rec.record_step(1, observation=_obs(2), actions=[typed])
        rec.record_step(2, observation=None, model_reply="I typed pa55word-A")
    text = (run / "trace.jsonl").read_text()
    assert "pa55word" not in text and text.count("{{secret:password}}") == 2


def test_finish_writes_result_and_answer_with_counts(tmp_path):
    run = tmp_path / "run"
    rec = TraceRecorder(run, task="find the price")
    rec.record_event("plan", steps=[{"description": "open Shop"}], prompt_tokens=50,
                     completion_tokens=10)
    for step in (1, 2):
        rec.record_step(step, observation=None, model_reply="{}", prompt_tokens=100,
                        completion_tokens=20)
    rec.record_step(2, observation=None, phase="verify")
    result = rec.finish("done", "$999", {"reason": "price found"})
    on_disk = json.loads((run / "result.json").read_text())
    assert on_disk == result
    assert result["status"] == "done" and result["answer"] == "$999"
    assert result["steps"] == 2 and result["model_calls"] == 3
    assert result["tokens"] == {"prompt": 250, "completion": 50, "total": 300}
    assert result["wall_time_s"] >= 0 and result["summary"] == {"reason": "price found"}
    assert (run / "answer.txt").read_text() == "$999\n"
    assert _lines(run)[-1]["record"] == "finish"
    with pytest.raises(RuntimeError):
        rec.finish("done", "again", {})


def test_a_crash_inside_the_with_block_still_leaves_a_result(tmp_path):
    run = tmp_path / "run"
    with pytest.raises(ValueError), TraceRecorder(run, task="t") as rec:
        rec.record_step(1, observation=None)
        raise ValueError("boom")
    result = load_trace(run).result
    # a documented status (issue 38): "failed", with the error in its stop report
    assert result is not None and result["status"] == "failed" and "boom" in str(result)


def test_a_status_that_is_not_documented_is_refused(tmp_path):
    with TraceRecorder(tmp_path / "run", task="t") as rec:
        with pytest.raises(ValueError, match="not one of done, failed"):
            rec.finish("error", "", {})
        rec.finish("done", "", {})


def test_a_run_folder_is_never_reused(tmp_path):
    TraceRecorder(tmp_path / "run", task="t").finish("done", "", {})
    with pytest.raises(ConfigError, match="already exists"):
        TraceRecorder(tmp_path / "run", task="t")


def test_new_run_dir_is_made_empty_and_named_after_the_task(tmp_path):
    first = new_run_dir(tmp_path / "runs", "Find the price!")
    assert first.is_dir() and not any(first.iterdir())
    assert first.name.endswith("find-the-price")


def test_runs_of_one_task_in_one_second_each_get_their_own_folder(tmp_path):
    """The name has a one-second clock: the same second, the same name — each run's mkdir
    claims one, and the rest take -2, -3, … (a name checked, then made later, was taken
    twice and the loser died on "trace.jsonl already exists")."""
    now = 1_790_000_000.0
    with ThreadPoolExecutor(4) as pool:
        made = list(pool.map(lambda _: new_run_dir(tmp_path, "Like the posts", now=now),
                             range(4)))
    stem = min((p.name for p in made), key=len)
    assert len(set(made)) == 4 and all(p.is_dir() for p in made)
    assert sorted(p.name for p in made) == sorted(
        [stem] + [f"{stem}-{k}" for k in (2, 3, 4)])
    for run_dir in made:  # each folder takes a trace
        TraceRecorder(run_dir, task="Like the posts").finish("done", "", {})


def test_a_piece_of_a_secret_inside_a_field_name_leaves_the_record_readable(tmp_path):
    """'word' of ``pa55word-A`` is masked in texts, never in the trace's field names: an
    element's ``password`` flag stays ``password`` for every reader (the resume, the report)."""
    run = tmp_path / "run"
    vault = SecretVault()
    vault.add("password", "pa55word-A")
    with TraceRecorder(run, task="log in", secrets=vault) as rec:
        rec.record_step(1, observation=_obs(2), model_reply="a preview: AAAA…pa55wo")
    steps = [json.loads(line) for line in (run / "trace.jsonl").read_text().splitlines()]
    step = next(s for s in steps if s.get("record") == "step")
    assert any("password" in e for e in step["observation"]["elements"])
    assert "pa55wo" not in json.dumps(step, ensure_ascii=False)
