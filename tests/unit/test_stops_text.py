"""Text a terminal sends or shows (issue 38 items 3, 7): a task whose bytes did not decode
in the locale is refused in one line (it reached Python as lone surrogates); a currency sign
the terminal's encoding lacks is spelled as its code, not "?"."""

from __future__ import annotations

import io

import pytest

from omg_agent.brain.agent import check_task, check_text
from omg_agent.errors import ConfigError


def test_a_task_with_undecoded_bytes_is_refused_in_one_line() -> None:
    task = b"\xe6\x89\x93\xe5\xbc\x80 Settings".decode("ascii", "surrogateescape")
    with pytest.raises(ConfigError) as caught:
        check_task(task)
    assert "\n" not in str(caught.value) and "at character 1" in str(caught.value)
    assert "LC_ALL=C.UTF-8" in str(caught.value)


def test_text_in_any_script_is_accepted() -> None:
    check_task("打开设置，关闭蓝牙 ¥12")
    check_text("是", "the answer")


@pytest.mark.parametrize("encoding, shown", [("gbk", "price CNY12, 5 EUR"),
                                             ("ascii", "price CNY12, 5 EUR"),
                                             ("latin-1", "price ¥12, 5 EUR")])
def test_a_currency_sign_the_terminal_cannot_show_is_spelled(encoding: str,
                                                             shown: str) -> None:
    import omg_agent.cli.console  # noqa: F401 - registers the handler safe_streams sets

    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding=encoding, errors="omg-spelled")
    stream.write("price ¥12, 5 €")
    stream.flush()
    assert raw.getvalue().decode(encoding) == shown
