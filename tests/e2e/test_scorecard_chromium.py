"""The suite scorecard in headless Chromium: it renders without errors, its plots are drawn
SVG, and what the plots draw (values and geometry) equals scorecard.json."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from omg_agent.bench.scorecard import write_scorecard
from omg_agent.bench.suite_run import SuitePlan, parse_variants, run_suite, scorecard_of
from omg_agent.sim.expert import bench_tasks


def _scorecard(out: Path) -> tuple[Path, dict]:
    """A real two-task, two-variant suite run (the tight budget makes some runs fail)."""
    wifi, note = bench_tasks()[1], bench_tasks()[3]
    wifi.id, wifi.tags = "wifi-off", ("single-app", "settings")
    note.id, note.tags = "note", ("single-app", "notes")
    plan = SuitePlan((wifi, note), parse_variants(["bundles:bundling=multi",
                                                   "tight:bundling=single,max_steps=4"]),
                     noise="none")
    run = run_suite(plan, out, parallel=1)
    json_path, html_path = write_scorecard(scorecard_of(run, "test"), out)
    return html_path, json.loads(json_path.read_text(encoding="utf-8"))


def _drawn(page, selector: str) -> list[dict]:
    return page.eval_on_selector_all(selector, """els => els.map(e => ({
        ...e.dataset, height: e.getAttribute('height'), width: e.getAttribute('width'),
        scale: e.ownerSVGElement.dataset.scale}))""")


def test_scorecard_plots_render_and_draw_the_json_numbers(tmp_path, chromium_page) -> None:
    html_path, card = _scorecard(tmp_path / "suite")
    page = chromium_page.page
    page.goto(html_path.as_uri(), wait_until="load")
    page.wait_for_selector("body[data-plotted=yes]")
    svgs = page.locator("figure.plot svg").count()
    bars = _drawn(page, "#plot-success rect.bar")
    points = _drawn(page, "#plot-calls circle.point")
    segments = _drawn(page, "#plot-time rect.seg")
    links = page.eval_on_selector_all("a.report", "els => els.map(e => e.href)")
    assert chromium_page.errors == []
    assert svgs == 3
    aggs = card["aggregates"]
    variants = [v["name"] for v in card["variants"]]
    expected_bars = {(tag, v): aggs[v] if tag == "all" else aggs[v]["by_tag"][tag]
                     for tag in ["all", *card["tags"]] for v in variants}
    assert {(b["tag"], b["variant"]) for b in bars} == set(expected_bars)
    for b in bars:
        rate = expected_bars[(b["tag"], b["variant"])]
        assert float(b["value"]) == rate["success_rate"]
        assert (float(b["lo"]), float(b["hi"])) == (rate["ci_low"], rate["ci_high"])
        assert float(b["height"]) == pytest.approx(rate["success_rate"] * float(b["scale"]))
    drawn_calls = sorted((p["variant"], p["task"], int(p["repeat"]), float(p["value"]))
                         for p in points)
    assert drawn_calls == sorted((r["variant"], r["task_id"], r["repeat"], r["model_calls"])
                                 for r in card["runs"])
    assert len(segments) == 3 * len(variants)
    for s in segments:
        expected = aggs[s["variant"]]["per_step_s"][s["part"]]
        assert float(s["value"]) == expected
        assert float(s["width"]) == pytest.approx(expected * float(s["scale"]))
    assert len(links) == len(card["runs"])
    assert all(Path(unquote(urlparse(link).path)).is_file() for link in links)
    assert {r["success"] for r in card["runs"]} == {True, False}  # both marks were drawn
