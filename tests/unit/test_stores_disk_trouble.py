"""Storage trouble anywhere is disk trouble (issue 38 item 4): the replay cache, learned
steps and macros, on a disk that is full (ENOSPC), read-only (EROFS) or fails a read (EIO),
take the memory store's one rule (:func:`omg_agent.durable.aside`, ``DiskTrouble``).

- before anything acted, the disk's error is raised: the CLI refuses in one line (exit 10,
  nothing to resume) or, mid-run, the run ends ``interrupted`` (exit 8, resumable);
- after a replay, learned steps or a macro acted on the phone, a refused bookkeeping write
  never throws the turn away: the outcome stands, and the refusal is the trace recorder's
  (the run stops at its next safe point; a run that ended says its files are not complete).

The disks are real: a tmpfs of a few pages filled up or remounted read-only (root only:
skipped where mounting is refused), and ``/proc/self/mem`` behind a store's file name — a
regular file whose first read the kernel answers with EIO."""

from __future__ import annotations

import errno
import subprocess
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from omg_agent.bench.diskfull import can_mount, fill, small_disk
from omg_agent.brain.memory import MemoryBank
from omg_agent.brain.ports import RunPorts
from omg_agent.core.actions import RunMacro
from omg_agent.errors import DeviceOffline, DiskTrouble
from omg_agent.flows.cache import CACHE_DIR, ReplayCache, run_cached, task_key
from omg_agent.flows.parse import parse_flow
from omg_agent.guards.authorisation import parse_allow
from omg_agent.guards.gatekeeper import GateKeeper
from omg_agent.guards.sensitive import Gate
from omg_agent.hitl.learn import LearnedStore, Learner, screen_signature
from omg_agent.macros.model import Macro
from omg_agent.macros.session import MacroSession, run_requested
from omg_agent.macros.store import MacroStore
from omg_agent.trace import TraceRecorder
from tests.unit.brain.fakes import FakeDriver, FakeWorld, el
from tests.unit.macros.listphone import ListPhone
from tests.unit.macros.test_macro_session import like_turn

needs_mount = pytest.mark.skipif(not can_mount(), reason="mounting a tmpfs is not permitted")
FEED, SHOP = "com.omg.feed", "com.omg.shop"
LIKE_FLOW = "- tapOn:\n    id: like\n- assertVisible: Liked\n"
TASK = "Like the post in Feed"


class DropsOnPay(FakeDriver):
    """The phone drops off adb while the Pay tap is in flight (it paid): the replay fails
    at once after a step that cannot be undone."""

    def execute(self, actions: Any, observation: Any = None, *, review: Any = None) -> Any:
        result = super().execute(actions, observation, review=review)
        if any(getattr(getattr(a, "target", None), "id", None) == 3 for a in actions):
            raise DeviceOffline("gone", serial="fake")
        return result


class Phone:
    """A feed post with a Like button, and a shop whose Pay button records an order."""

    def __init__(self) -> None:
        self.likes = self.orders = 0
        self.world = FakeWorld({
            "post": (FEED, [el(1, "Like", res=f"{FEED}:id/like")]),
            "liked": (FEED, [el(2, "Liked", res=f"{FEED}:id/liked", role="text",
                                clickable=False)]),
            "checkout": (SHOP, [el(3, "Pay ¥1,079.00", res=f"{SHOP}:id/pay")]),
            "paid": (SHOP, [el(4, "Payment successful", role="text", clickable=False)])},
            self.move, "post")
        self.driver = DropsOnPay(self.world)

    def move(self, screen: str, action: object, element: object) -> str:
        if getattr(element, "id", None) == 1:
            self.likes += 1
            return "liked"
        if getattr(element, "id", None) == 3:
            self.orders += 1
            return "paid"
        return screen


def _read_only(folder: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)


def _eio(path: Path) -> None:
    """``path`` answers its first read with EIO, as a failing disk does."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    path.symlink_to("/proc/self/mem")


@pytest.fixture
def recorder(tmp_path: Path) -> Iterator[TraceRecorder]:
    """The run's trace, on a disk with room (only the store beside it is in trouble)."""
    with TraceRecorder(tmp_path / "run", task=TASK) as rec:
        yield rec


def _ports(phone: Phone, recorder: TraceRecorder, allow: tuple[str, ...] = ()) -> RunPorts:
    return RunPorts(phone.driver, GateKeeper(Gate(parse_allow(list(allow)))), recorder,
                    MemoryBank(None, "run-1"))


def _cached(runs: Path, task: str, flow: str) -> None:
    cache = ReplayCache(runs / CACHE_DIR)
    cache.store.put(cache.key(task), parse_flow(flow), task_key=task_key(task), apps={})


def _agent(task: str, plan: Path | None) -> object:
    raise AssertionError("the agent was called: the replay should have stood")


# -- the replay cache ------------------------------------------------------------------------
@needs_mount
def test_a_replay_that_acted_stays_done_when_the_cache_disk_is_full(
        tmp_path: Path, recorder: TraceRecorder) -> None:
    phone = Phone()
    with small_disk(tmp_path / "runs", 64) as runs:
        _cached(runs, TASK, LIKE_FLOW)
        fill(runs)  # the hit count cannot be written once the replay has liked the post
        result = run_cached(_agent, _ports(phone, recorder), TASK, runs_dir=runs)
    assert (result.status, phone.likes) == ("done", 1)  # was: OSError, the like untold
    assert recorder.trouble is not None and recorder.trouble.errno == errno.ENOSPC
    with pytest.raises(DiskTrouble, match="No space left"):
        recorder.check()  # the CLI: done, exit 0, "the run's trace … not complete"


@needs_mount
def test_a_replay_that_paid_and_failed_says_the_read_only_disk_kept_its_flow(
        tmp_path: Path, recorder: TraceRecorder) -> None:
    phone = Phone()
    phone.world.current = "checkout"
    task = "Pay for the order in Shop"
    with small_disk(tmp_path / "runs", 64) as runs:
        _cached(runs, task, "- tapOn:\n    id: pay\n- assertVisible: Payment successful\n")
        _read_only(runs)  # the entry cannot be retired after the payment went through
        result = run_cached(_agent, _ports(phone, recorder, ("payment",)), task,
                            runs_dir=runs)
    assert (result.status, phone.orders) == ("failed", 1)  # paid once, never handed over
    assert "only with --no-cache" in result.next_hint  # a later replay would pay again
    assert recorder.trouble is not None and recorder.trouble.errno == errno.EROFS


def test_a_cache_entry_the_disk_cannot_read_is_disk_trouble_not_a_miss(
        tmp_path: Path, recorder: TraceRecorder) -> None:
    phone = Phone()
    runs = tmp_path / "runs"
    _cached(runs, TASK, LIKE_FLOW)
    _eio(runs / CACHE_DIR / ReplayCache(runs).key(TASK) / "meta.json")
    with pytest.raises(OSError) as caught:  # before anything acted: the CLI refuses, exit 10
        run_cached(_agent, _ports(phone, recorder), TASK, runs_dir=runs)
    assert caught.value.errno == errno.EIO and phone.likes == 0  # was: a miss, the agent ran


# -- learned steps ---------------------------------------------------------------------------
@needs_mount
def test_learned_steps_that_ran_stop_the_run_at_its_next_safe_point_on_a_full_disk(
        tmp_path: Path, recorder: TraceRecorder) -> None:
    phone = Phone()
    obs = phone.driver.observe()
    step = SimpleNamespace(description="Like the post")
    with small_disk(tmp_path / "learned", 64) as folder:
        store = LearnedStore(folder)
        store.put(FEED, screen_signature(obs), step.description, parse_flow(LIKE_FLOW))
        fill(folder)
        offered = Learner(store).offer(_ports(phone, recorder), step, obs)
    assert offered and phone.likes == 1  # was: OSError out of the turn that liked
    with pytest.raises(DiskTrouble, match="No space left"):
        recorder.check()  # the top of the next turn: interrupted, exit 8


def test_a_learned_entry_the_disk_cannot_read_stops_the_turn(
        tmp_path: Path, recorder: TraceRecorder) -> None:
    phone = Phone()
    obs = phone.driver.observe()
    store = LearnedStore(tmp_path / "learned")
    entry = store.put(FEED, screen_signature(obs), "Like the post", parse_flow(LIKE_FLOW))
    _eio(entry.path)
    with pytest.raises(OSError) as caught:  # mid-run: interrupted, exit 8
        Learner(store).offer(_ports(phone, recorder), SimpleNamespace(
            description="Like the post"), obs)
    assert caught.value.errno == errno.EIO and phone.likes == 0


# -- macros ----------------------------------------------------------------------------------
@needs_mount
def test_a_macro_that_ran_is_reported_though_the_read_only_disk_refused_to_keep_it(
        tmp_path: Path, recorder: TraceRecorder) -> None:
    phone = ListPhone([f"A{i}" for i in range(20)])
    with small_disk(tmp_path / "macros", 64) as folder:
        session = MacroSession(phone, shell=phone, store=MacroStore(folder))  # type: ignore[arg-type]
        like_turn(session, phone, 1)
        like_turn(session, phone, 2)
        assert session.offer(phone.observe())
        _read_only(folder)
        turn = SimpleNamespace(actions=[], results=[], executed=None, failure=None)
        run_requested(session, turn, [RunMacro(name="list-like", count=5)], phone.observe(),
                      recorder=recorder)
    assert turn.failure is None and turn.executed.ok  # was: OSError, the turn lost
    assert phone.liked == set(range(1, 8))
    with pytest.raises(DiskTrouble, match="Read-only"):
        recorder.check()


def test_a_stored_macro_the_disk_cannot_read_is_disk_trouble_not_a_bad_macro(
        tmp_path: Path) -> None:
    store = MacroStore(tmp_path)
    phone = ListPhone([f"A{i}" for i in range(20)])
    session = MacroSession(phone, shell=phone, store=store)  # type: ignore[arg-type]
    like_turn(session, phone, 1)
    like_turn(session, phone, 2)
    macro = session.candidate(phone.observe()).macro
    assert isinstance(macro, Macro)
    _eio(store.save(macro).path)
    with pytest.raises(DiskTrouble) as caught:  # was: ConfigError "not a stored macro"
        store.stored()
    assert caught.value.cause.errno == errno.EIO


# -- a store command outside a run -----------------------------------------------------------
@needs_mount
def test_a_store_command_the_read_only_disk_refuses_is_one_line_with_its_own_exit_code(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from omg_agent.cli import main
    from omg_agent.cli.run import DISK_REFUSED_EXIT

    obs = Phone().driver.observe()
    with small_disk(tmp_path / "learned", 64) as folder:
        entry = LearnedStore(folder).put(FEED, screen_signature(obs), "Like the post",
                                         parse_flow(LIKE_FLOW))
        _read_only(folder)
        monkeypatch.setattr("sys.argv", ["omg-agent", "memory", "learned", "--dir",
                                         str(folder), "--delete", entry.key])
        with pytest.raises(SystemExit) as leaving:
            main()  # was: a traceback (OSError: Read-only file system), exit 1
    said = capsys.readouterr().err.strip().splitlines()
    assert leaving.value.code == DISK_REFUSED_EXIT
    assert len(said) == 1 and "Read-only file system" in said[0], said
