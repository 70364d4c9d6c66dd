"""The replay cache: ``omg-agent run`` replays a task it completed before, with no model.

After a run ends ``done`` its trace becomes a flow (:mod:`.fromtrace`) filed under the
task's key: the task text normalised — Unicode NFKC, case folded, punctuation and filler
words ("please", "the", …) dropped, spacing collapsed, so "Like the first 3 posts in Feed."
and "please like first 3 posts in feed" are one task — plus its parameters (the secrets it
names), and stored with the versions of the apps it touches. The next run of the same task
on the same app versions replays that flow: every step re-anchored and checked, the end
checks read from the phone; no model call when all pass. A run whose last screen gives no
end check is not filed at all: a replay of it could not show the task finished. Where a
step or check fails, the agent takes over from that very screen with the values the flow
saved (the model is called only from there on); its run, if it ends done, replaces the
entry (repaired), otherwise the entry is retired — never left to fail the same way again.
The replay runs through the run's own gate, so a step that pays, sends or deletes asks the
human (or is held) exactly as a live action would — the cache never carries consent: what
the first run was allowed is not allowed again by being cached. A no ends the run
``declined`` with no model call. A replay that already paid, sent or deleted and then
failed is not handed over: the run
ends ``failed`` ("paid once: check the phone") and the entry is retired, so nothing can
pay twice. A run that paid is filed only with end checks that prove it worked
(:mod:`.proof`); a run that is not filed says why in its trace (``cache_not_saved``).

:func:`run_cached` is the one hook the run path calls instead of ``Orchestrator.run``.
"""

from __future__ import annotations

import logging
import re
import time
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

from omg_agent.brain.honest import UNPROVEN_HINT
from omg_agent.brain.ports import RunPorts
from omg_agent.brain.run_state import RunResult
from omg_agent.core.actions import VAR_PATTERN
from omg_agent.core.results import Status
from omg_agent.drivers.wrapper import shell_of
from omg_agent.durable import aside
from omg_agent.errors import OmgError
from omg_agent.flows.fromtrace import flow_from_trace, saved_values
from omg_agent.flows.model import AssertVisible, Flow, FlowResult, LaunchApp, Selector, walk
from omg_agent.flows.replay import FlowRunner
from omg_agent.flows.select import find
from omg_agent.flows.store import Entry, FlowStore, slug
from omg_agent.guards.ledger import missing_passage

log = logging.getLogger(__name__)

CACHE_DIR = "flow-cache"  # under the runs folder
_FILLER = frozenset({"please", "kindly", "the", "a", "an", "then", "and", "it", "my", "me",
                     "for", "you", "can", "could", "would"})
_CJK_FILLER = re.compile(r"^(?:请|帮我|麻烦|给我)+|(?:一下|吧)+$")  # no spaces to split on
_SECRET = re.compile(r"\{\{secret:([A-Za-z0-9_.-]+)(?:=[^}]*)?\}\}")
_VERSION = re.compile(r"versionName=(\S+)")


def task_key(task: str) -> str:
    """The normalised task plus its parameters (see the module docstring)."""
    names = sorted(set(_SECRET.findall(task)))
    text = unicodedata.normalize("NFKC", _SECRET.sub(" ", task)).casefold()
    words = [w for w in re.split(r"[^\w¥$€£.%]+|(?<!\d)\.|\.(?!\d)", text) if w]
    core = " ".join(w for w in (_CJK_FILLER.sub("", w) for w in words)
                    if w and w not in _FILLER)
    return core + ("|" + ",".join(names) if names else "")


class ReplayCache:
    def __init__(self, root: Path) -> None:
        self.store = FlowStore(root)

    def key(self, task: str) -> str:
        return slug(task_key(task))

    def lookup(self, task: str, driver: Any) -> Entry | None:
        entry = self.store.get(self.key(task))
        if entry is None or entry.meta.get("task_key") != task_key(task):
            return None
        if not end_checks(entry.flow):  # filed before the rule: a replay could not say done
            self.retire(entry, "the flow has no end check")
            return None
        now = app_versions(driver, entry.meta.get("apps", {}))
        if now != entry.meta.get("apps", {}):
            log.info("replay cache: %s recorded on apps %s, the phone has %s: not used",
                     entry.key, entry.meta.get("apps"), now)
            return None
        return entry

    def remember(self, task: str, run_dir: Path, driver: Any, answer: str = "",
                 recorder: Any = None) -> Entry | None:
        """File the flow of the finished run in ``run_dir`` under ``task``; when it cannot
        be filed the reason is logged and, with ``recorder``, written to the run's trace."""
        try:
            flow = flow_from_trace(run_dir, name=task_key(task))
        except OmgError as exc:
            _not_saved(run_dir, str(exc), recorder)
            return None
        if not end_checks(flow):
            _not_saved(run_dir, "its last screen gave no end check, so a replay could not "
                       "show the phone finished the task", recorder)
            return None
        apps = app_versions(driver, {p: "" for p in packages(flow)})
        entry = self.store.put(self.key(task), flow, task_key=task_key(task), apps=apps,
                               answer=answer_template(answer, saved_values(run_dir)),
                               source_run=str(run_dir))
        log.info("replay cache: %s saved as %s v%d", task_key(task), entry.key, entry.version)
        return entry

    def hit(self, entry: Entry) -> None:
        self.store.update(entry.key, hits=int(entry.meta.get("hits", 0)) + 1,
                          last_hit=time.time())

    def retire(self, entry: Entry, reason: str) -> None:
        self.store.retire(entry.key, reason)


def _not_saved(run_dir: Path, why: str, recorder: Any) -> None:
    log.info("replay cache: %s not cached: %s", run_dir, why)
    if recorder is not None:
        recorder.record_event("cache_not_saved", reason=why)


def end_checks(flow: Flow) -> int:
    """How many checks at the end of ``flow`` read the finished state from the phone
    (trailing ``assertVisible``). A flow without one is never replayed as ``done``."""
    count = 0
    for command in reversed(flow.commands):
        if command.name != "assertVisible":
            break
        count += 1
    return count


def held_already(flow: Flow, obs: Any) -> bool:
    """Whether every end check of ``flow`` already holds on ``obs`` (before it replays): a
    replay could then show nothing it did. A check naming a saved ``$value`` is not read."""
    checks = flow.commands[len(flow.commands) - end_checks(flow):]
    return bool(checks) and all(
        isinstance(c, AssertVisible) and not _names_value(c.selector)
        and find(c.selector, obs) is not None for c in checks)


def _names_value(s: Selector | None) -> bool:
    return s is not None and (any(VAR_PATTERN.search(t or "") for t in (s.text, s.id, s.desc))
                              or any(_names_value(r) for r in (s.below, s.above, s.child_of)))


def packages(flow: Flow) -> list[str]:
    apps = [flow.app_id] if flow.app_id else []
    apps += [c.app for c in walk(flow.commands) if isinstance(c, LaunchApp) and c.app]
    return list(dict.fromkeys(apps))


def app_versions(driver: Any, apps: dict[str, str]) -> dict[str, str]:
    """``versionName`` of each package in ``apps`` on the phone ("" where the driver cannot
    tell: then only the package names are compared)."""
    shell = shell_of(driver)
    if shell is None:
        return {p: "" for p in apps}
    run = shell.run
    out: dict[str, str] = {}
    for package in apps:
        try:
            text = run(f"dumpsys package {package}").decode("utf-8", "replace")
        except OmgError:
            text = ""
        m = _VERSION.search(text)
        out[package] = m.group(1) if m else ""
    return out


def answer_template(answer: str, saved: dict[str, str]) -> str:
    """The run's answer with each value it saved written as ``$name`` (longest first)."""
    for key, value in sorted(saved.items(), key=lambda kv: -len(kv[1])):
        if value:
            answer = answer.replace(value, f"${key}")
    return answer


# -- the hook ------------------------------------------------------------------------------
def run_cached(run: Callable[[str, Path | None], RunResult], ports: RunPorts, task: str,
               plan: Path | None = None, *, runs_dir: Path, enabled: bool = True) -> RunResult:
    """``run(task, plan)`` (the agent), through the replay cache in ``runs_dir`` (see module
    docstring), replaying on ``ports``: the run's driver, gate, trace and memory. Off with
    ``enabled=False`` (``--no-cache``), with a predefined plan, or without a trace recorder
    (the flow is made from the trace)."""
    recorder = ports.recorder
    if not enabled or plan is not None or recorder is None:
        return run(task, plan)
    cache = ReplayCache(Path(runs_dir) / CACHE_DIR)
    driver = ports.driver
    secrets = ports.secrets
    keep = getattr(recorder, "refused", None)  # its disk trouble is the run's (aside)
    shown = secrets.mask(task) if secrets is not None else task  # never a secret on disk
    entry = cache.lookup(shown, driver)
    if entry is not None and held_already(entry.flow, driver.observe()):
        # honest done, as for a live run: end checks that hold before the replay acts prove
        # nothing (a stale entry, or one a folder shipped in ./runs) — the agent runs live
        recorder.record_event("cache_not_used", entry=entry.key,
                              reason="its end checks held before it acted")
        entry = None
    if entry is None:
        result: RunResult = run(task, plan)
        if result.status == "done":
            aside(keep, cache.remember, shown, recorder.run_dir, driver, result.answer,
                  recorder)
        return result
    t0 = time.perf_counter()
    recorder.record_event("cache_hit", entry=entry.key, version=entry.version)
    replay = FlowRunner(driver, recorder=recorder, gate=ports.gate).run(entry.flow)
    if replay.ok:
        aside(keep, cache.hit, entry)
        # honest done, as for a live run: a pay/send/delete task needs that action let
        # through by the gate in this replay (the cache never carries the earlier yes)
        missing = missing_passage(task, ports.gate.passed.entries if ports.gate else [])
        return _replayed(recorder, entry, replay, time.perf_counter() - t0, missing)
    recorder.record_event("cache_checkpoint_failed", entry=entry.key, failed=replay.failed)
    if replay.refused and not replay.once:  # the user said no: the model is not sent to ask
        return _declined(recorder, entry, replay, time.perf_counter() - t0)
    if replay.once:  # it paid (sent, deleted): handing over could do it again
        retired = aside(keep, cache.retire, entry, f"replay failed after a step that cannot "
                                                   f"be undone: {replay.failed}")
        return _stopped_once(recorder, entry, replay, time.perf_counter() - t0, retired)
    memory = ports.memory
    for key, value in replay.variables.items():  # the agent goes on with what was saved
        aside(keep, lambda k, v: memory.save(k, v, source="screen"), key, value)
    result = run(task, None)
    if result.status == "done":  # repaired: the new run's flow replaces the failed one
        aside(keep, _repaired, cache, entry, shown, recorder, driver, result)
    else:
        aside(keep, cache.retire, entry, f"replay failed ({replay.failed}) and the agent "
                                         f"ended {result.status}")
    return result


def _repaired(cache: ReplayCache, entry: Entry, shown: str, recorder: Any, driver: Any,
              result: RunResult) -> None:
    """File the flow of the run that took over from a failed replay, as a repair."""
    repaired = cache.remember(shown, recorder.run_dir, driver, result.answer, recorder)
    if repaired is not None:
        cache.store.update(repaired.key, repairs=int(entry.meta.get("repairs", 0)) + 1)


def _replayed(recorder: Any, entry: Entry, replay: FlowResult, wall: float,
              missing: str | None = None) -> RunResult:
    """The replay's ending: ``done`` — or ``unverified`` when the task asks to pay, send or
    delete and no such action went through the gate in it (``missing`` says why)."""
    answer = VAR_PATTERN.sub(lambda m: replay.variables.get(m.group(1) or m.group(2),
                                                             m.group(0)),
                             str(entry.meta.get("answer", "")))
    done = [f"replayed {replay.commands} steps of the flow cached from an earlier run"]
    status: Status = "done"
    why, hint = "every step and end check of the cached flow passed on the phone", ""
    if missing is not None:
        status, why = "unverified", f"the cached flow's checks passed, but {missing}"
        hint = UNPROVEN_HINT
    result = RunResult(status=status, answer=answer, steps_used=replay.commands,
                       model_calls=0, tokens_in=0, tokens_out=0, wall_s=round(wall, 4),
                       done=done, stopped_because=why, next_hint=hint)
    recorder.finish(status, answer, {"model_calls": 0, "prompt_tokens": 0,
                                     "completion_tokens": 0, "steps_used": replay.commands,
                                     "replay_cache": entry.key, "stop_report":
                                         result.summary()})
    return result


def _declined(recorder: Any, entry: Entry, replay: FlowResult, wall: float) -> RunResult:
    """The gate asked about a step of the replay (exactly as it asks a live run: the cache
    never carries consent) and the user said no: the run ends declined, no model called."""
    result = RunResult(status="declined", answer="", steps_used=replay.commands,
                       model_calls=0, tokens_in=0, tokens_out=0, wall_s=round(wall, 4),
                       done=[f"replayed {replay.commands} steps of the flow cached from an "
                             "earlier run"], stopped_because=replay.refused, next_hint="")
    recorder.finish("declined", "", {"model_calls": 0, "prompt_tokens": 0,
                                     "completion_tokens": 0, "steps_used": replay.commands,
                                     "replay_cache": entry.key,
                                     "stop_report": result.summary()})
    return result


def _stopped_once(recorder: Any, entry: Entry, replay: FlowResult, wall: float,
                  retired: bool = True) -> RunResult:
    """The replay did something that cannot be undone, then a step or check failed: the
    run ends here, failed, and the model is never asked to do it again. An entry the disk
    would not let us retire is named: a later run of the task would replay it."""
    done = [f"replayed {replay.commands} steps of the flow cached from an earlier run; "
            f"it {replay.once}"]
    result = RunResult(status="failed", answer="", steps_used=replay.commands,
                       model_calls=0, tokens_in=0, tokens_out=0, wall_s=round(wall, 4),
                       done=done, stopped_because=replay.failed,
                       next_hint="look at the phone (orders, sent messages, deleted items) "
                                 "before you run this task again: it is not retried, so "
                                 "nothing is done twice" + ("" if retired else
                                 "; the disk refused to retire its cached flow, so run it "
                                 "again only with --no-cache"))
    recorder.record_event("cache_stopped_once", entry=entry.key, once=replay.once,
                          failed=replay.failed)
    recorder.finish("failed", "", {"model_calls": 0, "prompt_tokens": 0,
                                   "completion_tokens": 0, "steps_used": replay.commands,
                                   "replay_cache": entry.key,
                                   "stop_report": result.summary()})
    return result
