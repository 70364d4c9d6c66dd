"""Suite scorecard arithmetic and variant parsing: no device, no model."""

from __future__ import annotations

import json

import pytest

from omg_agent.bench.scorecard import (
    aggregate,
    build_scorecard,
    markdown_table,
    plot_data,
    render_html,
    wilson,
)
from omg_agent.bench.suite_run import Variant, parse_variant, parse_variants, task_seed
from omg_agent.errors import ConfigError


def _record(variant: str, task: str, success: bool, calls: int, tags=("single-app",),
            wall: float = 2.0, turns: int = 4) -> dict:
    return {"variant": variant, "repeat": 0, "task_id": task, "goal": f"do {task}",
            "tags": list(tags), "success": success, "status": "done" if success else "failed",
            "model_calls": calls, "steps": calls + 1, "tokens_in": 1000 * calls,
            "tokens_out": 10 * calls, "wall_s": wall, "turns": turns,
            "timings": {"observe": 0.4, "model": 0.8, "act": 0.4}, "error": "",
            "report": f"runs/{variant}/{task}-r0/report.html"}


def test_wilson_interval_matches_the_textbook_formula() -> None:
    # Reference values (Wilson 1927; e.g. Newcombe 1998, table I): 0/10 and 5/10 at 95%.
    assert wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


def test_aggregate_counts_rates_means_and_time_per_step() -> None:
    runs = [_record("a", "t1", True, 4), _record("a", "t2", False, 8, tags=("zh",))]
    agg = aggregate(runs)
    assert (agg["n"], agg["successes"], agg["success_rate"]) == (2, 1, 0.5)
    assert agg["mean_model_calls"] == 6.0 and agg["tokens_in_total"] == 12000
    assert agg["time_s"] == {"observe": 0.8, "model": 1.6, "act": 0.8, "other": 0.8}
    assert agg["per_step_s"] == {"observe": 0.1, "model": 0.2, "act": 0.1}
    assert agg["by_tag"]["zh"]["successes"] == 0 and agg["by_tag"]["single-app"]["n"] == 1


def test_two_variants_make_one_table_with_a_column_each() -> None:
    runs = [_record("single", "t1", True, 9), _record("bundles", "t1", True, 4)]
    card = build_scorecard({"command": "x"}, [{"name": "single", "settings": {}},
                                              {"name": "bundles", "settings": {}}], runs)
    table = markdown_table(card)
    assert table.splitlines()[0] == "| metric | single | bundles |"
    calls = next(line for line in table.splitlines() if line.startswith("| mean model calls"))
    assert calls == "| mean model calls | 9.0 | 4.0 |"
    assert ("| tag single-app | 1/1 = 100% [21%–100%] · 9.0 calls · 9.0k tokens in | "
            "1/1 = 100% [21%–100%] · 4.0 calls · 4.0k tokens in |") in table


def test_the_page_embeds_plot_data_that_cannot_close_its_script() -> None:
    runs = [_record("v", "</script><script>alert(1)</script>", True, 3)]
    card = build_scorecard({}, [{"name": "v", "settings": {}}], runs)
    page = render_html(card)
    start = page.index('id="plot-data">') + len('id="plot-data">')
    embedded = page[start:page.index("</script>", start)]
    assert json.loads(embedded) == plot_data(card)
    assert "<script>alert(1)" not in page


def test_variants_parse_and_reject_unknown_keys_by_name() -> None:
    v = parse_variant("lean:bundling=single,max_steps=12,confirm_done=false")
    assert (v.name, v.bundling, v.max_steps) == ("lean", "single", 12)
    assert dict(v.settings) == {"confirm_done": "never"}  # false reads as never
    with pytest.raises(ConfigError, match="unknown key 'bundle'"):
        parse_variant("x:bundle=single")
    with pytest.raises(ConfigError, match="bundling must be single or multi"):
        parse_variant("x:bundling=many")
    with pytest.raises(ConfigError, match="jpeg_quality"):
        parse_variant("x:jpeg_quality=1000")
    with pytest.raises(ConfigError, match="unknown key 'base_url'"):
        parse_variant("x:base_url=http://elsewhere/v1")
    with pytest.raises(ConfigError, match="repeated: a"):
        parse_variants(["a:bundling=single", "a"])
    assert parse_variants([]) == (Variant("default"),)


def test_task_seeds_are_stable_and_differ_per_task_repeat_and_suite_seed() -> None:
    seeds = {task_seed(s, t, r) for s in (0, 1) for t in ("wifi-off", "note") for r in (0, 1)}
    assert len(seeds) == 8
    assert task_seed(0, "wifi-off", 0) == task_seed(0, "wifi-off", 0)
