"""Input tokens per request of relay rounds, counted the same way for any agent (issue 27).

The relay (../shared/tools/relay_model.py) stores every request an agent sent as
DIR/req_NNN/request.json, with each image saved beside it and its path in place of the bytes.
This script counts what a provider would bill as input for each request, whichever agent
(OMG-Agent, mobilerun, Midscene) wrote it:

- text: every message's text with a real BPE tokenizer, o200k_base (GPT-4o's), from the
  `bpe-openai` package, whose wheel ships the encodings (tiktoken's must be downloaded, which
  this machine cannot); without it, characters ÷ 4 — the header says which was used. Each
  message adds 3 tokens and the reply's priming 3 more (OpenAI's chat counting).
- images: OpenAI's high-detail formula (a request with no `detail` is billed as high for
  screen-sized images): fit in 2048×2048, then shortest side to 768, then 85 + 170 per
  512-px tile; `detail: low` is 85.
- the schema: `response_format` (and `tools` / `functions`, if sent) as compact JSON with the
  same tokenizer — billed as prompt by providers that put it into the prompt, free with
  guided decoding, so shown in its own column and totalled both ways.
- req÷4: the request JSON's characters ÷ 4, images excluded (the measure of earlier rounds).

  python scripts/peers/relay_tokens.py DIR[:A-B][=LABEL] ... [--scorecard FILE ...] [--json]

A request's task is LABEL when given, else its goal ("Task: …" in OMG's prompt, "**Current
Request:**" in mobilerun's), named by its task id when a scorecard (bench suite's
scorecard.json) lists that goal; a request with no goal (mobilerun's app-picker call) belongs
to the task of the request before it in the same folder (one run at a time per relay).
Run it with a Python that has `bpe-openai`, e.g. a venv under /tmp:
`python -m venv /tmp/tok && /tmp/tok/bin/pip install bpe-openai`.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import struct
import sys
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

PER_MESSAGE = 3  # OpenAI: every message costs 3 tokens beyond its content
PRIMING = 3  # and the reply is primed with 3 more
GOAL_PATTERNS = (re.compile(r"^Task: (.+)$", re.M),  # OMG-Agent's operator and planner
                 re.compile(r"\*\*Current Request:\*\*\s*\n(.+)"))  # mobilerun
SCHEMA_KEYS = ("response_format", "tools", "functions")


def text_counter() -> tuple[Callable[[str], int], str]:
    """The tokenizer used for text, and its name for the header."""
    try:
        import bpe_openai  # type: ignore[import-not-found]
    except ImportError:
        return (lambda s: (len(s) + 3) // 4), "characters ÷ 4 (no offline tokenizer found)"
    enc = bpe_openai.get_encoding("o200k_base")
    return (lambda s: len(enc.encode(s))), f"o200k_base (bpe-openai {bpe_openai.__version__})"


def image_size(path: Path) -> tuple[int, int]:
    """Width and height of a PNG or JPEG, read from its header (no imaging library needed)."""
    data = path.read_bytes()
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        w, h = struct.unpack(">II", data[16:24])
        return int(w), int(h)
    i = 2
    while i + 9 < len(data):  # JPEG: walk the markers to the first start-of-frame
        marker, length = data[i + 1], struct.unpack(">H", data[i + 2:i + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            h, w = struct.unpack(">HH", data[i + 5:i + 9])
            return int(w), int(h)
        i += 2 + length
    raise ValueError(f"{path}: not a PNG or JPEG image")


def image_tokens(width: int, height: int, detail: str = "high") -> int:
    """OpenAI's vision cost: 85 for low detail; high: fit 2048², shortest side 768, 512 tiles."""
    if detail == "low":
        return 85
    scale = min(1.0, 2048 / max(width, height))
    w, h = width * scale, height * scale
    scale = min(1.0, 768 / min(w, h))
    w, h = w * scale, h * scale
    return 85 + 170 * math.ceil(w / 512) * math.ceil(h / 512)


@dataclass
class Request:
    folder: str
    task: str
    messages: int
    text: int
    images: int
    image_tokens: int
    schema: int
    req_chars4: int

    @property
    def total(self) -> int:
        return self.text + self.image_tokens + self.schema


def goal_of(req: dict[str, Any]) -> str:
    for m in req.get("messages", []):
        if m.get("role") != "user":
            continue
        for text in texts(m.get("content")):
            for pattern in GOAL_PATTERNS:
                if found := pattern.search(text):
                    return found.group(1).strip()
    return "?"


def texts(content: Any) -> Iterable[str]:
    if isinstance(content, str):
        yield content
    for part in content if isinstance(content, list) else []:
        if part.get("type") == "text":
            yield part.get("text", "")


def count_request(folder: Path, count: Callable[[str], int], task: str | None) -> Request:
    req = json.loads((folder / "request.json").read_text(encoding="utf-8"))
    text = PRIMING
    n_img = img_tok = 0
    for m in req.get("messages", []):
        text += PER_MESSAGE + sum(count(t) for t in texts(m.get("content")))
        for part in m.get("content") if isinstance(m.get("content"), list) else []:
            if part.get("type") == "image_url":
                url, detail = part["image_url"]["url"], part["image_url"].get("detail", "high")
                n_img += 1
                img_tok += image_tokens(*image_size(Path(url)), detail)
    schema = sum(count(json.dumps(req[k], ensure_ascii=False, separators=(",", ":")))
                 for k in SCHEMA_KEYS if req.get(k))
    return Request(folder.name, task or goal_of(req), len(req.get("messages", [])), text,
                   n_img, img_tok, schema, len(json.dumps(req)) // 4)


def folders(spec: str) -> tuple[list[Path], str | None]:
    """DIR[:A-B][=LABEL] -> the request folders it names, and its label."""
    spec, _, label = spec.partition("=")
    path, _, span = spec.partition(":")
    reqs = sorted(p for p in Path(path).glob("req_*") if (p / "request.json").is_file())
    if span:
        lo, _, hi = span.partition("-")
        a, b = int(lo), int(hi or lo)
        reqs = [p for p in reqs if a <= int(p.name[4:]) <= b]
    return reqs, label or None


def task_ids(scorecards: list[str]) -> dict[str, str]:
    ids: dict[str, str] = {}
    for f in scorecards:
        for run in json.loads(Path(f).read_text(encoding="utf-8")).get("runs", []):
            ids[run["goal"]] = run["task_id"]
    return ids


def table(rows: list[Request]) -> list[str]:
    by_task: dict[str, list[Request]] = {}
    for r in rows:
        by_task.setdefault(r.task, []).append(r)
    out = ["| task | requests | text | images (n / tokens) | schema | input total | "
           "without schema | req÷4 |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    groups = [*sorted(by_task.items()), ("**total**", rows)]
    for task, rs in groups:
        t, i, s = (sum(r.text for r in rs), sum(r.image_tokens for r in rs),
                   sum(r.schema for r in rs))
        out.append(f"| {task} | {len(rs)} | {t:,} | {sum(r.images for r in rs)} / {i:,} | "
                   f"{s:,} | {t + i + s:,} | {t + i:,} | {sum(r.req_chars4 for r in rs):,} |")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+", help="DIR[:A-B][=LABEL], a relay folder")
    ap.add_argument("--scorecard", action="append", default=[],
                    help="a bench suite scorecard.json naming each goal's task id")
    ap.add_argument("--json", action="store_true", help="one JSON object per request")
    args = ap.parse_args(argv)
    count, method = text_counter()
    ids = task_ids(args.scorecard)
    rows: list[Request] = []
    for spec in args.dirs:
        reqs, label = folders(spec)
        previous = "?"
        for folder in reqs:
            r = count_request(folder, count, label)
            r.task = previous if r.task == "?" else ids.get(r.task, r.task)
            previous = r.task
            rows.append(r)
    if args.json:
        for r in rows:
            print(json.dumps({**asdict(r), "total": r.total}, ensure_ascii=False))
        return 0
    print(f"text: {method}; +{PER_MESSAGE}/message, +{PRIMING}/request. images: OpenAI "
          "high detail (fit 2048², shortest side 768, 85 + 170 per 512-px tile). schema: "
          "response_format/tools as compact JSON, same tokenizer.\n")
    print("\n".join(table(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
