"""Framing of the ADB transport protocol, device side.

Pure functions and constants, no sockets: the 24-byte message header (pack, unpack, checks),
the CNXN banner the device announces itself with, service-name parsing, and the shell
protocol v2 packet format. ``adbd.py`` moves these frames over TCP; ``sync_service.py``
speaks the file-sync sub-protocol inside a stream.

A message is ``command, arg0, arg1, data_length, data_crc32, magic`` (six little-endian
uint32) followed by ``data_length`` payload bytes. ``data_crc32`` is really the byte sum of
the payload; peers at version >= ``VERSION_SKIP_CHECKSUM`` may send 0 instead.
"""

from __future__ import annotations

import shlex
import struct
from collections.abc import Iterable
from dataclasses import dataclass

A_SYNC = 0x434E5953
A_CNXN = 0x4E584E43
A_OPEN = 0x4E45504F
A_OKAY = 0x59414B4F
A_CLSE = 0x45534C43
A_WRTE = 0x45545257
A_AUTH = 0x48545541
A_STLS = 0x534C5453

COMMAND_NAMES = {
    A_SYNC: "SYNC", A_CNXN: "CNXN", A_OPEN: "OPEN", A_OKAY: "OKAY",
    A_CLSE: "CLSE", A_WRTE: "WRTE", A_AUTH: "AUTH", A_STLS: "STLS",
}

VERSION_MIN = 0x01000000
VERSION_SKIP_CHECKSUM = 0x01000001
DEVICE_VERSION = VERSION_SKIP_CHECKSUM
DEVICE_MAX_PAYLOAD = 256 * 1024
# The largest payload we accept from a peer before calling it a protocol error.
MAX_ACCEPTED_PAYLOAD = 1024 * 1024

HEADER = struct.Struct("<6I")
HEADER_SIZE = HEADER.size

# Features this adbd really implements; the backend's banner should not claim more.
DEVICE_FEATURES = (
    "shell_v2", "cmd", "stat_v2", "ls_v2", "fixed_push_mkdir",
    "fixed_push_symlink_timestamp", "abb", "abb_exec",
)


class ProtocolError(Exception):
    """The peer sent something that is not a valid ADB frame."""


@dataclass(frozen=True)
class Message:
    command: int
    arg0: int
    arg1: int
    data: bytes = b""

    @property
    def name(self) -> str:
        return COMMAND_NAMES.get(self.command, f"0x{self.command:08x}")


@dataclass(frozen=True)
class Header:
    command: int
    arg0: int
    arg1: int
    data_length: int
    data_check: int
    magic: int


def checksum(data: bytes) -> int:
    """The 'crc32' field of the ADB header, which is a plain byte sum."""
    return sum(data) & 0xFFFFFFFF


def pack_header(command: int, arg0: int, arg1: int, data: bytes, *,
                with_checksum: bool) -> bytes:
    check = checksum(data) if with_checksum else 0
    return HEADER.pack(command, arg0 & 0xFFFFFFFF, arg1 & 0xFFFFFFFF, len(data), check,
                       command ^ 0xFFFFFFFF)


def pack_message(msg: Message, *, with_checksum: bool = True) -> bytes:
    return pack_header(msg.command, msg.arg0, msg.arg1, msg.data,
                       with_checksum=with_checksum) + msg.data


def unpack_header(raw: bytes, *, max_payload: int = MAX_ACCEPTED_PAYLOAD) -> Header:
    """Decode and sanity-check a 24-byte header."""
    if len(raw) != HEADER_SIZE:
        raise ProtocolError(f"header must be {HEADER_SIZE} bytes, got {len(raw)}")
    header = Header(*HEADER.unpack(raw))
    if header.magic != header.command ^ 0xFFFFFFFF:
        raise ProtocolError(f"bad magic 0x{header.magic:08x} for command "
                            f"0x{header.command:08x}")
    if header.data_length > max_payload:
        raise ProtocolError(f"payload of {header.data_length} bytes exceeds {max_payload}")
    return header


def verify_payload(header: Header, data: bytes, version: int) -> None:
    """Check the byte sum when one was sent.

    A zero sum is always accepted: a reconnecting adb server still uses the version it had
    negotiated before, so its first CNXN already skips the checksum.
    """
    if header.data_check == 0 or version >= VERSION_SKIP_CHECKSUM:
        return
    if header.data_check != checksum(data):
        raise ProtocolError("payload checksum mismatch")


def device_banner(product: str, model: str, device: str,
                  features: Iterable[str] = DEVICE_FEATURES) -> bytes:
    """The CNXN payload a device sends; ``adb devices -l`` shows these three properties."""
    props = f"ro.product.name={product};ro.product.model={model};ro.product.device={device};"
    return f"device::{props}features={','.join(features)}".encode()


def service_name(open_payload: bytes) -> str:
    """The service an OPEN asks for: its payload less the one trailing NUL.

    Inner NULs are kept: ``abb_exec:`` separates its arguments with them.
    """
    raw = open_payload[:-1] if open_payload.endswith(b"\0") else open_payload
    return raw.decode("utf-8", "replace")


def parse_host_banner(data: bytes) -> dict[str, str]:
    """Split the host's ``host::features=a,b`` CNXN payload into its properties."""
    text = data.rstrip(b"\0").decode("utf-8", "replace")
    _, _, props = text.partition("::")
    out: dict[str, str] = {}
    for item in props.split(";"):
        key, sep, value = item.partition("=")
        if sep:
            out[key] = value
    return out


# -- services -------------------------------------------------------------------------------

@dataclass(frozen=True)
class ShellRequest:
    """A parsed ``shell[,opts]:cmd`` or ``exec:cmd`` service name."""

    command: str
    protocol_v2: bool = False
    pty: bool = False
    term: str | None = None


def parse_shell_service(name: str) -> ShellRequest | None:
    """Parse ``shell:cmd``, ``shell,v2,TERM=xterm-256color,raw:cmd``, ``exec:cmd``, and the
    binder bridge ``abb_exec:a\0b`` / ``abb:a\0b`` (run as ``cmd a b``)."""
    if name.startswith("exec:"):
        return ShellRequest(name[len("exec:"):])
    for prefix, v2 in (("abb_exec:", False), ("abb:", True)):
        if name.startswith(prefix):
            args = [a for a in name[len(prefix):].split("\0") if a]
            return ShellRequest(shlex.join(["cmd", *args]), protocol_v2=v2)
    if name == "shell":
        return ShellRequest("", pty=True)
    if not name.startswith(("shell:", "shell,")):
        return None
    head, _, command = name.partition(":")
    v2 = False
    term = None
    pty: bool | None = None
    for opt in head.split(",")[1:]:
        if opt == "v2":
            v2 = True
        elif opt == "raw":
            pty = False
        elif opt == "pty":
            pty = True
        elif opt.startswith("TERM="):
            term = opt[len("TERM="):]
    if pty is None:
        pty = command == ""  # adbd's default: interactive sessions get a pty
    return ShellRequest(command, protocol_v2=v2, pty=pty, term=term)


LOCAL_HOSTS = ("", "localhost", "127.0.0.1", "::1", "0.0.0.0")


def parse_tcp_service(name: str) -> int | None:
    """Port of ``tcp:<port>``, ``tcp:<port>:<host>`` or ``tcp:<host>:<port>`` (local hosts only)."""
    if not name.startswith("tcp:"):
        return None
    parts = name[len("tcp:"):].split(":")
    if len(parts) == 1:
        port_text, host = parts[0], ""
    elif len(parts) == 2:
        port_text, host = (parts[0], parts[1]) if parts[0].isdigit() else (parts[1], parts[0])
    else:
        return None
    if not port_text.isdigit() or host not in LOCAL_HOSTS:
        return None
    port = int(port_text)
    return port if 0 < port < 65536 else None


# -- shell protocol v2 ------------------------------------------------------------------------

SHELL_STDIN = 0
SHELL_STDOUT = 1
SHELL_STDERR = 2
SHELL_EXIT = 3
SHELL_CLOSE_STDIN = 4
SHELL_WINDOW_SIZE = 5
SHELL_PACKET_HEADER = struct.Struct("<BI")


def shell_packet(kind: int, data: bytes) -> bytes:
    return SHELL_PACKET_HEADER.pack(kind, len(data)) + data


class ShellPacketParser:
    """Reassembles shell-v2 packets from stream chunks that may split or join them."""

    def __init__(self) -> None:
        self._buf = bytearray()

    def feed(self, data: bytes) -> list[tuple[int, bytes]]:
        self._buf.extend(data)
        packets = []
        size = SHELL_PACKET_HEADER.size
        while len(self._buf) >= size:
            kind, length = SHELL_PACKET_HEADER.unpack_from(self._buf)
            if len(self._buf) < size + length:
                break
            packets.append((kind, bytes(self._buf[size:size + length])))
            del self._buf[:size + length]
        return packets
