"""How tests/integration/test_docs_commands.py reads a page: which lines are commands, and
what the ``docs-test`` comments above a block say."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.integration.docs_commands import blocks_in


@pytest.fixture
def page(tmp_path: Path) -> Callable[[str], Path]:
    def make(text: str) -> Path:
        path = tmp_path / f"page{len(list(tmp_path.iterdir()))}.md"
        path.write_text(text, encoding="utf-8")
        return path

    return make


def test_console_lines_after_a_prompt_are_output(page: Callable[[str], Path]) -> None:
    [block] = blocks_in(page("```console\n$ omg-agent demo\ndone: …\n$ omg-agent doctor\n```\n"))
    assert block.commands == ["omg-agent demo", "omg-agent doctor"]


def test_bash_lines_join_continuations_and_drop_comments(page: Callable[[str], Path]) -> None:
    text = "```bash\n# a comment\nomg-agent run \\\n  'x'\n\nomg-agent report\n```\n"
    [block] = blocks_in(page(text))
    assert block.commands == ["omg-agent run    'x'", "omg-agent report"]


def test_directives_above_a_block_say_how_it_runs(page: Callable[[str], Path]) -> None:
    text = ("<!-- docs-test: background -->\n"
            "<!-- docs-test: capture 127.0.0.1:1 = vphone (\\S+) -->\n"
            "```bash\nomg-agent sim serve\n```\n\ntext\n\n<!-- docs-test: skip needs a phone -->\n"
            "```bash\nomg-agent devices\n```\n")
    served, skipped = blocks_in(page(text))
    assert served.background and served.captures[0][0] == "127.0.0.1:1" and served.skip is None
    assert skipped.skip == "needs a phone" and not skipped.background


def test_a_directive_does_not_reach_past_text(page: Callable[[str], Path]) -> None:
    [block] = blocks_in(page("<!-- docs-test: skip x -->\nsome words\n\n```bash\nls\n```\n"))
    assert block.skip is None


def test_a_skip_needs_a_reason_and_a_directive_must_be_known(page: Callable[[str], Path]) -> None:
    with pytest.raises(ValueError, match="needs a reason"):
        blocks_in(page("<!-- docs-test: skip -->\n```bash\nls\n```\n"))
    with pytest.raises(ValueError, match="unknown docs-test directive 'skipp"):
        blocks_in(page("<!-- docs-test: skipp x -->\n```bash\nls\n```\n"))


def test_a_file_directive_keeps_the_blocks_text(page: Callable[[str], Path]) -> None:
    text = "<!-- docs-test: file tasks.yaml -->\n```yaml\ntasks:\n  - suite: a\n```\n"
    [block] = blocks_in(page(text))
    assert block.files == {"tasks.yaml": "tasks:\n  - suite: a\n"} and block.commands == []
