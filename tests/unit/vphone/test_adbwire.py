"""ADB framing: headers, banners, service names and shell-v2 packets, without sockets."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from omg_agent.vphone.adbwire import (
    A_CNXN,
    A_OKAY,
    A_WRTE,
    HEADER_SIZE,
    SHELL_EXIT,
    SHELL_STDOUT,
    VERSION_MIN,
    VERSION_SKIP_CHECKSUM,
    Message,
    ProtocolError,
    ShellPacketParser,
    checksum,
    device_banner,
    pack_message,
    parse_host_banner,
    parse_shell_service,
    parse_tcp_service,
    service_name,
    shell_packet,
    unpack_header,
    verify_payload,
)


def test_header_is_24_little_endian_words_with_inverted_magic() -> None:
    raw = pack_message(Message(A_WRTE, 5, 9, b"ab"))
    assert len(raw) == HEADER_SIZE + 2
    words = struct.unpack("<6I", raw[:HEADER_SIZE])
    assert words == (A_WRTE, 5, 9, 2, ord("a") + ord("b"), A_WRTE ^ 0xFFFFFFFF)
    assert raw[:4] == b"WRTE"


@given(st.sampled_from([A_CNXN, A_OKAY, A_WRTE]), st.integers(0, 2**32 - 1),
       st.integers(0, 2**32 - 1), st.binary(max_size=300))
def test_header_round_trips(command: int, arg0: int, arg1: int, data: bytes) -> None:
    raw = pack_message(Message(command, arg0, arg1, data))
    header = unpack_header(raw[:HEADER_SIZE])
    assert (header.command, header.arg0, header.arg1, header.data_length) == (
        command, arg0, arg1, len(data))
    verify_payload(header, raw[HEADER_SIZE:], VERSION_MIN)


def test_bad_magic_and_oversized_payload_are_protocol_errors() -> None:
    raw = bytearray(pack_message(Message(A_OKAY, 1, 2)))
    raw[20] ^= 1
    with pytest.raises(ProtocolError, match="magic"):
        unpack_header(bytes(raw))
    big = pack_message(Message(A_WRTE, 1, 2, b"x" * 10))[:HEADER_SIZE]
    with pytest.raises(ProtocolError, match="exceeds"):
        unpack_header(big, max_payload=4)


def test_checksum_is_checked_only_when_sent_before_skip_version() -> None:
    raw = pack_message(Message(A_WRTE, 1, 2, b"hello"), with_checksum=False)
    header = unpack_header(raw[:HEADER_SIZE])
    verify_payload(header, b"hello", VERSION_MIN)  # zero: a reconnecting host skips it
    wrong = unpack_header(struct.pack("<6I", A_WRTE, 1, 2, 5, 1, A_WRTE ^ 0xFFFFFFFF))
    verify_payload(wrong, b"hello", VERSION_SKIP_CHECKSUM)
    with pytest.raises(ProtocolError, match="checksum"):
        verify_payload(wrong, b"hello", VERSION_MIN)
    assert checksum(b"\xff\x01") == 256


def test_banner_and_host_banner() -> None:
    banner = device_banner("p", "M 1", "d", ["shell_v2", "cmd"])
    assert banner == (b"device::ro.product.name=p;ro.product.model=M 1;ro.product.device=d;"
                      b"features=shell_v2,cmd")
    assert parse_host_banner(b"host::features=shell_v2,cmd\0") == {"features": "shell_v2,cmd"}


@pytest.mark.parametrize(("name", "command", "v2", "pty", "term"), [
    ("shell:echo hi", "echo hi", False, False, None),
    ("shell:", "", False, True, None),
    ("shell", "", False, True, None),
    ("shell,v2,raw:ls -l", "ls -l", True, False, None),
    ("shell,v2,TERM=xterm-256color,pty:", "", True, True, "xterm-256color"),
    ("shell,v2,TERM=xterm-256color,raw:a:b", "a:b", True, False, "xterm-256color"),
    ("shell,v2:getprop", "getprop", True, False, None),
    ("exec:screencap -p", "screencap -p", False, False, None),
    ("abb_exec:package\0install\0-S\x0012", "cmd package install -S 12", False, False, None),
    ("abb:settings\0get\0global\0x y", "cmd settings get global 'x y'", True, False, None),
])
def test_shell_service_forms(name: str, command: str, v2: bool, pty: bool,
                             term: str | None) -> None:
    req = parse_shell_service(name)
    assert req is not None
    assert (req.command, req.protocol_v2, req.pty, req.term) == (command, v2, pty, term)


@pytest.mark.parametrize("name", ["sync:", "shellx:ls", "tcp:9008", "reboot:", ""])
def test_non_shell_services_are_not_shell(name: str) -> None:
    assert parse_shell_service(name) is None


@pytest.mark.parametrize(("name", "port"), [
    ("tcp:9008", 9008), ("tcp:9008:localhost", 9008), ("tcp:127.0.0.1:9008", 9008),
    ("tcp:9008:example.com", None), ("tcp:0", None), ("tcp:70000", None), ("tcp:x", None),
    ("localabstract:foo", None), ("tcp:1:2:3", None),
])
def test_tcp_service_forms(name: str, port: int | None) -> None:
    assert parse_tcp_service(name) == port


def test_service_name_keeps_inner_nuls_and_drops_the_terminator() -> None:
    assert service_name(b"shell:ls\0") == "shell:ls"
    assert service_name(b"abb_exec:a\0b\0") == "abb_exec:a\0b"
    assert service_name(b"sync:") == "sync:"


@given(st.lists(st.tuples(st.integers(0, 5), st.binary(max_size=50)), max_size=8),
       st.lists(st.integers(1, 7), min_size=1, max_size=5))
def test_shell_packets_reassemble_however_the_stream_is_cut(
        packets: list[tuple[int, bytes]], cuts: list[int]) -> None:
    raw = b"".join(shell_packet(kind, data) for kind, data in packets)
    parser = ShellPacketParser()
    out: list[tuple[int, bytes]] = []
    pos, i = 0, 0
    while pos < len(raw):
        step = cuts[i % len(cuts)]
        out.extend(parser.feed(raw[pos:pos + step]))
        pos += step
        i += 1
    assert out == packets


def test_exit_packet_layout() -> None:
    assert shell_packet(SHELL_EXIT, b"\x07") == b"\x03\x01\x00\x00\x00\x07"
    assert shell_packet(SHELL_STDOUT, b"") == b"\x01\x00\x00\x00\x00"
