"""Benchmark of the model dialects (issue 18): per dialect, the scripted double's tasks on a
vphone — success (read from the phone), operator calls, prompt tokens per call.

Prompt tokens are estimated the same way for every format: text characters / 4, plus one
token per 28x28 image patch (how Qwen2.5-VL-family models, UI-TARS and GLM-4.1V count
images), so the table compares what each format costs to send. ``json`` is our own format
(the expert double, planning flat: one action per call, like the dialects).

    PYTHONPATH=. python scripts/bench_dialects.py
"""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass, field
from typing import Any

from omg_agent.sim.dialect_doubles import (
    JUDGE_MODEL,
    DialectRun,
    Sent,
    prompt_tokens,
    request_chars,
    request_images,
    run_in_dialect,
)
from omg_agent.sim.expert.policy import ExpertPolicy, NoiseProfile
from omg_agent.sim.expert.runner import run_task
from omg_agent.sim.expert.tasks import ShopPriceToNotes, Switch, Task
from omg_agent.sim.model_double import Policy, Reply

JSON_MODEL = "json-operator"


@dataclass
class _Recording:
    """The expert for the operator model, recorded like the dialect doubles record."""

    expert: ExpertPolicy
    sent: list[Sent] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reply(self, request: dict[str, Any]) -> Reply:
        answer = self.expert.reply(request)
        if request.get("model") == JSON_MODEL:
            with self.lock:
                self.sent.append(Sent(request_chars(request), request_images(request), str(answer)))
        return answer


def run_json(task: Task) -> DialectRun:
    made: list[_Recording] = []

    def factory(task: Task, phone: Any, noise: NoiseProfile, seed: int) -> Policy:
        made.append(_Recording(ExpertPolicy(task, phone, noise, seed=seed)))
        return made[-1]

    run = run_task(task, NoiseProfile.named("none", bundling="single"), policy=factory,
                   overrides={"operator_model": JSON_MODEL, "planner_model": JUDGE_MODEL,
                              "planning": "flat", "dialect": "json"})
    sent = made[0].sent
    return DialectRun("json", task.goal, run.success, run.status, len(sent),
                      [prompt_tokens(s) for s in sent], [len(s.reply) for s in sent],
                      [i for s in sent for i in s.images], run.planner_calls, run.error)


def main() -> int:
    tasks: list[Task] = [Switch(attr="wifi", on=False), ShopPriceToNotes()]
    rows = []
    for dialect in ("json", "autoglm", "uitars", "qwen-mobile"):
        for task in tasks:
            run = run_json(task) if dialect == "json" else run_in_dialect(task, dialect)
            image = run.images[-1] if run.images else (0, 0)
            rows.append((dialect, task.goal[:34], "yes" if run.success else "NO", run.calls,
                         run.tokens_per_call, f"{image[0]}x{image[1]}",
                         round(sum(run.completion_chars) / max(1, run.calls) / 4)))
    head = ("dialect", "task", "success", "calls", "prompt tok/call", "image",
            "reply tok/call")
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    for row in [head, tuple("-" * w for w in widths), *rows]:
        print(" | ".join(str(v).ljust(w) for v, w in zip(row, widths, strict=True)))
    return 0 if all(r[2] == "yes" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
