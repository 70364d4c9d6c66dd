"""``cmd package resolve-activity`` / ``query-activities`` answer as Android 14 does, from the
same resolver ``am start`` and ``monkey`` use (issue 29)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from omg_agent.vphone.phone import VirtualPhone

try:
    from .shell_fake_phone import run
except ImportError:
    from shell_fake_phone import run

MATCH_LINE = "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false"


@pytest.fixture
def phone() -> Iterator[VirtualPhone]:
    p = VirtualPhone()
    yield p
    p.close()


def test_resolve_activity_brief_prints_the_match_line_and_the_launcher_component(phone):
    status, out, err = run(phone.shell, "cmd package resolve-activity --brief com.omg.notes")
    assert (status, err) == (0, "")
    assert out.splitlines() == [MATCH_LINE, "com.omg.notes/.NotesListActivity"]
    assert run(phone.shell, "pm resolve-activity --brief com.android.settings")[1] \
        .splitlines()[-1] == "com.android.settings/.Settings"


def test_resolve_activity_of_an_unknown_package_says_no_activity_found_and_exits_0(phone):
    assert run(phone.shell, "cmd package resolve-activity --brief com.example.none") == \
        (0, "No activity found\n", "")


def test_resolve_activity_without_brief_dumps_the_activity_info(phone):
    out = run(phone.shell, "cmd package resolve-activity com.omg.shop")[1]
    assert "  name=com.omg.shop.MainActivity" in out.splitlines()
    assert "  packageName=com.omg.shop" in out.splitlines()


def test_query_activities_lists_every_launcher_app_but_not_the_home_screen(phone):
    args = "-a android.intent.action.MAIN -c android.intent.category.LAUNCHER"
    out = run(phone.shell, f"cmd package query-activities --components {args}")[1]
    assert "com.omg.notes/.NotesListActivity" in out.splitlines()
    assert not any(line.startswith("com.android.launcher3") for line in out.splitlines())
    listing = run(phone.shell, f"cmd package query-activities --brief {args}")[1].splitlines()
    assert listing[0] == f"{len(phone.launchable())} activities found:"
    assert listing[1:4] == ["  Activity #0:", f"    {MATCH_LINE}",
                            "    com.android.chrome/com.google.android.apps.chrome.Main"]
    assert run(phone.shell, "cmd package query-activities -p com.example.none")[1] == \
        "No activities found\n"


def test_home_category_resolves_to_the_launcher(phone):
    out = run(phone.shell, "cmd package resolve-activity --brief "
                           "-a android.intent.action.MAIN -c android.intent.category.HOME")[1]
    assert out.splitlines()[-1] == "com.android.launcher3/.Launcher"


def test_the_resolved_component_starts_what_monkey_starts(phone):
    component = run(phone.shell, "cmd package resolve-activity --brief com.omg.shop")[1] \
        .splitlines()[-1]
    assert run(phone.shell, f"am start -n {component}")[0] == 0
    assert phone.focus() == ("com.omg.shop", ".MainActivity")
    run(phone.shell, "input keyevent KEYCODE_HOME")
    assert run(phone.shell, "monkey -p com.omg.shop -c android.intent.category.LAUNCHER 1")[0] == 0
    assert phone.focus() == ("com.omg.shop", ".MainActivity")


def test_monkey_refuses_a_package_without_a_launcher_activity(phone):
    status, _, err = run(phone.shell, "monkey -p com.android.launcher3 1")
    assert status != 0 and "No activities found to run, monkey aborted." in err
