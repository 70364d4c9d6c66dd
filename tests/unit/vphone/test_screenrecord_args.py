"""screenrecord's options are read as Android's tool reads them (issue 29)."""

from __future__ import annotations

import pytest

from omg_agent.vphone.screenrecord import DEFAULT_BIT_RATE, RecordOptions
from omg_agent.vphone.shell.commands.screenrecord_cmd import _Usage, parse_args


def test_defaults_are_an_mp4_at_20_mbps_for_180_seconds() -> None:
    assert parse_args(["/sdcard/a.mp4"]) == (RecordOptions(), "/sdcard/a.mp4", False)
    assert RecordOptions().bit_rate == DEFAULT_BIT_RATE == 20_000_000


def test_every_option_in_both_spellings() -> None:
    opts, path, verbose = parse_args(["--size", "720x1600", "--bit-rate=4M", "--time-limit",
                                      "0", "--output-format", "h264", "--verbose", "-"])
    assert opts == RecordOptions(size=(720, 1600), bit_rate=4_000_000, time_limit=0,
                                 fmt="h264")
    assert (path, verbose) == ("-", True)


@pytest.mark.parametrize(("args", "message"), [
    ([], "Must specify output file"),
    (["--size", "721x1600", "a.mp4"], "Invalid size '721x1600'"),
    (["--bit-rate", "lots", "a.mp4"], "Invalid bit rate 'lots'"),
    (["--time-limit", "181", "a.mp4"], "Invalid time limit '181'"),
    (["--output-format=webm", "a.webm"], "Unknown format 'webm'"),
    (["-"], "mp4 cannot be written to stdout"),
    (["--fast", "a.mp4"], "unrecognized option '--fast'"),
    (["--size"], "requires an argument"),
])
def test_bad_arguments_say_what_is_wrong(args: list[str], message: str) -> None:
    with pytest.raises(_Usage, match=message):
        parse_args(args)
