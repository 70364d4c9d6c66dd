"""Flow and plan files have limits — size, nesting, alias expansion, steps — and a file past
one fails at once with one line naming the limit (issue 24, item 8)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from omg_agent.brain.planner import load_plan_file
from omg_agent.errors import ConfigError, FlowError
from omg_agent.flows.parse import MAX_STEPS, load_flow, parse_flow
from omg_agent.userfiles import MAX_BYTES, MAX_DEPTH, MAX_NODES, load_documents

pytestmark = pytest.mark.timeout(5)


def laughs(levels: int, fan: int = 10) -> str:
    """A flow whose runFlow bodies alias the level below: ``fan ** levels`` back steps from
    a file of a few hundred bytes."""
    lines = ["- &a0 back"]
    for i in range(1, levels + 1):
        body = ", ".join([f"*a{i - 1}"] * fan)
        lines.append(f"- &a{i} {{runFlow: {{commands: [{body}]}}}}")
    return "\n".join(lines) + "\n"


def one_line(exc: pytest.ExceptionInfo[BaseException]) -> str:
    text = str(exc.value)
    assert "\n" not in text and len(text) < 300, text
    return text


def test_a_billion_laughs_flow_is_refused_before_it_is_expanded() -> None:
    text = laughs(9)  # 10⁹ steps once expanded
    assert len(text) < 3_000
    with pytest.raises(FlowError) as exc:
        parse_flow(text, source="bomb.yaml")
    assert f"more than {MAX_NODES:,} YAML nodes" in one_line(exc)
    assert "aliases" in str(exc.value)


def test_a_million_step_flow_made_with_aliases_is_refused() -> None:
    with pytest.raises(FlowError) as exc:
        parse_flow(laughs(6), source="million.yaml")  # 10⁶ steps
    assert "YAML nodes" in one_line(exc)


def test_a_flow_of_more_steps_than_the_limit_is_refused_naming_it() -> None:
    with pytest.raises(FlowError) as exc:
        parse_flow("- back\n" * (MAX_STEPS + 1), source="long.yaml")
    assert f"limit of {MAX_STEPS:,}" in one_line(exc)
    assert len(parse_flow("- back\n" * MAX_STEPS).commands) == MAX_STEPS


@pytest.mark.parametrize("text", ["[" * 5000 + "]" * 5000, "- " * 5000 + "back",
                                  "{a: " * 5000 + "}" * 5000])
def test_a_5000_deep_document_is_refused(text: str) -> None:
    with pytest.raises(FlowError) as exc:
        parse_flow(text, source="deep.yaml")
    assert "nesting depth" in one_line(exc) or f"{MAX_DEPTH} levels" in str(exc.value)


def test_nesting_just_inside_the_limit_reads_and_one_past_it_does_not() -> None:
    inside = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert load_documents(inside, "t")
    with pytest.raises(ConfigError, match=f"more than {MAX_DEPTH} levels deep"):
        load_documents("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "t")


def test_an_alias_deepens_what_it_is_used_in() -> None:
    half = MAX_DEPTH // 2 + 1
    text = "a: &deep " + "[" * half + "]" * half + "\nb: " + "[" * half + "*deep" + "]" * half
    with pytest.raises(ConfigError, match="levels deep"):
        load_documents(text, "t")


def test_a_recursive_alias_is_refused() -> None:
    with pytest.raises(ConfigError) as exc:
        load_documents("- &loop [back, *loop]\n", "t")
    assert "recursive alias" in one_line(exc)


def test_shared_aliases_within_the_limit_still_read() -> None:
    flow = parse_flow(laughs(2, fan=3))  # 1 + 3 + 9 commands, aliases used as meant
    assert sum(1 for c in flow.commands if c.name == "back") == 1


def test_a_file_over_the_size_limit_is_refused_reading_at_most_the_limit(tmp_path: Path
                                                                         ) -> None:
    big = tmp_path / "big.yaml"
    big.write_bytes(b"- back\n" * (MAX_BYTES // 7 + 1))
    with pytest.raises(FlowError) as exc:
        load_flow(big)
    assert "larger than the limit of 1 MiB" in one_line(exc)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_dev_zero_as_a_flow_or_a_plan_is_refused_at_once() -> None:
    with pytest.raises(FlowError) as exc:
        load_flow(Path("/dev/zero"))
    assert "not a regular file" in one_line(exc)
    with pytest.raises(ConfigError) as exc:
        load_plan_file(Path("/dev/zero"))
    assert one_line(exc).startswith("plan file /dev/zero is not a regular file")


def test_a_fifo_with_no_writer_is_refused_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "flow.yaml"
    os.mkfifo(fifo)
    with pytest.raises(FlowError, match="not a regular file"):
        load_flow(fifo)


def test_a_folder_or_a_missing_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(FlowError, match="is a folder"):
        load_flow(tmp_path)
    with pytest.raises(FlowError, match="does not exist"):
        load_flow(tmp_path / "nope.yaml")


def test_broken_yaml_is_one_line_with_its_position() -> None:
    with pytest.raises(FlowError) as exc:
        parse_flow("- tapOn: [Save\n- back\n", source="f.yaml")
    assert "not valid YAML" in one_line(exc) and "line " in str(exc.value)


@pytest.mark.parametrize("text", ["- eraseText: {charactersToErase: many}\n",
                                  "- retry: {maxRetries: [1], commands: [back]}\n",
                                  "- tapOn: {text: Save, index: first}\n",
                                  "- runFlow: {when: {visible: x, platform: 3}, commands: "
                                  "[back]}\n",
                                  "1: x\nappId: y\n---\n- back\n", "- ? [a]\n  : b\n"])
def test_a_field_of_the_wrong_kind_is_a_flow_error_not_a_crash(text: str) -> None:
    with pytest.raises(FlowError) as exc:
        parse_flow(text)
    one_line(exc)


def test_repeat_times_past_the_limit_is_refused() -> None:
    with pytest.raises(FlowError, match="times passes the limit"):
        parse_flow("- repeat: {times: 1000000000, commands: [back]}\n")


def test_a_plan_file_passes_the_same_limits(tmp_path: Path) -> None:
    bomb = tmp_path / "plan.yaml"
    bomb.write_text("goal: g\n" + laughs(9).replace("- &a0", "steps:\n- &a0"))
    with pytest.raises(ConfigError) as exc:
        load_plan_file(bomb)
    assert "YAML nodes" in one_line(exc) and str(bomb) in str(exc.value)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 5000 + "]" * 5000)
    with pytest.raises(ConfigError) as exc:
        load_plan_file(deep)
    one_line(exc)


def test_a_json_plan_reads_like_yaml(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    path.write_text('{"goal": "g", "steps": [{"description": "Open Settings", '
                    '"success_criteria": "Settings shows"}]}')
    assert load_plan_file(path).steps[0].description == "Open Settings"
