"""The run report in headless Chromium: no console or page errors, every step and image shown."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import Observation, UIElement
from omg_agent.trace import TraceRecorder, render_report

XSS = "<script>alert(1)</script><img src=x onerror=alert(2)>"


def _obs(shade: int) -> Observation:
    button = UIElement(id=1, cls="android.widget.Button", role="button",
                       bounds=Bounds(100, 400, 600, 520), text=f"Buy {XSS}", clickable=True)
    return Observation(screenshot=Image.new("RGB", (1080, 2400), (shade, 220, 230)),
                       elements=(button,), package="com.example.shop", activity=".Main",
                       screen_hash=f"hash{shade}")


def _run(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    with TraceRecorder(run, task=f"find the price {XSS}") as rec:
        rec.record_event("plan", todo_markdown="- [x] open Shop\n- [ ] note the price")
        rec.record_step(1, observation=_obs(200), prompt_tokens=900, completion_tokens=60,
                        model_reply=f'{{"thought": "tap Buy {XSS}"}}',
                        actions=[{"type": "tap", "target": {"kind": "element", "id": 1}}],
                        results=[{"index": 0, "ok": True, "point": [350, 460]}],
                        timings={"observe": 0.3, "model": 1.9, "act": 0.2})
        rec.record_step(2, observation=_obs(150), model_reply=XSS,
                        actions=[{"type": "swipe", "direction": "up"}],
                        results=[{"index": 0, "ok": False, "point": [540, 1800],
                                  "detail": XSS}])
        rec.record_event("post_mortem", reason="LOOP", last_screen=XSS)
        rec.finish("failed", XSS, {})
    return run


def test_report_opens_in_headless_chromium_without_errors(tmp_path, chromium_page):
    report = render_report(_run(tmp_path))
    page = chromium_page.page
    page.goto(report.as_uri(), wait_until="load")
    page.wait_for_function("Array.from(document.images).every(i => i.complete)")
    steps = page.locator("section.step").count()
    images = page.eval_on_selector_all(
        "section.step img", "els => els.map(e => e.naturalWidth)")
    page.click("section.step label[for$='-som']")  # show the set-of-marks screen
    som_shown = page.locator("section.step img.som").first.is_visible()
    circles = page.locator("section.step svg.overlay circle.tap").count()
    swipes = page.locator("section.step svg.overlay g.swipe").count()
    header = page.inner_text("header.run")
    page.keyboard.press("j")  # the navigation script runs without errors
    assert chromium_page.errors == [] and chromium_page.dialogs == []
    assert steps == 2
    assert len(images) == 4 and all(w > 0 for w in images)  # plain + set-of-marks, 2 steps
    assert som_shown
    assert circles == 1 and swipes == 1
    assert "find the price <script>alert(1)</script>" in header  # shown as text, not run
