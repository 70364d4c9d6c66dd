"""Output that cannot fail a command (issue 25): marks the terminal can show, JSON valid in
any encoding, streams that replace what they cannot encode, printing errors that leave the
exit code alone."""

from __future__ import annotations

import io
import json
import sys

import pytest

from omg_agent.cli.console import print_json, printing_cannot_fail, safe_streams, symbol


def _terminal(encoding: str) -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(), encoding=encoding)


def test_a_mark_falls_back_to_ascii_where_the_terminal_cannot_show_it() -> None:
    assert symbol("✔", "OK", _terminal("gbk")) == "OK"
    assert symbol("✔", "OK", _terminal("iso-8859-1")) == "OK"
    assert symbol("✔", "OK", _terminal("utf-8")) == "✔"
    assert symbol("○", "[ ]", _terminal("gbk")) == "○"  # GBK has this one


def test_streams_replace_what_their_encoding_lacks_instead_of_raising(
        monkeypatch: pytest.MonkeyPatch) -> None:
    out, err = _terminal("gbk"), _terminal("iso-8859-1")
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    safe_streams()
    print("✔ 打开蓝牙 done")
    print("✔ done", file=sys.stderr)
    out.flush()
    err.flush()
    assert out.buffer.getvalue().decode("gbk") == "? 打开蓝牙 done\n"  # type: ignore[attr-defined]
    assert err.buffer.getvalue() == b"? done\n"  # type: ignore[attr-defined]


def test_json_is_ascii_and_means_the_same(capsys: pytest.CaptureFixture[str]) -> None:
    print_json({"task": "打开蓝牙", "mark": "✔"})
    line = capsys.readouterr().out
    assert line.isascii() and json.loads(line) == {"task": "打开蓝牙", "mark": "✔"}


@pytest.mark.parametrize("error", [BrokenPipeError(32, "Broken pipe"),
                                   UnicodeEncodeError("gbk", "✔", 0, 1, "illegal"),
                                   SystemExit(1)])
def test_an_error_while_printing_is_swallowed(error: BaseException,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdout", _terminal("utf-8"))  # no fd: going quiet is a no-op
    with printing_cannot_fail():
        raise error
