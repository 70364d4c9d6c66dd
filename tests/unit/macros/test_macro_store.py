"""The macro store: per app and profile, versioned, atomic, with clear errors."""

from __future__ import annotations

import pytest

from omg_agent.errors import ConfigError
from omg_agent.macros.model import Macro, Target
from omg_agent.macros.store import MacroStore

M = Macro(name="feed-like", app="com.omg.feed", profile="1080x2400",
          container="com.omg.feed:id/feed", target=Target(resource_id="com.omg.feed:id/like"))


def test_saving_changed_content_makes_a_new_version_and_same_content_does_not(tmp_path):
    store = MacroStore(tmp_path)
    first = store.save(M)
    assert first.version == 1 and first.path.is_file()
    assert store.save(M).version == 1
    changed = M.model_copy(update={"where": {"com.omg.feed:id/author": "Bob"}})
    assert store.save(changed).version == 2
    got = store.get("feed-like")
    assert got.version == 2 and got.macro == changed
    assert store.get("feed-like", version=1).macro == M
    assert store.versions(got) == [1, 2]
    assert not list(tmp_path.rglob("*.tmp"))  # nothing half-written left behind


def test_same_name_on_two_profiles_needs_a_choice_and_rm_removes_all_versions(tmp_path):
    store = MacroStore(tmp_path)
    store.save(M)
    store.save(M.model_copy(update={"profile": "720x1600"}))
    with pytest.raises(ConfigError, match="pass --app or --profile"):
        store.get("feed-like")
    assert store.get("feed-like", profile="720x1600").macro.profile == "720x1600"
    assert store.remove("feed-like", profile="720x1600") == 1
    assert [s.macro.profile for s in store.stored()] == ["1080x2400"]
    with pytest.raises(ConfigError, match="no stored macro named 'nope'"):
        store.get("nope")
    with pytest.raises(ConfigError, match="no version 9"):
        store.get("feed-like", version=9)


def test_a_corrupt_file_is_named_in_the_error(tmp_path):
    store = MacroStore(tmp_path)
    path = store.save(M).path
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigError, match="not a stored macro"):
        store.stored()
