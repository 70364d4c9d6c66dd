"""One ADB stream (an opened service) on a device transport, with its flow control.

The transport's reader thread feeds a stream what the host sends (``on_data``, ``on_okay``,
``on_peer_close``); the service thread behind the stream uses ``write``/``read``/``close``.
Flow control is the classic one-in-flight rule: after a WRTE the device waits for the host's
OKAY before sending the next WRTE on that stream, and it answers each host WRTE with an OKAY
once the data was taken (``read``) or handled (``data_handler``).
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from typing import Protocol

from omg_agent.vphone.adbwire import A_CLSE, A_OKAY, A_WRTE

logger = logging.getLogger(__name__)


class StreamLink(Protocol):
    """What a stream needs from its transport."""

    @property
    def max_payload(self) -> int: ...

    def send_message(self, command: int, arg0: int, arg1: int, data: bytes = b"") -> None: ...

    def release(self, stream: AdbStream) -> None: ...


class AdbStream:
    """Device end of one stream: ``local_id`` is ours, ``remote_id`` the host's."""

    def __init__(self, link: StreamLink, local_id: int, remote_id: int, service: str) -> None:
        self.link = link
        self.local_id = local_id
        self.remote_id = remote_id
        self.service = service
        self.cancelled = threading.Event()
        # When set, host data goes straight to this callable and is acknowledged at once,
        # instead of waiting in the inbox for ``read``.
        self.data_handler: Callable[[bytes], None] | None = None
        self._cond = threading.Condition()
        self._can_send = True
        self._closed = False
        self._inbox: deque[bytes] = deque()

    def __repr__(self) -> str:
        return f"<AdbStream {self.local_id}->{self.remote_id} {self.service!r}>"

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def max_payload(self) -> int:
        return self.link.max_payload

    # -- service side ------------------------------------------------------------------------
    def write(self, data: bytes) -> None:
        """Send ``data`` as one or more WRTE packets; BrokenPipeError once the stream closed."""
        view = memoryview(data)
        step = max(1, self.max_payload)
        for start in range(0, len(view), step):
            with self._cond:
                while not self._can_send and not self._closed:
                    self._cond.wait()
                if self._closed:
                    raise BrokenPipeError(f"stream {self.service!r} closed")
                self._can_send = False
            self._send(A_WRTE, bytes(view[start:start + step]))

    def read(self, timeout: float | None = None) -> bytes | None:
        """Next chunk from the host; b"" once closed, None if ``timeout`` passed first."""
        with self._cond:
            if not self._cond.wait_for(lambda: self._inbox or self._closed, timeout):
                return None
            if not self._inbox:
                return b""
            data = self._inbox.popleft()
        self._acknowledge()
        return data

    def close(self) -> None:
        """Close from the device side: tell the host (CLSE) and wake everyone waiting."""
        if self._mark_closed():
            self._send_quietly(A_CLSE)

    # -- transport side ----------------------------------------------------------------------
    def on_okay(self) -> None:
        with self._cond:
            self._can_send = True
            self._cond.notify_all()

    def on_data(self, data: bytes) -> None:
        handler = self.data_handler
        if handler is not None:
            handler(data)
            self._acknowledge()
            return
        with self._cond:
            self._inbox.append(data)
            self._cond.notify_all()

    def on_peer_close(self) -> None:
        # Answering with our own CLSE mirrors adbd; the host ignores it for a gone socket.
        if self._mark_closed():
            self._send_quietly(A_CLSE)

    def abort(self) -> None:
        """The transport died: nothing can be sent any more, just wake the service."""
        self._mark_closed()

    # -- internals ---------------------------------------------------------------------------
    def _mark_closed(self) -> bool:
        with self._cond:
            if self._closed:
                return False
            self._closed = True
            self._cond.notify_all()
        self.cancelled.set()
        self.link.release(self)
        return True

    def _acknowledge(self) -> None:
        if not self._closed:
            self._send_quietly(A_OKAY)

    def _send(self, command: int, data: bytes = b"") -> None:
        try:
            self.link.send_message(command, self.local_id, self.remote_id, data)
        except OSError as exc:
            self.abort()
            raise BrokenPipeError(f"transport gone: {exc}") from exc

    def _send_quietly(self, command: int) -> None:
        try:
            self.link.send_message(command, self.local_id, self.remote_id)
        except OSError as exc:
            logger.debug("%r: could not send 0x%08x: %s", self, command, exc)
            self.abort()
