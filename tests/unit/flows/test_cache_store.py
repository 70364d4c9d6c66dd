"""The replay cache's task key and the flow store's versions, retirement and atomic files."""

from __future__ import annotations

from pathlib import Path

import pytest

from omg_agent.flows.cache import ReplayCache, answer_template, task_key
from omg_agent.flows.parse import parse_flow
from omg_agent.flows.store import FlowStore, write_atomic


@pytest.mark.parametrize("a, b", [
    ("Like the first 3 posts in Feed", "please like first 3 posts in feed."),
    ("Find the price of MacBook Air 13 in Shop and save it in Notes",
     "Find the price of MacBook Air 13 in Shop, then save it in Notes!"),
    ("打开设置，关闭蓝牙", "请打开设置 关闭蓝牙"),
    ("Sign in with {{secret:pw=abc123}}", "sign in with {{secret:pw}}"),
])
def test_the_same_task_in_other_words_has_one_key(a: str, b: str) -> None:
    assert task_key(a) == task_key(b)


@pytest.mark.parametrize("a, b", [
    ("Like the first 3 posts in Feed", "Like the first 5 posts in Feed"),
    ("Turn on Wi-Fi", "Turn off Wi-Fi"),
    ("Sign in with {{secret:pw}}", "Sign in with {{secret:pin}}"),
    ("Find the price of MacBook Air 13", "Find the price of MacBook Air 15"),
])
def test_other_tasks_or_parameters_have_other_keys(a: str, b: str) -> None:
    assert task_key(a) != task_key(b)


def test_a_secret_value_never_reaches_the_key() -> None:
    assert "abc123" not in task_key("Sign in with {{secret:pw=abc123}}")
    assert "abc123" not in ReplayCache(Path("x")).key("Sign in with {{secret:pw=abc123}}")


def test_the_answer_keeps_saved_values_as_vars() -> None:
    assert answer_template("Saved ¥8,249.00 in Notes", {"price": "¥8,249.00"}) == \
        "Saved $price in Notes"


def test_store_versions_retire_and_writes_atomically(tmp_path: Path) -> None:
    store = FlowStore(tmp_path)
    one = parse_flow("- launchApp: com.omg.notes\n")
    two = parse_flow("- launchApp: com.omg.notes\n- back\n")
    assert store.put("k", one, task_key="t").version == 1
    assert store.put("k", two).version == 2
    got = store.get("k")
    assert got is not None and [c.name for c in got.flow.commands] == ["launchApp", "back"]
    assert got.meta["task_key"] == "t"  # earlier metadata is kept
    store.retire("k", "it broke")
    assert store.get("k") is None
    assert store.get("k", retired=True) is not None
    assert store.entries()[0]["retired_because"] == "it broke"
    assert store.put("k", one).version == 3 and store.get("k") is not None  # repaired
    assert sorted(p.name for p in (tmp_path / "k").iterdir()) == [
        "meta.json", "v1.yaml", "v2.yaml", "v3.yaml"]  # no temp file left behind


def test_write_atomic_replaces_whole_files(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "f.yaml"
    write_atomic(path, "old")
    write_atomic(path, "new")
    assert path.read_text() == "new" and [p.name for p in path.parent.iterdir()] == ["f.yaml"]


def test_end_checks_counts_only_the_trailing_asserts() -> None:
    from omg_agent.flows.cache import end_checks
    assert end_checks(parse_flow("- launchApp: com.omg.notes\n- tapOn: Save\n")) == 0
    assert end_checks(parse_flow("- assertVisible: Notes\n- tapOn: Save\n")) == 0
    assert end_checks(parse_flow("- tapOn: Save\n- assertVisible: Saved\n"
                                 "- assertVisible:\n    id: note_title\n")) == 2


class _NoShell:
    """A driver the cache cannot ask for app versions (so only package names compare)."""


def test_a_flow_without_an_end_check_is_never_served_as_done(tmp_path: Path) -> None:
    """An entry filed without an end check (an older cache) would replay its taps and
    say done with nothing read from the phone: lookup retires it instead."""
    cache = ReplayCache(tmp_path)
    task = "Save a note"
    cache.store.put(cache.key(task), parse_flow("- launchApp: com.omg.notes\n- tapOn: Save\n"),
                    task_key=task_key(task), apps={"com.omg.notes": ""})
    assert cache.lookup(task, _NoShell()) is None
    retired = cache.store.get(cache.key(task), retired=True)
    assert retired is not None and "no end check" in retired.meta["retired_because"]
    checked = parse_flow("- launchApp: com.omg.notes\n- tapOn: Save\n- assertVisible: Saved\n")
    cache.store.put(cache.key(task), checked, task_key=task_key(task))
    assert cache.lookup(task, _NoShell()) is not None


def test_a_done_run_whose_last_screen_gives_no_check_is_not_cached(tmp_path: Path) -> None:
    from omg_agent.trace import TraceRecorder
    run = tmp_path / "run"
    rec = TraceRecorder(run, task="go home")
    rec.record_step(1, observation=None, model_reply="r1", actions=[{"type": "home"}],
                    results=[{"index": 0, "ok": True}])
    rec.finish("done", "", {})
    cache = ReplayCache(tmp_path / "cache")
    assert cache.remember("go home", run, _NoShell()) is None
    assert cache.store.get(cache.key("go home")) is None
