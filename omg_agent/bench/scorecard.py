"""The suite's scorecard: aggregates per variant, the markdown table, ``scorecard.json`` and
``scorecard.html``.

Input is the runner's records (:func:`omg_agent.bench.suite_run.run_record`, one dict per
run). :func:`build_scorecard` adds the aggregates — success rate with a Wilson 95% interval,
mean steps, model calls, tokens and wall time, the observe / model / act time per step, and
success per tag — one entry per variant, so two configurations sit side by side.
``scorecard.json`` is that dict; ``scorecard.html`` (``scorecard_template.html``) embeds
the plot data derived from it as ``<script type="application/json" id="plot-data">`` and
draws the plots as inline SVG with its own small script: no library, no network. Each drawn
mark carries its value in ``data-*`` attributes (tests read them back).
"""

from __future__ import annotations

import json
import logging
import math
import re
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any

from omg_agent.core.secrets import mask_task

log = logging.getLogger(__name__)

Z95 = 1.959963984540054
SCORECARD_JSON = "scorecard.json"
SCORECARD_HTML = "scorecard.html"
TIME_PARTS = ("observe", "model", "act")
FORMAT_VERSION = 1
_MARKER = re.compile(r"__(?:FACTS|METRICS|RUNS|PLOT_DATA)__")


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a success rate (0..1); ``(0, 1)`` when ``n`` is 0."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def _rate(runs: list[dict[str, Any]]) -> dict[str, Any]:
    n, ok = len(runs), sum(1 for r in runs if r["success"])
    lo, hi = wilson(ok, n)
    return {"n": n, "successes": ok, "success_rate": round(ok / n, 4) if n else 0.0,
            "ci_low": round(lo, 4), "ci_high": round(hi, 4)}


def _mean(values: list[float]) -> float:
    return round(sum(values) / len(values), 4) if values else 0.0


def aggregate(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One variant's numbers over its runs."""
    agg = _rate(runs)
    for key in ("steps", "model_calls", "tokens_in", "tokens_out", "wall_s"):
        agg[f"mean_{key}"] = _mean([r[key] for r in runs])
    planner = [r.get("planner_calls", 0) for r in runs]
    agg["mean_planner_calls"] = _mean(planner)
    agg["mean_operator_calls"] = _mean([r["model_calls"] - p for r, p in zip(runs, planner,
                                                                             strict=True)])
    operator_turns = sum(r["model_calls"] for r in runs) - sum(planner)
    agg["wait_turns"] = sum(r.get("wait_turns", 0) for r in runs)
    agg["wait_share"] = round(agg["wait_turns"] / operator_turns, 4) if operator_turns else 0.0
    agg["tokens_in_total"] = sum(r["tokens_in"] for r in runs)
    agg["tokens_out_total"] = sum(r["tokens_out"] for r in runs)
    agg["wall_s_total"] = round(sum(r["wall_s"] for r in runs), 4)
    time_s = {p: round(sum(r["timings"].get(p, 0.0) for r in runs), 4) for p in TIME_PARTS}
    time_s["other"] = round(max(0.0, agg["wall_s_total"] - sum(time_s.values())), 4)
    turns = sum(r["turns"] for r in runs)
    agg["time_s"] = time_s
    agg["turns"] = turns
    agg["per_step_s"] = {p: round(time_s[p] / turns, 4) if turns else 0.0 for p in TIME_PARTS}
    agg["errors"] = sum(1 for r in runs if r.get("error"))
    tags = sorted({t for r in runs for t in r["tags"]})
    agg["by_tag"] = {t: _by_tag([r for r in runs if t in r["tags"]]) for t in tags}
    return agg


def _by_tag(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """A category's success rate, with what its tasks cost: mean calls and input tokens."""
    return {**_rate(runs), "mean_model_calls": _mean([r["model_calls"] for r in runs]),
            "mean_tokens_in": _mean([r["tokens_in"] for r in runs])}


def build_scorecard(meta: dict[str, Any], variants: list[dict[str, Any]],
                    records: list[dict[str, Any]]) -> dict[str, Any]:
    """The whole scorecard (what ``scorecard.json`` holds). ``variants``: ``{name, settings}``
    in column order; ``meta``: the command, model, noise, seed, … as given."""
    names = [v["name"] for v in variants]
    aggregates = {n: aggregate([r for r in records if r["variant"] == n]) for n in names}
    tags = sorted({t for r in records for t in r["tags"]})
    return {"version": FORMAT_VERSION, **meta, "variants": variants, "tags": tags,
            "aggregates": aggregates, "runs": records}


# -- the table -------------------------------------------------------------------------------
def _pct(rate: dict[str, Any]) -> str:
    return (f"{rate['successes']}/{rate['n']} = {rate['success_rate']:.0%} "
            f"[{rate['ci_low']:.0%}–{rate['ci_high']:.0%}]")


def table_rows(card: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """(metric, one cell per variant) rows — the markdown table and the HTML table share
    them."""
    aggs = [card["aggregates"][v["name"]] for v in card["variants"]]

    def row(label: str, cell: Any) -> tuple[str, list[str]]:
        return label, [cell(a) for a in aggs]

    rows = [
        row("success (95% CI)", _pct),
        row("mean steps", lambda a: f"{a['mean_steps']:.1f}"),
        row("mean model calls", lambda a: f"{a['mean_model_calls']:.1f}"),
        row("mean planner / operator calls", lambda a: f"{a.get('mean_planner_calls', 0):.1f}"
            f" / {a.get('mean_operator_calls', a['mean_model_calls']):.1f}"),
        row("wait-only operator turns", lambda a: f"{a.get('wait_turns', 0)} = "
            f"{a.get('wait_share', 0.0):.1%}"),
        row("mean tokens in / out",
            lambda a: f"{a['mean_tokens_in']:,.0f} / {a['mean_tokens_out']:,.0f}"),
        row("mean wall time", lambda a: f"{a['mean_wall_s']:.2f} s"),
        row("per step: observe / model / act", lambda a: " / ".join(
            f"{a['per_step_s'][p]:.3f}" for p in TIME_PARTS) + " s"),
    ]
    if any(a["errors"] for a in aggs):
        rows.append(row("runs that crashed", lambda a: str(a["errors"])))
    for tag in card["tags"]:
        rows.append((f"tag {tag}", [_tag_cell(a["by_tag"][tag]) if tag in a["by_tag"]
                                    else "–" for a in aggs]))
    return rows


def _tag_cell(rate: dict[str, Any]) -> str:
    """A category's success, then its mean calls and input tokens (a scorecard written
    before they were kept shows the success alone)."""
    if "mean_model_calls" not in rate:
        return _pct(rate)
    return (f"{_pct(rate)} · {rate['mean_model_calls']:.1f} calls · "
            f"{rate['mean_tokens_in'] / 1000:.1f}k tokens in")


def markdown_table(card: dict[str, Any]) -> str:
    names = [v["name"] for v in card["variants"]]
    lines = ["| metric | " + " | ".join(names) + " |",
             "|---|" + "---:|" * len(names)]
    lines += [f"| {label} | " + " | ".join(cells) + " |" for label, cells in table_rows(card)]
    return "\n".join(lines)


def per_task_table(card: dict[str, Any]) -> str:
    """One row per task and repeat, one group of cells per variant: success read from the
    phone, model calls by role (planner + operator), tokens in / out, wall time."""
    names = [v["name"] for v in card["variants"]]
    runs = {(r["variant"], r["task_id"], r["repeat"]): r for r in card["runs"]}
    keys = sorted({(r["task_id"], r["repeat"]) for r in card["runs"]})
    lines = ["| task | " + " | ".join(f"{n}: ok | calls (planner+operator) | tokens in / out "
                                      f"| wall" for n in names) + " |",
             "|---|" + ":-:|---:|---:|---:|" * len(names)]
    for task_id, repeat in keys:
        cells = []
        for name in names:
            r = runs.get((name, task_id, repeat))
            if r is None:
                cells.append("– | – | – | –")
                continue
            planner = r.get("planner_calls", 0)
            mark = "✔" if r["success"] else "✘"
            cells.append(f"{mark} {r['status']} | {r['model_calls']} ({planner}+"
                         f"{r['model_calls'] - planner}) | {r['tokens_in']:,} / "
                         f"{r['tokens_out']:,} | {r['wall_s']:.1f} s")
        label = task_id + (f" r{repeat}" if len({k[1] for k in keys}) > 1 else "")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# -- the page --------------------------------------------------------------------------------
def plot_data(card: dict[str, Any]) -> dict[str, Any]:
    """What the page's plots draw, derived from the scorecard (tests compare the drawn
    marks with ``scorecard.json``)."""
    names = [v["name"] for v in card["variants"]]
    aggs = card["aggregates"]
    bars = []
    for tag in ["all", *card["tags"]]:
        for n in names:
            rate = aggs[n] if tag == "all" else aggs[n]["by_tag"].get(tag)
            if rate is not None:
                bars.append({"tag": tag, "variant": n, "rate": rate["success_rate"],
                             "lo": rate["ci_low"], "hi": rate["ci_high"], "n": rate["n"]})
    points = [{"variant": r["variant"], "task": r["task_id"], "repeat": r["repeat"],
               "calls": r["model_calls"], "success": r["success"]} for r in card["runs"]]
    times = [{"variant": n, **aggs[n]["per_step_s"]} for n in names]
    return {"variants": names, "tags": ["all", *card["tags"]], "parts": list(TIME_PARTS),
            "success_by_tag": bars, "calls_per_task": points, "time_per_step": times}


def _json_script(data: Any) -> str:
    # "<" escaped so no text in the data can close the script element.
    return json.dumps(data, ensure_ascii=False).replace("<", "\\u003c")


def _facts(card: dict[str, Any]) -> str:
    facts = [("Command", card.get("command", "")), ("Model", card.get("model", "")),
             ("Noise", card.get("noise", "")), ("Seed", card.get("seed", "")),
             ("Repeat", card.get("repeat", "")), ("Parallel", card.get("parallel", "")),
             ("Wall time", f"{card.get('wall_s', 0):.1f} s"), ("Started", card.get("started"))]
    return "".join(f"<dt>{escape(k)}</dt><dd>{escape(str(v))}</dd>" for k, v in facts)


def _metrics_table(card: dict[str, Any]) -> str:
    head = "".join(f"<th>{escape(v['name'])}<br><small>{escape(_settings_text(v))}</small>"
                   "</th>" for v in card["variants"])
    body = "".join(f"<tr><th>{escape(label)}</th>"
                   + "".join(f"<td>{escape(c)}</td>" for c in cells) + "</tr>"
                   for label, cells in table_rows(card))
    return (f'<table class="metrics"><thead><tr><th>metric</th>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table>")


def _settings_text(variant: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in variant.get("settings", {}).items())


def _runs_table(card: dict[str, Any]) -> str:
    names = [v["name"] for v in card["variants"]]
    cells: dict[tuple[str, int], dict[str, dict[str, Any]]] = {}
    goals: dict[tuple[str, int], dict[str, Any]] = {}
    for r in card["runs"]:
        key = (r["task_id"], r["repeat"])
        cells.setdefault(key, {})[r["variant"]] = r
        goals.setdefault(key, r)
    head = "".join(f"<th>{escape(n)}</th>" for n in names)
    rows = []
    for key, by_variant in cells.items():
        first = goals[key]
        tds = "".join(_run_cell(by_variant.get(n)) for n in names)
        rows.append(f"<tr><th><code>{escape(key[0])}</code> r{key[1]}<br>"
                    f"<small>{escape(mask_task(first['goal']))}</small><br>"
                    f"<small class=tags>{escape(' '.join(first['tags']))}</small></th>"
                    f"{tds}</tr>")
    return (f'<table class="runs"><thead><tr><th>task</th>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>")


def _run_cell(r: dict[str, Any] | None) -> str:
    if r is None:
        return "<td>–</td>"
    mark = ('<span class="ok">✔</span>' if r["success"]
            else '<span class="bad">✘</span>')
    link = (f' · <a class="report" href="{escape(r["report"])}">trace</a>'
            if r.get("report") else "")
    err = f'<br><small class="bad">{escape(r["error"])}</small>' if r.get("error") else ""
    return (f"<td>{mark} {escape(r['status'])}<br><small>{r['model_calls']} calls · "
            f"{r['steps']} steps · {r['wall_s']:.1f} s{link}</small>{err}</td>")


def render_html(card: dict[str, Any]) -> str:
    template = resources.files("omg_agent.bench").joinpath("scorecard_template.html")
    page = template.read_text(encoding="utf-8")
    parts = {"__FACTS__": _facts(card), "__METRICS__": _metrics_table(card),
             "__RUNS__": _runs_table(card), "__PLOT_DATA__": _json_script(plot_data(card))}
    # One pass: text put into the page is never searched for markers again.
    return _MARKER.sub(lambda m: parts[m.group(0)], page)


def write_scorecard(card: dict[str, Any], out: Path) -> tuple[Path, Path]:
    """Write ``scorecard.json`` and ``scorecard.html`` into ``out``; returns both paths."""
    out.mkdir(parents=True, exist_ok=True)
    json_path, html_path = out / SCORECARD_JSON, out / SCORECARD_HTML
    json_path.write_text(json.dumps(card, ensure_ascii=False, indent=1, default=str) + "\n",
                         encoding="utf-8")
    html_path.write_text(render_html(card), encoding="utf-8")
    log.info("scorecard written to %s and %s", json_path, html_path)
    return json_path, html_path
