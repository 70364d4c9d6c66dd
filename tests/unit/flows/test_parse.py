"""Reading flow files: our YAML and Maestro's subset; anything else is a clear error."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter, ValidationError

from omg_agent.errors import FlowError
from omg_agent.flows.model import (
    Command,
    InputText,
    LaunchApp,
    PressKey,
    Retry,
    Selector,
    TapOn,
)
from omg_agent.flows.parse import COMMANDS, parse_flow
from omg_agent.flows.write import dump_flow

MAESTRO = """\
appId: com.example.app
name: Sign in
env:
  USER: demo
tags: [smoke]
---
- launchApp
- tapOn: "Sign in"
- tapOn:
    id: "username"
- inputText: ${USER}
- tapOn:
    text: "Log.*"
    index: 1
    below:
      id: password
    enabled: true
- assertVisible:
    text: "Welcome"
    optional: true
- scrollUntilVisible:
    element:
      text: "Terms"
    direction: DOWN
    timeout: 10000
- back
- pressKey: Enter
- repeat:
    times: 2
    commands:
      - swipe:
          direction: UP
- runFlow:
    when:
      visible: "Not now"
    commands:
      - tapOn: "Not now"
- retry:
    maxRetries: 3
    commands:
      - tapOn: "Reload"
- extendedWaitUntil:
    notVisible:
      id: progress
    timeout: 8000
- waitForAnimationToEnd
- takeScreenshot: done
"""


def test_a_maestro_file_of_the_supported_subset_reads_as_written() -> None:
    flow = parse_flow(MAESTRO)
    assert flow.app_id == "com.example.app" and flow.env == {"USER": "demo"}
    names = [c.name for c in flow.commands]
    assert names == ["launchApp", "tapOn", "tapOn", "inputText", "tapOn", "assertVisible",
                     "scrollUntilVisible", "back", "pressKey", "repeat", "runFlow", "retry",
                     "extendedWaitUntil", "waitForAnimationToEnd", "takeScreenshot"]
    tap = flow.commands[4]
    assert tap.selector == Selector(text="Log.*", index=1, below=Selector(id="password"),
                                    enabled=True)
    assert flow.commands[5].optional
    scroll = flow.commands[6]
    assert scroll.direction == "down" and scroll.timeout_s == 10
    assert flow.commands[9].times == 2 and flow.commands[9].commands[0].direction == "up"
    when = flow.commands[10].condition
    assert when is not None and when.visible == Selector(text="Not now")
    assert flow.commands[11].max_retries == 3
    assert flow.commands[12].timeout_s == 8 and flow.commands[12].condition is not None
    assert flow.variables == []  # USER comes from env


@pytest.mark.parametrize("line, named", [
    ("- evalScript: ${output.x = 1}", "'evalScript'"),
    ("- openLink: https://example.com", "'openLink'"),
    ("- tapOn:\n    text: Save\n    retryTapIfNoChange: true", "'retryTapIfNoChange'"),
    ("- launchApp:\n    clearState: true", "clearState deletes the app's data"),
    ("- launchApp:\n    clearKeychain: true", "clearKeychain is iOS's"),
    ("- launchApp:\n    stopApp: later", "stopApp: give true or false"),
    ("- pressKey: Volume Up", "not a supported key; accepted: back"),
    ("- tapOn:\n    point: 100,200", "per-cent"),
    ("- swipe:\n    start: 10%,50%\n    end: 90%,50%", "start/end"),
])
def test_an_unsupported_command_or_field_is_an_error_naming_it(line: str, named: str) -> None:
    with pytest.raises(FlowError) as info:
        parse_flow("appId: x\n---\n- back\n" + line + "\n")
    message = str(info.value)
    assert named in message and "step 2" in message
    assert "\n" not in message


def test_the_unsupported_command_error_lists_what_is_accepted() -> None:
    with pytest.raises(FlowError, match="supported: launchApp, tapOn") as info:
        parse_flow("- hideKeyboard\n")
    assert "step 1: unsupported command (a bare text)" in str(info.value)


@pytest.mark.parametrize("text", [
    "- sk-LEAKED-123456\n- OMG_SECRET_PW\n",  # a key list read as a flow
    "- pressKey: sk-LEAKED-123456\n",
    "- swipe: sk-LEAKED-123456\n",
    "- repeat:\n    times: sk-LEAKED-123456\n    commands: [back]\n",
    "- tapOn:\n    point: sk-LEAKED-123456\n",
    "- eraseText:\n    charactersToErase: sk-LEAKED-123456\n",
    "- assertVisible: [sk-LEAKED-123456]\n",
    "- extendedWaitUntil:\n    visible: x\n    platform: sk-LEAKED-123456\n",
])
def test_a_parse_error_never_echoes_a_value_of_the_file(text: str) -> None:
    """A file read by mistake (MCP run_flow, runFlow) holding a key: the error names the
    step and what is accepted, never the file's words (issue 34: 'unsupported command
    'sk-LEAKED-123456'')."""
    with pytest.raises(FlowError) as info:
        parse_flow(text)
    message = str(info.value)
    assert "LEAKED" not in message and "\n" not in message and "step 1" in message


def test_a_bad_header_or_shape_is_named() -> None:
    with pytest.raises(FlowError, match="header field 'onFlowStart'"):
        parse_flow("appId: x\nonFlowStart: []\n---\n- back\n")
    with pytest.raises(FlowError, match="YAML list"):
        parse_flow("tapOn: x\n")
    with pytest.raises(FlowError, match="repeat needs times or while"):
        parse_flow("- repeat:\n    commands: [back]\n")


def test_written_flows_read_back_the_same() -> None:
    flow = parse_flow(MAESTRO)
    text = dump_flow(flow)
    assert dump_flow(parse_flow(text)) == text
    assert parse_flow(text).commands[4].selector == flow.commands[4].selector


def test_ours_memsave_and_vars_and_secrets() -> None:
    flow = parse_flow("- memSave:\n    key: price\n    from:\n      id: price\n"
                      "- inputText: $price for $who {{secret:pin}}\n")
    assert flow.commands[0].selector == Selector(id="price")
    assert flow.variables == ["who"]  # price is saved first; a secret is no $var
    assert set(COMMANDS) >= {"launchApp", "tapOn", "inputText", "assertVisible",
                             "scrollUntilVisible", "back", "repeat", "runFlow", "retry",
                             "extendedWaitUntil", "memSave"}


def test_repeat_times_may_be_a_var_and_selector_vars_are_needed_too() -> None:
    flow = parse_flow("- repeat:\n    times: $count\n    commands: [back]\n"
                      "- tapOn:\n    desc: Like post $count\n- assertVisible: $title\n")
    assert flow.commands[0].times_var == "$count" and flow.variables == ["count", "title"]
    assert "times: $count" in dump_flow(flow)
    with pytest.raises(FlowError, match="a whole number or a \\$var"):
        parse_flow("- repeat:\n    times: many\n    commands: [back]\n")


def test_each_command_reads_into_its_own_model_holding_only_its_own_fields() -> None:
    flow = parse_flow(MAESTRO)
    assert [type(c) for c in flow.commands[:4]] == [LaunchApp, TapOn, TapOn, InputText]
    retry = flow.commands[11]
    assert isinstance(retry, Retry) and retry.max_retries == 3 and not hasattr(retry, "text")
    steps: TypeAdapter[Command] = TypeAdapter(Command)  # the union picks by the command name
    assert steps.validate_python({"name": "pressKey", "key": "enter"}) == PressKey(key="enter")
    with pytest.raises(ValidationError, match="selector"):
        steps.validate_python({"name": "pressKey", "key": "enter", "selector": None})


def test_a_yaml_error_names_the_line_not_the_files_words() -> None:
    with pytest.raises(FlowError) as info:
        parse_flow("- back\n- *sk-LEAKED-123456\n")
    message = str(info.value)
    assert "not valid YAML" in message and "line 2" in message and "LEAKED" not in message


def test_launch_app_stops_the_app_first_unless_stop_app_is_false() -> None:
    flow = parse_flow("appId: x\n---\n- launchApp\n- launchApp:\n    stopApp: false\n"
                      "- launchApp:\n    appId: y\n    stopApp: true\n")
    assert [c.stop for c in flow.commands] == [True, False, True]  # type: ignore[union-attr]
    again = parse_flow(dump_flow(flow))  # written back as Maestro reads it
    assert [c.stop for c in again.commands] == [True, False, True]  # type: ignore[union-attr]
    assert "stopApp: false" in dump_flow(flow) and dump_flow(flow).count("stopApp") == 1


def test_typing_into_a_field_is_written_in_maestro_commands_for_maestro() -> None:
    flow = parse_flow("appId: x\n---\n- inputText:\n    id: title\n    text: Hi\n"
                      "    clear: true\n")
    text = dump_flow(flow, maestro=True)
    assert text.split("---\n", 1)[1] == "- tapOn:\n    id: title\n- eraseText: 50\n" \
        "- inputText: Hi\n"
    assert "clear" in dump_flow(flow)  # our own layout keeps the one step
