"""HTML report: self-contained, escaped, actions drawn where they landed; the CLI command."""

from __future__ import annotations

import re
from pathlib import Path

from PIL import Image
from typer.testing import CliRunner

from omg_agent.cli import app
from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import Observation, UIElement
from omg_agent.trace import TraceRecorder, render_report

XSS = "<script>alert(1)</script>"


def _obs(text: str = "Buy") -> Observation:
    button = UIElement(id=1, cls="android.widget.Button", role="button",
                       bounds=Bounds(100, 400, 600, 520), text=text, clickable=True)
    return Observation(screenshot=Image.new("RGB", (1080, 2400), (240, 240, 240)),
                       elements=(button,), package="com.example.shop", activity=".Main",
                       screen_hash="f00d")


def _run(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    with TraceRecorder(run, task=f"find the price {XSS}") as rec:
        rec.record_event("plan", todo_markdown="- [x] open Shop\n- [ ] read <b>price</b>")
        rec.record_step(1, observation=_obs(f"on-screen {XSS}"), prompt_tokens=1200,
                        completion_tokens=80,
                        model_reply=f'{{"thought": "I will tap Buy {XSS}", "actions": []}}',
                        actions=[{"type": "tap", "target": {"kind": "element", "id": 1}}],
                        results=[{"index": 0, "ok": True, "point": [350, 460],
                                  "detail": f"tap at 350,460 on {XSS}"}],
                        timings={"observe": 0.3, "model": 2.1, "act": 0.4})
        rec.record_step(2, observation=_obs(), model_reply=f"plain reply {XSS}",
                        actions=[{"type": "swipe", "direction": "up", "distance": 500}],
                        results=[{"index": 0, "ok": True, "point": [540, 1800]}],
                        timings={"observe": 0.2, "model": 1.0, "act": 0.6})
        rec.record_step(3, observation=_obs(),
                        actions=[{"type": "tap", "target": {"kind": "point", "x": 500,
                                                            "y": 250}}])
        rec.record_event("ask_user", question=f"which one? {XSS}")
        rec.finish("done", f"$999 {XSS}", {})
    return run


def test_report_is_one_self_contained_file_with_run_facts(tmp_path):
    run = _run(tmp_path)
    out = render_report(run)
    assert out == run / "report.html"
    html = out.read_text()
    assert html.startswith("<!DOCTYPE html>")
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", html)
    assert "http://" not in html and "https://" not in html
    assert '<dt>Model calls</dt><dd data-fact="model calls">2</dd>' in html
    assert '<dt>Turns</dt><dd data-fact="turns">3</dd>' in html
    assert "1,200 prompt + 80 completion" in html
    assert "read &lt;b&gt;price&lt;/b&gt;" in html  # the plan, escaped
    assert len(re.findall(r'<section class="card step turn', html)) == 3


def test_untrusted_text_is_escaped_never_a_tag(tmp_path):
    html = render_report(_run(tmp_path)).read_text()
    assert XSS not in html
    assert "I will tap Buy &lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "plain reply &lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert html.count("<script>") == 1  # only the report's own navigation script


def test_screenshots_are_embedded_as_data_uris(tmp_path):
    html = render_report(_run(tmp_path)).read_text()
    uris = re.findall(r'<img class="(plain|som)" src="data:image/jpeg;base64,[A-Za-z0-9+/=]+"',
                      html)
    assert uris.count("plain") == 3 and uris.count("som") == 3


def _svg_of_step(html: str, step: int) -> str:
    section = html.split(f'id="turn-{step}"')[1].split("</section>")[0]
    return section.split('<svg class="overlay"')[1].split("</svg>")[0]


def test_a_tap_is_a_circle_at_the_recorded_pixel_point_in_screen_coordinates(tmp_path):
    html = render_report(_run(tmp_path)).read_text()
    svg = _svg_of_step(html, 1)
    assert 'viewBox="0 0 1080 2400"' in svg
    assert '<circle class="tap" cx="350.0" cy="460.0"' in svg


def test_a_swipe_is_an_arrow_from_the_point_along_its_direction(tmp_path):
    svg = _svg_of_step(render_report(_run(tmp_path)).read_text(), 2)
    assert '<line x1="540.0" y1="1800.0" x2="540.0" y2="600.0"' in svg
    assert "<polygon" in svg


def test_an_action_without_a_result_is_drawn_dashed_at_its_intended_point(tmp_path):
    svg = _svg_of_step(render_report(_run(tmp_path)).read_text(), 3)
    assert 'cx="540.0" cy="600.0"' in svg and "stroke-dasharray" in svg


def test_timings_bar_has_observe_model_and_act(tmp_path):
    html = render_report(_run(tmp_path)).read_text()
    assert 'class="observe" style="width:10.71%"' in html  # 0.3 of 2.8 s
    assert "model 2100 ms" in html and "act 400 ms" in html


def test_report_goes_where_out_says(tmp_path):
    out = render_report(_run(tmp_path), tmp_path / "elsewhere" / "r.html")
    assert out == tmp_path / "elsewhere" / "r.html" and out.is_file()


def test_cli_prints_the_report_path(tmp_path):
    run = _run(tmp_path)
    result = CliRunner().invoke(app, ["report", str(run), "--out", str(tmp_path / "x.html")])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == str(tmp_path / "x.html")
    assert (tmp_path / "x.html").is_file()


def test_cli_names_the_problem_when_the_folder_has_no_trace(tmp_path):
    result = CliRunner().invoke(app, ["report", str(tmp_path)])
    assert result.exit_code == 1
    assert "has no trace.jsonl" in result.output


def test_driver_outcomes_and_action_models_are_recorded_and_drawn(tmp_path):
    from omg_agent.core.actions import parse_action
    from omg_agent.drivers.base import ActionOutcome

    swipe = parse_action({"type": "swipe", "from": {"kind": "point", "x": 500, "y": 800},
                          "to": {"kind": "point", "x": 500, "y": 200}})
    typed = parse_action({"type": "type", "text": "pw-9876",
                          "target": {"kind": "element", "id": 1}})
    run = tmp_path / "run"
    with TraceRecorder(run, task="t", redact=["pw-9876"]) as rec:
        rec.record_step(1, observation=_obs(), actions=[swipe],
                        results=[ActionOutcome(0, swipe, True, "swipe", (540, 1920), "point")])
        password_obs = Observation(
            screenshot=Image.new("RGB", (1080, 2400)), elements=(UIElement(
                id=1, cls="android.widget.EditText", role="input", password=True,
                bounds=Bounds(0, 0, 500, 100)),))
        rec.record_step(2, observation=password_obs,
                        results=[ActionOutcome(0, typed, True, "typed", (250, 50), "element")])
    html = render_report(run).read_text()
    assert '<line x1="540.0" y1="1920.0" x2="540.0" y2="480.0"' in _svg_of_step(html, 1)
    assert "pw-9876" not in (run / "trace.jsonl").read_text() and "pw-9876" not in html


def test_orchestrator_style_names_todo_text_timings_and_text_summary_are_understood(tmp_path):
    run = tmp_path / "run"
    with TraceRecorder(run, task="t") as rec:
        rec.record_event("plan", predefined=False, todo="- [ ] open Shop\n- [ ] note it")
        rec.record_step(1, observation=None, model_reply="{}", phase="step 1",
                        timings={"observe_s": 0.5, "decide_s": 1.0, "act_s": 0.5})
        rec.record_event("step_done", step=1, todo="- [x] open Shop\n- [ ] note it")
        rec.finish("done", "ok", "done: open Shop; stopped: finished; next: nothing")
    html = render_report(run).read_text()
    summary = html.split('id="summary"')[1].split("</section>")[0]
    assert '<span class="tick">✔</span> open Shop</li>' in summary  # the latest plan
    assert 'class="observe" style="width:25.00%"' in html and "model 1000 ms" in html
    assert "stopped: finished" in (run / "result.json").read_text()
    assert "Why it stopped:</span> done: open Shop; stopped: finished" in summary


def test_results_numbered_by_the_executor_are_paired_with_their_action_by_type(tmp_path):
    run = tmp_path / "run"
    with TraceRecorder(run, task="t") as rec:
        rec.record_step(
            1, observation=_obs(),
            actions=[{"type": "mem_save", "key": "price", "value": "$5"},
                     {"type": "tap", "target": {"kind": "point", "x": 100, "y": 100}}],
            results=[{"index": 0, "type": "tap", "ok": False, "point": [700, 900],
                      "detail": "missed"},
                     {"type": "mem_save", "ok": True, "detail": "$price = '$5'"}])
    html = render_report(run).read_text()
    svg = _svg_of_step(html, 1)
    assert svg.count("<circle") == 1 and 'cx="700.0" cy="900.0"' in svg
    assert "stroke-dasharray" not in svg and "#d92d20" in svg  # a failed tap, in red
    items = re.findall(r'<li data-action="(\w+)">', html)
    assert items == ["mem_save", "tap"]
    assert re.search(r"<b>2. tap point \(100,100\)</b> <span class=\"badge bad\">failed</span>"
                     r".*?missed", html)
