"""Learning from takeovers: what a human did on the mirror, offered the next time as a flow.

While a run waits for the human (an ``ask_user`` question on the page, or a Pause), the
gestures made on the mirror are recorded as anchored flow steps by the flows recorder
(:class:`~omg_agent.flows.record.FlowRecorder`: a tap becomes the element's resource-id /
text / desc, not a coordinate), each on the screen it was made on. When the agent resumes
(the question answered, Continue pressed, or the agent's next look), the steps are filed in
a :class:`LearnedStore` keyed by the app, the :func:`screen_signature` of the screen the
human started on and the run's current step (its intent) — but only when they got the human
past that screen, and with one end check added: an element of the screen they led to.

The orchestrator calls :meth:`Learner.offer` before each model call: when the screen and
the step match a learned entry, the entry runs as a flow (every step re-anchored, the end
check read from the phone) and the model is not asked; a replay that fails is counted and
the model takes over from the screen the replay left.

Not a takeover: gestures made while an approval (the gate's "may I?") is waiting, and keys
that leave the app or reach the system (Home, Recents, Power, …), whoever pressed them —
a learned step replayed in a later run would do them unasked. Either spoils the takeover:
nothing of it is learned.

Secrets: typed text is masked with the run's vault before it is kept, so a known secret is
stored as its ``{{secret:NAME}}`` placeholder (the driver reveals it when replaying). Text
typed into a password field that the vault does not know is never stored: that takeover
is not learned.
"""

from __future__ import annotations

import hashlib
import logging
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from omg_agent.brain.ports import RunPorts
from omg_agent.core.actions import Action, Home, Key, LongPress, PointTarget, Tap, TypeText
from omg_agent.core.geometry import norm_to_pixel
from omg_agent.core.keys import KEYCODES
from omg_agent.core.observation import Observation
from omg_agent.durable import aside
from omg_agent.errors import DiskTrouble, OmgError
from omg_agent.flows.cache import task_key
from omg_agent.flows.model import AssertNotVisible, AssertVisible, Flow
from omg_agent.flows.record import FlowRecorder, selector_for, short_id
from omg_agent.flows.replay import FlowRunner
from omg_agent.flows.store import Entry, FlowStore, slug

log = logging.getLogger(__name__)

LEARNED_DIR = "learned"  # under the runs folder, beside the replay cache
CHECK_TIMEOUT_S = 5.0
# keys that leave the app or reach the system: never a step of an app's learned flow
SYSTEM_KEYS = frozenset({"home", "recents", "power", "sleep", "wakeup", "call", "endcall",
                         "camera", "menu", "search"})
APPROVAL_WAIT = "a gesture was made while an approval was waiting (not a takeover)"


def screen_signature(obs: Observation) -> str:
    """A structural signature of a screen: its app, activity and the set of the app's own
    resource-ids on it (a system id like ``android:id/...`` is left out). Texts, values and
    positions are not part of it, so a form with typed text or a moved button is the same
    screen; a screen without ids falls back to its element classes and labels."""
    ids = sorted({short_id(e.resource_id) for e in obs.elements
                  if e.resource_id and not e.resource_id.startswith("android:")})
    marks = ids or sorted({f"{e.cls}:{e.label}" for e in obs.elements if not e.editable})
    text = "\n".join([obs.package, obs.activity, *marks])
    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()


def intent_key(intent: str) -> str:
    """The step's intent, normalised like the replay cache's task key."""
    return task_key(intent)


class LearnedStore:
    """Learned steps on disk (a :class:`FlowStore`): one entry per app + screen + intent."""

    def __init__(self, root: Path) -> None:
        self.store = FlowStore(root)

    @staticmethod
    def key(app: str, signature: str, intent: str) -> str:
        digest = hashlib.blake2b(intent_key(intent).encode(), digest_size=4).hexdigest()
        return slug(app, signature, digest)

    def put(self, app: str, signature: str, intent: str, flow: Flow, **meta: Any) -> Entry:
        return self.store.put(self.key(app, signature, intent), flow, kind="learned",
                              app=app, signature=signature, intent=intent,
                              intent_key=intent_key(intent), **meta)

    def find(self, obs: Observation, intent: str) -> Entry | None:
        signature = screen_signature(obs)
        entry = self.store.get(self.key(obs.package, signature, intent))
        if entry is None or entry.meta.get("signature") != signature \
                or entry.meta.get("intent_key") != intent_key(intent):
            return None
        return entry

    def entries(self) -> list[dict[str, Any]]:
        return [m for m in self.store.entries() if m.get("kind") == "learned"]

    def delete(self, key: str) -> bool:
        """Remove entry ``key`` and its every version; False when there is none."""
        if key not in {m.get("key") for m in self.entries()}:
            return False
        shutil.rmtree(self.store.root / key)
        return True


class Learner:
    """Records a takeover's gestures and offers learned steps (see the module docstring).

    ``secrets`` is the run's :class:`~omg_agent.core.secrets.SecretVault` (``None``: no
    secret is known, so nothing typed into a password field is learned)."""

    def __init__(self, store: LearnedStore, secrets: Any = None, *,
                 source_run: str = "") -> None:
        self.store = store
        self.secrets = secrets
        self.source_run = source_run
        self.intent = ""  # the run's current step, as of its last look
        self._lock = threading.Lock()
        self._episode: _Episode | None = None
        self._tried: set[str] = set()
        self.saved: list[Entry] = []
        self.replays: list[dict[str, Any]] = []
        self._approval_waiting: Callable[[], bool] = lambda: False
        self._spoiled = ""  # a gesture since the last look that spoils the takeover
        self.trouble: OSError | None = None  # the disk refused a takeover's steps

    def _kept(self, exc: OSError) -> None:
        log.warning("learning: the disk refused the takeover's steps (%s)", exc)
        self.trouble = self.trouble or exc

    def watch_approvals(self, waiting: Callable[[], bool]) -> None:
        """``waiting()`` says whether an approval is open now (the mirror's page channel):
        gestures then are never learned."""
        self._approval_waiting = waiting

    # -- the mirror's side ------------------------------------------------------------------
    def gesture(self, driver: Any, action: Action) -> None:
        """Called by the mirror before it sends ``action``: reads the screen it lands on."""
        if not self.intent:
            return  # no run to learn for (a bare mirror)
        why = (APPROVAL_WAIT if self._approval_waiting() else
               f"a system key ({_key_name(action)}) was pressed" if _system_key(action) else "")
        if why:
            with self._lock:
                self._spoiled = self._spoiled or why
            return
        try:
            obs = driver.observe()
        except OmgError as exc:
            log.info("learning: the screen was not readable (%s); this takeover is not "
                     "learned", exc)
            with self._lock:
                if self._episode is not None:
                    self._episode.spoiled = "the screen was not readable"
            return
        with self._lock:
            if self._episode is None:
                self._episode = _Episode(obs, self.intent)
            self._episode.add(action, obs, self.secrets)

    def resume(self, driver: Any = None, obs: Observation | None = None) -> Entry | None:
        """The agent goes on: the takeover's steps (if any) are filed. ``obs`` is the screen
        the human left (else read from ``driver``)."""
        with self._lock:
            episode, self._episode = self._episode, None
            spoiled, self._spoiled = self._spoiled, ""
        if spoiled and episode is not None:
            log.info("learning: takeover not learned: %s", spoiled)
            return None
        if episode is None or not episode.recorder.commands:
            return None
        if obs is None:
            try:
                obs = driver.observe()
            except (OmgError, AttributeError) as exc:
                log.info("learning: the end screen was not readable (%s): not learned", exc)
                return None
        why = episode.unlearnable(obs)
        if why:
            log.info("learning: takeover not learned: %s", why)
            return None
        filed: list[Entry] = []  # a disk that refuses it: kept for the run (see offer)
        if not aside(self._kept, lambda: filed.append(self.store.put(
                episode.app, episode.signature, episode.intent, episode.flow(obs),
                source_run=self.source_run, learned=time.time()))):
            return None
        entry = filed[0]
        self.saved.append(entry)
        log.info("learning: %d steps learned for %s (%s)", len(entry.flow.commands),
                 episode.app, episode.intent)
        return entry

    # -- the orchestrator's side ------------------------------------------------------------
    def offer(self, ports: RunPorts, step: Any, obs: Observation) -> bool:
        """Before the model is asked about ``obs`` for ``step``: True when learned steps
        were run instead (the caller looks at the screen again), False to ask the model."""
        keep = getattr(ports.recorder, "refused", None)  # None: raised here
        self.resume(obs=obs)  # a takeover the agent resumes from by itself ends here
        if self.trouble is not None:  # the disk refused a takeover's steps: the run's trouble
            trouble, self.trouble = self.trouble, None
            if keep is None:
                raise DiskTrouble(trouble)
            keep(trouble)
        self.intent = str(getattr(step, "description", "") or "")
        entry = self.store.find(obs, self.intent) if self.intent else None
        if entry is None or entry.key in self._tried:
            return False
        self._tried.add(entry.key)  # once per run: a replay never loops
        runner = FlowRunner(ports.driver, gate=ports.gate)
        result = runner.run(entry.flow)
        meta = entry.meta
        # the steps ran: a disk that refuses the count stops the run after this turn
        if result.ok:
            aside(keep, lambda: self.store.store.update(
                entry.key, hits=int(meta.get("hits", 0)) + 1, last_hit=time.time()))
        else:
            aside(keep, lambda: self.store.store.update(
                entry.key, failures=int(meta.get("failures", 0)) + 1,
                last_failure=result.failed))
        record = {"entry": entry.key, "ok": result.ok, "steps": result.commands,
                  "actions": result.actions, "failed": result.failed}
        self.replays.append(record)
        if ports.recorder is not None:
            ports.recorder.record_event("learned_replay", **record)
        return True


def _key_name(action: Action) -> str:
    """The key ``action`` presses, by name (a keycode named when it has one)."""
    if isinstance(action, Home):
        return "home"
    key = getattr(action, "key", "") if isinstance(action, Key) else ""
    if isinstance(key, int):
        return next((n for n, code in KEYCODES.items() if code == key), str(key))
    return str(key)


def _system_key(action: Action) -> bool:
    return isinstance(action, Home | Key) and _key_name(action) in SYSTEM_KEYS


class _Episode:
    """One takeover being recorded."""

    def __init__(self, obs: Observation, intent: str) -> None:
        self.app = obs.package
        self.signature = screen_signature(obs)
        self.intent = intent
        self.start = {e.resource_id: e for e in obs.elements if e.resource_id}
        self.recorder = FlowRecorder(app_id=obs.package, name=f"learned: {intent}")
        self.spoiled = ""

    def add(self, action: Action, obs: Observation, secrets: Any) -> None:
        if isinstance(action, TypeText):
            text = secrets.mask(action.text) if secrets is not None else action.text
            focused = next((e for e in obs.elements if e.focused and e.editable), None)
            if focused is not None and focused.password and text == action.text:
                self.spoiled = ("a password was typed that the run knows no secret for "
                                "(name it in the task: {{secret:NAME}})")
                return
            action = action.model_copy(update={"text": text})
        point = None
        if isinstance(action, (Tap, LongPress)) and isinstance(action.target, PointTarget):
            x, y = norm_to_pixel((action.target.x, action.target.y), obs.size)
            point = (round(x), round(y))
        try:
            self.recorder.add(action, obs, point)
        except ValueError as exc:
            self.spoiled = f"a step could not be anchored: {exc}"

    def unlearnable(self, end: Observation) -> str:
        if self.spoiled:
            return self.spoiled
        if end.package == self.app and screen_signature(end) == self.signature:
            return "the human did not leave the screen they started on"
        return ""

    def flow(self, end: Observation) -> Flow:
        """The recorded steps plus one end check: an element of the screen they led to."""
        commands = list(self.recorder.commands)
        ids = {e.resource_id for e in end.elements if e.resource_id}
        appeared = [(e, end.elements, AssertVisible) for e in end.elements
                    if e.resource_id and e.resource_id not in self.start]
        gone = [(e, self.start.values(), AssertNotVisible) for e in self.start.values()
                if e.resource_id not in ids]
        for element, shown, check in [*appeared, *gone]:
            if element.resource_id.startswith("android:"):
                continue
            try:
                sel = selector_for(element, list(shown))
            except ValueError:
                continue
            commands.append(check(selector=sel, timeout_s=CHECK_TIMEOUT_S))
            break
        self.recorder.commands = commands
        return self.recorder.flow()
