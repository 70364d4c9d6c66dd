"""Run traces: the folder every run leaves behind, written step by step.

A run folder holds ``trace.jsonl`` (one JSON object per line, appended and fsynced as it
happens through :func:`omg_agent.durable.append_line`, so a crash loses nothing already
written; a resumed run first cuts off a line torn by a kill), ``screens/step-NNN.jpg`` plus a
set-of-marks twin ``step-NNN-som.jpg`` per observation, and at the end ``result.json`` and
``answer.txt`` (DESIGN.md §7: a trace is the list of observation summary, actions, result).
The brain's orchestrator writes it through :class:`TraceRecorder`; the HTML report and the
macro detector read it back with :func:`omg_agent.trace.loader.load_trace`.

Secrets never reach the disk: everything written goes through the run's
:class:`~omg_agent.core.secrets.SecretVault` (``secrets``, shared with the model client and
the driver, which adds what is typed into a password field as it is typed; strings given in
``redact`` or to :meth:`TraceRecorder.add_secret` join it), so each held value is written as
its ``{{secret:NAME}}`` placeholder; the text of password elements is written as
``<redacted>``.

Line shapes (``record`` says which)::

    {"record": "task", "task": ..., "started": <epoch s>, "version": 1}
    {"record": "step", "step": 3, "phase": "act", "t": <s since start>, "observation": {...},
     "prompt_tokens": .., "completion_tokens": .., "model_reply": "...", "actions": [...],
     "results": [...], "timings": {"observe": s, "model": s, "act": s}, "note": ""}
     (timings may also be named observe_s / decide_s / act_s; all times are seconds; a
     result of type "screen" or "stop" may carry the "observation" a turn went on with)
    {"record": "event", "kind": "plan", "t": .., "data": {...}}
    {"record": "finish", ...same fields as result.json}

A full disk (or a read-only one, an I/O error, the folder deleted) never raises out of a
write (issue 25): the action log comes first — a step line is written even when its
screenshots could not be, and screenshots (optional) are not tried again — the first such
error is kept in :attr:`TraceRecorder.trouble`, and :meth:`TraceRecorder.check` raises
:class:`~omg_agent.errors.DiskTrouble` at the run's next safe point (the top of a turn).
The recorder keeps its counts and each turn's actions in memory (:attr:`TraceRecorder.turns`),
so the result still says what was done when the disk took nothing.
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from omg_agent.core.observation import Observation
from omg_agent.core.results import STATUSES
from omg_agent.core.secrets import SecretVault
from omg_agent.durable import append_line, disk_trouble, fsync_file, repair_tail, write_atomic
from omg_agent.errors import ConfigError, DiskTrouble
from omg_agent.perception.som import draw_marks
from omg_agent.trace.lines import REDACTED as REDACTED  # re-exported
from omg_agent.trace.lines import SUMMARY_ELEMENTS, element_summary, to_jsonable, turn_of
from omg_agent.trace.rundir import fresh_dir as fresh_dir  # re-exported
from omg_agent.trace.rundir import new_run_dir as new_run_dir
from omg_agent.trace.screens import MAX_SIDE, downscaled, save_jpeg

log = logging.getLogger(__name__)

TRACE_FILE = "trace.jsonl"
RESULT_FILE = "result.json"
ANSWER_FILE = "answer.txt"
SCREENS_DIR = "screens"
FORMAT_VERSION = 1


class TraceRecorder:
    """Writes one run folder. Use as a context manager or call :meth:`finish` yourself.

    ``run_dir`` is created; it must not already hold a trace. All times are seconds.
    """

    def __init__(self, run_dir: Path, *, task: str, redact: Iterable[str] = (),
                 secrets: SecretVault | None = None, resume: bool = False) -> None:
        self.run_dir = Path(run_dir)
        self.trace_path = self.run_dir / TRACE_FILE
        if resume != self.trace_path.exists():
            raise ConfigError(f"{self.trace_path} does not exist: nothing to resume" if resume
                              else f"{self.trace_path} already exists: give each run its "
                                   "own folder")
        (self.run_dir / SCREENS_DIR).mkdir(parents=True, exist_ok=True)
        self.task = task
        self.secrets = secrets if secrets is not None else SecretVault()
        for value in redact:
            self.secrets.add("secret", value)
        self._started = time.time()
        self._t0 = time.monotonic()
        self._step_numbers: set[int] = set()
        self._used_names: set[str] = set()
        self.model_calls = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.finished = False
        self.trouble: OSError | None = None  # the first write the disk refused
        self.saved = True  # False: result.json (or answer.txt) could not be written
        self.turns: list[dict[str, Any]] = []  # each step's actions and results, as written
        self.sync_each = True  # fsync every line; False: the owner calls sync() per turn
        if resume:  # a resumed run goes on in the same trace: numbers and counts continue
            self._continue()
            self._write({"record": "event", "kind": "resume", "t": 0.0, "data": {}})
        else:
            self._write({"record": "task", "task": task, "started": self._started,
                         "version": FORMAT_VERSION})

    def _continue(self) -> None:
        if dropped := repair_tail(self.trace_path):
            log.warning("%s: cut off a torn last record (%d bytes)", self.trace_path, dropped)
        for line in self.trace_path.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue  # not ours to judge here; the loader warns about it
            if not isinstance(record, dict):
                continue
            if record.get("record") == "step":
                self._step_numbers.add(int(record["step"]))
                self.turns.append(turn_of(record))
                self._count_call(int(record.get("prompt_tokens") or 0),
                                 int(record.get("completion_tokens") or 0),
                                 bool(record.get("model_reply")))
            elif record.get("record") == "task":
                self._started = float(record.get("started") or self._started)
        self._used_names = {p.stem.removesuffix("-som")
                            for p in (self.run_dir / SCREENS_DIR).glob("*.jpg")}

    def __enter__(self) -> TraceRecorder:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: object) -> None:
        if not self.finished:
            if isinstance(exc, KeyboardInterrupt):
                self.finish("interrupted", "", {"stop_report": "interrupted (Ctrl-C)"})
                return
            why = f"error: {exc!r}" if exc is not None else "the run ended without a result"
            self.finish("failed", "", {"stop_report": why,
                                       **({"error": repr(exc)} if exc is not None else {})})

    @property
    def last_step(self) -> int:
        """The highest step number in the trace so far (0 before the first step)."""
        return max(self._step_numbers, default=0)

    def check(self) -> None:
        """A safe point: raise :class:`DiskTrouble` once a write has failed for want of disk."""
        if self.trouble is not None:
            raise DiskTrouble(self.trouble)

    def refused(self, exc: OSError) -> None:
        """Keep a disk error (the first one) instead of raising it; anything else raises.
        Stores beside the run (the replay cache, learned steps, macros) hand theirs here too
        (:func:`omg_agent.durable.aside`): one rule for the run's disk."""
        if not disk_trouble(exc, self.run_dir):
            raise exc
        if self.trouble is None:
            log.info("%s: the disk refused a write (%s); the run stops at its next turn",
                     self.run_dir, exc)
            self.trouble = exc

    def add_secret(self, secret: str) -> None:
        """Mask ``secret`` in everything written from now on."""
        self.secrets.add("secret", secret)

    # -- writing ----------------------------------------------------------------------------
    def record_step(self, step: int, *, observation: Observation | None,
                    prompt_tokens: int = 0, completion_tokens: int = 0,
                    model_reply: str = "", actions: Sequence[Any] = (),
                    results: Sequence[Any] = (), timings: Mapping[str, float] | None = None,
                    phase: str = "act", note: str = "", cached_tokens: int = 0,
                    vision: str | None = None) -> dict[str, Any]:
        """Append one step line (saving its screenshots first); returns what was written.

        ``cached_tokens`` (of ``prompt_tokens``, from the provider's prompt cache) is written
        when the endpoint reported some; ``vision`` says why the model was shown the
        screenshot ("" when it saw the element list alone), when the caller decided.

        ``actions`` are action dicts or models; ``results`` dicts or ``ActionOutcome``s whose
        pixel ``point`` (and for a swipe optionally ``end``) the report draws. A result dict
        holding an :class:`Observation` under ``observation`` (the new screen a turn went on
        with) has it saved like the step's own and replaced by the same summary: the results
        after it ran on that screen.
        """
        record: dict[str, Any] = {"record": "step", "step": int(step), "phase": phase,
                                  "t": self._elapsed(), "observation": None}
        if observation is not None:
            record["observation"] = self._save_observation(int(step), observation)
        actions_j = [to_jsonable(a) for a in actions]
        results_j = [to_jsonable(self._with_screen(int(step), r)) for r in results]
        record.update(prompt_tokens=int(prompt_tokens), completion_tokens=int(completion_tokens),
                      model_reply=model_reply, actions=actions_j, results=results_j,
                      timings={k: float(v) for k, v in (timings or {}).items()}, note=note)
        if cached_tokens:
            record["cached_tokens"] = int(cached_tokens)
        if vision is not None:
            record["vision"] = vision
        self._step_numbers.add(int(step))
        self._count_call(prompt_tokens, completion_tokens, bool(model_reply))
        written = self._write(record)
        self.turns.append(turn_of(written))
        return written

    def record_event(self, kind: str, **data: Any) -> dict[str, Any]:
        """Append one event (plan, replan, ask_user, user_answer, memory, post_mortem,
        budget, error, …). ``prompt_tokens``/``completion_tokens`` in ``data`` count as a
        model call (a plan or a replan)."""
        data_j = to_jsonable(data)
        self._count_call(int(data_j.get("prompt_tokens") or 0),
                         int(data_j.get("completion_tokens") or 0), False)
        return self._write({"record": "event", "kind": kind, "t": self._elapsed(),
                            "data": data_j})

    def finish(self, status: str, answer: str, summary: Mapping[str, Any] | str | None = None
               ) -> dict[str, Any]:
        """Write ``result.json`` and ``answer.txt`` (and a finish line). Once per run.

        ``summary`` (a dict, or a text such as the stop report) is kept as given; integer
        ``model_calls``, ``prompt_tokens`` or ``completion_tokens`` in a dict summary replace
        the counts the recorder kept itself.
        """
        if self.finished:
            raise RuntimeError(f"trace {self.run_dir} is already finished")
        if status not in STATUSES:  # the one place every result.json passes: default deny
            raise ValueError(f"status {status!r} is not one of {', '.join(STATUSES)}")
        self.finished = True
        summary_j = to_jsonable(summary if summary is not None else {})
        counts = summary_j if isinstance(summary_j, dict) else {}
        calls = _int_or(counts.get("model_calls"), self.model_calls)
        prompt = _int_or(counts.get("prompt_tokens"), self.prompt_tokens)
        completion = _int_or(counts.get("completion_tokens"), self.completion_tokens)
        result = self.secrets.scrub({
            "status": status, "answer": answer, "task": self.task,
            # "turns": the turns recorded ("steps" is its older name, kept for readers)
            "steps": len(self._step_numbers), "turns": len(self._step_numbers),
            "model_calls": calls,
            "tokens": {"prompt": prompt, "completion": completion,
                       "total": prompt + completion},
            "wall_time_s": round(self._elapsed(), 3), "started": self._started,
            "finished": time.time(), "summary": summary_j})
        try:
            write_atomic(self.run_dir / RESULT_FILE,
                         json.dumps(result, ensure_ascii=False, indent=2) + "\n")
            write_atomic(self.run_dir / ANSWER_FILE, result["answer"] + "\n")
        except OSError as exc:  # the caller still has the result: it reaches stdout
            self.refused(exc)
            self.saved = False
        self._write({"record": "finish", **result})
        if not self.sync_each:
            self.sync()
        return result

    # -- internals --------------------------------------------------------------------------
    def _elapsed(self) -> float:
        return round(time.monotonic() - self._t0, 4)

    def _count_call(self, prompt_tokens: int, completion_tokens: int, replied: bool) -> None:
        if prompt_tokens or completion_tokens or replied:
            self.model_calls += 1
        self.prompt_tokens += int(prompt_tokens)
        self.completion_tokens += int(completion_tokens)

    def _write(self, record: dict[str, Any]) -> dict[str, Any]:
        clean = self.secrets.scrub(record)
        line = json.dumps(clean, ensure_ascii=False, separators=(",", ":"))
        # one write (+ fsync): whole, or torn by a kill and cut off on resume
        try:
            append_line(self.trace_path, line, sync=self.sync_each)
        except OSError as exc:
            self.refused(exc)
        return clean

    def sync(self) -> None:
        """Make every line written so far durable (one fsync for a whole turn's lines)."""
        try:
            fsync_file(self.trace_path)
        except OSError as exc:
            self.refused(exc)

    def _save_observation(self, step: int, obs: Observation) -> dict[str, Any]:
        summary: dict[str, Any] = {
            "package": obs.package, "activity": obs.activity, "screen_hash": obs.screen_hash,
            "size": list(obs.screenshot.size)}
        if self.trouble is None:  # screenshots are optional: none once the disk is in trouble
            summary.update(self._save_screens(step, obs))
        return {
            **summary, "element_count": len(obs.elements),
            "elements": [element_summary(e) for e in obs.elements[:SUMMARY_ELEMENTS]],
            "timings": {k: round(float(v), 4) for k, v in obs.timings.items()},
        }

    def _save_screens(self, step: int, obs: Observation) -> dict[str, Any]:
        """The screenshot and its set-of-marks twin; nothing when the disk refuses them."""
        name = self._screen_name(step)
        image = obs.screenshot.convert("RGB")
        small = downscaled(image, MAX_SIDE)
        try:
            save_jpeg(small, self.run_dir / SCREENS_DIR / f"{name}.jpg")
            save_jpeg(draw_marks(image, obs.elements, max_side=MAX_SIDE),
                       self.run_dir / SCREENS_DIR / f"{name}-som.jpg")
        except OSError as exc:
            self.refused(exc)
            with contextlib.suppress(OSError):  # a screenshot without its twin is no use
                (self.run_dir / SCREENS_DIR / f"{name}.jpg").unlink(missing_ok=True)
            return {}
        return {"image": f"{SCREENS_DIR}/{name}.jpg", "som": f"{SCREENS_DIR}/{name}-som.jpg",
                "image_size": list(small.size)}

    def _with_screen(self, step: int, result: Any) -> Any:
        seen = result.get("observation") if isinstance(result, Mapping) else None
        if not isinstance(seen, Observation):
            return result
        return {**result, "observation": self._save_observation(step, seen)}

    def _screen_name(self, step: int) -> str:
        name, k = f"step-{step:03d}", 1
        while name in self._used_names:  # a step observed twice (act, then verify)
            k += 1
            name = f"step-{step:03d}-{k}"
        self._used_names.add(name)
        return name


def _int_or(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default
