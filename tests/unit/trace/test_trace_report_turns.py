"""The report's turns and events: every screen a turn acted on, no-effect marks, screens
numbered by appearance, events in words, repeated loop cards collapsed, a summary for a
person, and the counts in one vocabulary."""

from __future__ import annotations

import json
import re

from PIL import Image, ImageDraw

from omg_agent.brain.run_state import RunResult
from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import Observation, UIElement
from omg_agent.perception.screenhash import ScreenHash
from omg_agent.trace import TraceRecorder, load_trace, render_report
from omg_agent.trace.summary import parse_stop_report, run_output, summarize

STOP = ("Done so far:\n  - open Shop\n  - read the price\nStopped because: the task is "
        "complete\nNext: nothing: the task is done")


def _obs(shade: int = 240, screen_hash: str = "", text: str = "Buy",
         box: bool = False) -> Observation:
    image = Image.new("RGB", (1080, 2400), (shade, shade, shade))
    if box:
        ImageDraw.Draw(image).rectangle((100, 900, 900, 1500), fill=(20, 20, 20))
    button = UIElement(id=1, cls="android.widget.Button", role="button",
                       bounds=Bounds(100, 400, 600, 520), text=text, clickable=True)
    return Observation(screenshot=image, elements=(button,), package="com.example.shop",
                       activity=".Main",
                       screen_hash=screen_hash or ScreenHash().compute(image))


def _tap(x: int, y: int, index: int = 0, ok: bool = True) -> tuple[dict, dict]:
    return ({"type": "tap", "target": {"kind": "point", "x": x, "y": y}},
            {"index": index, "type": "tap", "ok": ok, "point": [x, y], "detail": "tapped"})


def _turn(html: str, n: int) -> str:
    return html.split(f'id="turn-{n}"')[1].split("</section>")[0]


def test_a_turn_that_went_on_to_a_new_screen_draws_each_action_on_its_own_screen(tmp_path):
    run = tmp_path / "run"
    first, second = _tap(100, 200, 0), _tap(700, 1800, 1)
    with TraceRecorder(run, task="t") as rec:
        rec.record_step(1, observation=_obs(240), actions=[first[0], second[0]],
                        results=[first[1], {"type": "screen", "ok": True, "observation":
                                            _obs(120, box=True),
                                            "detail": "continued on the new screen from "
                                                      "action 2"}, second[1]])
        rec.record_step(2, observation=_obs(60))
    line = json.loads((run / "trace.jsonl").read_text().splitlines()[1])
    kept = line["results"][1]["observation"]
    assert (run / kept["image"]).is_file() and (run / kept["som"]).is_file()
    assert kept["image"] != line["observation"]["image"]

    turn = _turn(render_report(run).read_text(), 1)
    screens = turn.split('<figure class="screen"')[1:]
    assert len(screens) == 2
    assert re.findall(r">(\d+)</text>", screens[0]) == ["1"]
    assert re.findall(r">(\d+)</text>", screens[1]) == ["2"]
    assert 'cx="700.0" cy="1800.0"' in screens[1] and "cx=\"700.0\"" not in screens[0]
    assert "then the new screen" in screens[1] and "action 2 ran here" in screens[1]
    assert "continued on the new screen from action 2" in turn


def test_an_action_that_left_the_screen_the_same_is_marked_no_effect_never_ok(tmp_path):
    run = tmp_path / "run"
    tap, tapped = _tap(350, 460)
    typed = {"type": "type", "text": "hi", "target": {"kind": "element", "id": 1}}
    with TraceRecorder(run, task="t") as rec:
        rec.record_step(1, observation=_obs(240), actions=[tap], results=[tapped])
        rec.record_step(2, observation=_obs(241), actions=[tap], results=[tapped])  # the same
        rec.record_step(3, observation=_obs(120, box=True), actions=[typed],
                        results=[{"index": 0, "type": "type", "ok": True}])
        rec.record_step(4, observation=_obs(120, box=True))
    html = render_report(run).read_text()
    one, two, three = _turn(html, 1), _turn(html, 2), _turn(html, 3)
    assert "no effect: the screen looked the same after it" in one
    assert 'class="badge ok"' not in one and 'fill="#f59e0b"' in one
    assert 'class="card step turn failed"' in html.split('id="turn-1"')[0][-80:]
    assert "no effect" not in two and '<span class="badge ok">ok</span>' in two  # changed
    assert "no effect" not in three  # typing is not meant to change the screen
    assert re.search(r'<a href="#turn-1" class="bad">1</a>', html)
    assert "failed turns only (1 of 4)" in html


def test_the_loop_guard_naming_no_effect_marks_the_turn_before_it(tmp_path):
    run = tmp_path / "run"
    tap, tapped = _tap(350, 460)
    with TraceRecorder(run, task="t") as rec:
        rec.record_step(1, observation=_obs(240), actions=[tap], results=[tapped])
        rec.record_event("loop_guard", step=1, rung="wait", trigger="no_effect",
                         reason="no effect ×1 on tap (350,460): waiting 2 s")
        rec.record_step(2, observation=_obs(120, box=True))
    html = render_report(run).read_text()
    assert "no effect: the screen looked the same" in _turn(html, 1)
    assert "Loop guard · plan step 1" in html and "wait and look again" in html


def test_screens_are_numbered_by_appearance_and_no_hash_is_printed(tmp_path):
    run = tmp_path / "run"
    with TraceRecorder(run, task="t") as rec:
        for shade, box in ((240, False), (120, True), (241, False)):
            rec.record_step(1, observation=_obs(shade, box=box))
    html = render_report(run).read_text()
    labels = re.findall(r'<span class="screenlabel">([^<]*)</span>', html)
    assert labels == ["screen 1 (new)", "screen 2 (new)",
                      "screen 1 again (first seen in turn 1)"]
    text = re.sub(r'src="data:[^"]*"', "", html)  # the page without its images
    assert "q8:" not in text and "AAAAAAA" not in text


def test_identical_loop_cards_in_a_row_collapse_into_one_with_a_count(tmp_path):
    run = tmp_path / "run"
    with TraceRecorder(run, task="t") as rec:
        rec.record_step(1, observation=_obs())
        for _ in range(28):
            rec.record_event("loop_guard", step=1, rung="back", trigger="cycle",
                             reason="the same 2 actions repeat")
        rec.record_event("loop_guard", step=1, rung="post_mortem", trigger="cycle",
                         reason="LOOP: the same 2 actions repeat")
    html = render_report(run).read_text()
    assert html.count("ev-loop_guard") == 2
    assert re.search(r'<span class="count"[^>]*>×28</span>', html)
    assert "the same actions repeat" in html and "press back" in html


def test_events_are_shown_in_words_never_as_json(tmp_path):
    run = tmp_path / "run"
    with TraceRecorder(run, task="t") as rec:
        rec.record_event("plan", todo="- [ ] 1. open Shop\n- [ ] 2. pay")
        rec.record_event("post_mortem", step=1, description="open Shop", reason="LOOP",
                         last_screen="app launcher; shows: Shop", last_error="no effect",
                         strategies_tried=["tap 'Shop' → ok", "press back"],
                         suggested_recovery="take another route")
        rec.record_event("needs_confirmation", step=2, action="tap 'Pay $5'")
        rec.record_event("user_confirmation", action="tap 'Pay $5'", answer=True)
        rec.record_event("ask_user", question="Which card?")
        rec.record_event("user_answer", question="Which card?", answer="the blue one")
        rec.record_event("human", t=1795430733.1, actor="human", action="answer",
                         request="ask_user", question="Which card?", answer="blue",
                         viewer=1)
        rec.record_event("budget", used=40, limit=40)
        rec.finish("failed", "", {"stop_report": STOP, "steps_used": 40, "todo": "- [x] a"})
    main = render_report(run).read_text().split("<main>")[1]
    for words in ("Plan made", "Post-mortem: plan step 1 failed", "Suggested recovery:",
                  "Gate: asks for your yes · plan step 2", "You said:</span> yes",
                  "The agent asks you", "Answer:</span> the blue one",
                  "Human on the mirror: answer", "Budget steps used:</span> 40 of 40"):
        assert words in main, words
    assert '{"' not in main and '":' not in main and "\\n" not in main


def test_the_summary_is_sentences_and_the_counts_use_one_vocabulary(tmp_path):
    run = tmp_path / "run"
    with TraceRecorder(run, task="find the price") as rec:
        rec.record_step(1, observation=_obs(), model_reply="{}", phase="step 1")
        rec.record_step(2, observation=_obs(120, box=True), phase="step 2")
        rec.finish("done", "$5", {"stop_report": STOP, "steps_used": 7, "model_calls": 5,
                                  "todo": "- [x] 1. open Shop\n- [ ] 2. read it"})
    assert parse_stop_report(STOP) == (("open Shop", "read the price"),
                                       "the task is complete", "nothing: the task is done")
    summary = summarize(load_trace(run))
    assert (summary.turns, summary.budget_steps, summary.model_calls) == (2, 7, 5)
    assert (summary.plan_steps, summary.plan_steps_done) == (2, 1)
    assert summary.counts_line() == "2 turns · 7 budget steps · 5 model calls · " \
                                    "plan steps 1/2 done"
    html = render_report(run).read_text()
    block = html.split('id="summary"')[1].split("</section>")[0]
    assert "Done: the phone shows the task finished." in block
    assert "<li>open Shop</li><li>read the price</li>" in block
    assert "Why it stopped:</span> the task is complete" in block
    assert "\\n" not in block and "{" not in block
    assert "plan step 1 · +" in _turn(html, 1)  # the trace's "step 1" phase, in words
    assert json.loads((run / "result.json").read_text())["turns"] == 2


def test_run_output_writes_the_report_and_names_the_counts(tmp_path):
    run = tmp_path / "run"
    with TraceRecorder(run, task="t") as rec:
        rec.record_step(1, observation=_obs())
        rec.finish("done", "ok", {"stop_report": STOP, "steps_used": 3, "todo": "- [x] a"})
    result = RunResult("done", "ok", steps_used=3, model_calls=2, tokens_in=1200,
                       tokens_out=30, wall_s=1.5, done=["a"], stopped_because="complete",
                       next_hint="nothing")
    out = run_output(run)
    assert out.report == run / "report.html" and out.report.is_file()
    assert out.json_keys(result) == {"turns": 1, "budget_steps": 3, "plan_steps": 1,
                                     "plan_steps_done": 1, "report": str(run / "report.html")}
    assert out.lines(result, "1.5 s") == [
        "1 turn · 3 budget steps · 2 model calls · plan steps 1/1 done · tokens 1,200/30 · "
        "1.5 s", f"HTML trace report: {run / 'report.html'}"]
    missing = run_output(tmp_path / "nothing-here")
    assert missing.report is None and missing.lines(result, "x") == [
        "3 budget steps · 2 model calls · tokens 1,200/30 · x"]



def test_a_run_waiting_for_an_answer_shows_the_question_in_its_summary(tmp_path):
    run = tmp_path / "run"
    with TraceRecorder(run, task="t") as rec:
        rec.record_event("ask_user", question="Which card?")
        rec.finish("ask_user", "", {"stop_report": "Done so far:\n  - nothing yet\nStopped "
                                                   "because: waiting for your answer\nNext: "
                                                   "answer with --resume"})
    block = render_report(run).read_text().split('id="summary"')[1].split("</section>")[0]
    assert "Waiting for your answer to a question." in block
    assert "The question:</span> Which card?" in block
    assert "What was done:</span> nothing yet" in block
