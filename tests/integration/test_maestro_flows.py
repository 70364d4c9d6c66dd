"""Flows as Maestro users expect them, through the real CLI on a vphone over the real adb
server: ``launchApp`` stops the app first unless ``stopApp: false``, a failed check says what
it awaited and what was on the screen, ``builtin:NAME``, saved values in the output, piped
``flow record``, ``from-trace`` in Maestro's layout, ``macro run``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from look_script import BLANK
from typer.testing import CliRunner

from omg_agent.cli import app
from omg_agent.macros import Macro, MacroStore
from omg_agent.macros.model import Target

NOTES = "com.omg.notes"
FEED = "com.omg.feed"
# Maestro's command names (its YamlFluentCommand's fields) and the fields of the ones
# from-trace writes as mappings: what Maestro's own parser accepts
MAESTRO_COMMANDS = frozenset({
    "tapOn", "doubleTapOn", "longPressOn", "assertVisible", "assertNotVisible", "assertTrue",
    "back", "clearKeychain", "hideKeyboard", "pasteText", "scroll", "inputText",
    "inputRandomText", "inputRandomNumber", "inputRandomEmail", "inputRandomPersonName",
    "launchApp", "swipe", "openLink", "openBrowser", "pressKey", "eraseText", "action",
    "takeScreenshot", "extendedWaitUntil", "stopApp", "killApp", "clearState", "runFlow",
    "setLocation", "repeat", "copyTextFrom", "runScript", "waitForAnimationToEnd",
    "evalScript", "scrollUntilVisible", "travel", "startRecording", "stopRecording",
    "addMedia", "setAirplaneMode", "toggleAirplaneMode", "retry"})
MAESTRO_FIELDS = {"launchApp": {"appId", "clearState", "clearKeychain", "stopApp",
                                "permissions", "arguments", "label", "optional"},
                  "tapOn": {"text", "id", "index", "below", "above", "childOf", "enabled",
                            "selected", "checked", "focused", "point", "optional", "label"}}


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def flow(vphone: Any, in_tmp: Path, text: str, *more: str) -> tuple[int, dict[str, Any]]:
    (in_tmp / "f.yaml").write_text(text)
    result = CliRunner().invoke(app, ["flow", "run", "f.yaml", "--device", vphone.serial,
                                      "--driver", "adb", "--json", "--runs-dir",
                                      str(in_tmp / "runs"), *more],
                                env=BLANK)
    assert result.stdout.strip(), result.output
    return result.exit_code, json.loads(result.stdout.strip().splitlines()[-1])


OPEN_EDITOR = f"appId: {NOTES}\n---\n- launchApp\n- tapOn:\n    id: fab_new\n" \
              "- assertVisible:\n    id: title_input\n"


def test_launch_app_stops_an_app_left_open_unless_stop_app_is_false(vphone,
                                                                     in_tmp: Path) -> None:
    code, _ = flow(vphone, in_tmp, OPEN_EDITOR)
    assert code == 0 and vphone.phone.apps[NOTES].screen.name == "editor"  # left open
    kept = f"appId: {NOTES}\n---\n- launchApp:\n    stopApp: false\n" \
           "- extendedWaitUntil:\n    visible:\n      id: fab_new\n    timeout: 300\n"
    code, out = flow(vphone, in_tmp, kept)
    assert code == 1 and vphone.phone.apps[NOTES].screen.name == "editor"
    # what it waited for, and what the screen showed instead
    assert "step 2 extendedWaitUntil: waited 0.3 s for" in out["failed"], out["failed"]
    assert "id='fab_new' to be visible" in out["failed"]
    assert f"{NOTES} shows " in out["failed"] and "'Save'" in out["failed"]
    code, out = flow(vphone, in_tmp, f"appId: {NOTES}\n---\n- launchApp\n"
                                     "- assertVisible:\n    id: fab_new\n")
    assert code == 0, out  # Maestro's default: stopped first, so on its first screen
    assert vphone.phone.apps[NOTES].screen.name == "main"


def test_a_builtin_flow_runs_from_any_folder_and_saved_values_are_shown(vphone,
                                                                        in_tmp: Path) -> None:
    result = CliRunner().invoke(app, ["flow", "run", "builtin:maestro_new_note", "--device",
                                      vphone.serial, "--runs-dir", str(in_tmp / "runs")],
                                env=BLANK)
    assert result.exit_code == 0, result.output
    assert {"title": "Groceries", "body": "milk, eggs, bread"} in \
        vphone.phone.apps[NOTES].notes
    code, out = flow(vphone, in_tmp, f"appId: {NOTES}\n---\n- launchApp\n"
                                     "- memSave:\n    key: first\n    from:\n      id: note_item\n"
                                     "- memSave:\n    key: mark\n    value: seen\n")
    assert code == 0 and out["saved"] == {"first": "Groceries", "mark": "seen"}, out
    text = CliRunner().invoke(app, ["flow", "run", "f.yaml", "--device", vphone.serial,
                                    "--runs-dir", str(in_tmp / "runs")], env=BLANK)
    assert "saved $first = 'Groceries'" in text.stdout, text.output
    unknown = CliRunner().invoke(app, ["flow", "run", "builtin:nope"], env=BLANK)
    assert unknown.exit_code == 1 and "builtin:like_first_posts" in unknown.output


def test_flow_record_reads_piped_commands(vphone, in_tmp: Path) -> None:
    out = in_tmp / "rec.yaml"
    result = CliRunner().invoke(app, ["flow", "record", "-o", str(out), "--device",
                                      vphone.serial, "--driver", "adb"],
                                input="launch com.omg.notes\nback\n", env=BLANK)
    assert result.exit_code == 0, result.output
    header, body = yaml.safe_load_all(out.read_text())
    assert header["appId"] == NOTES
    assert body == [{"launchApp": {"appId": NOTES, "stopApp": False}}, "back"]


def test_from_trace_writes_maestro_layout_and_commands(in_tmp: Path) -> None:
    runs = in_tmp / "runs"
    done = CliRunner().invoke(app, ["run", "Create a note titled Trip with body tickets",
                                    "--model", "sim", "--json", "--no-cache",
                                    "--runs-dir", str(runs)], env=BLANK)
    assert done.exit_code == 0, done.output
    run_dir = json.loads(done.stdout.strip().splitlines()[-1])["run_dir"]
    text = CliRunner().invoke(app, ["flow", "from-trace", run_dir], env=BLANK).stdout
    config, commands = yaml.safe_load_all(text)
    assert config["appId"] == NOTES and text.count("\n---\n") == 1
    for command in commands:
        name, arg = (command, None) if isinstance(command, str) else next(
            iter(command.items()))
        assert name in MAESTRO_COMMANDS, name
        if isinstance(arg, dict) and name in MAESTRO_FIELDS:
            assert set(arg) <= MAESTRO_FIELDS[name], command
        if name == "inputText":
            assert isinstance(arg, str), command  # Maestro's takes the text alone


def test_macro_run_plays_a_stored_macro(vphone, in_tmp: Path) -> None:
    store = in_tmp / "macros"
    missing = CliRunner().invoke(app, ["macro", "run", "nope", "--store", str(store)],
                                 env=BLANK)
    assert missing.exit_code == 1 and "no stored macro named 'nope'" in missing.output
    MacroStore(store).save(Macro(
        name="feed-like", app=FEED, container=f"{FEED}:id/feed", profile="1080x2400",
        target=Target(resource_id=f"{FEED}:id/like", role="button", action="tap",
                      todo_text="Like", done_text="Liked ♥")))
    CliRunner().invoke(app, ["launch", FEED, "--device", vphone.serial], env=BLANK)
    result = CliRunner().invoke(app, ["macro", "run", "feed-like", "--count", "3",
                                      "--device", vphone.serial, "--store", str(store),
                                      "--json"], env=BLANK)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["completed"] is True
    assert vphone.phone.apps[FEED].liked == {1, 2, 3}  # read from the phone
