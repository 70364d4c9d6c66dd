"""The AT-SPI accessibility bus, spoken over D-Bus with jeepney (pure Python, no GObject).

Linux desktops publish their accessibility trees on a bus of their own: the session bus's
``org.a11y.Bus`` service (``at-spi-bus-launcher`` from ``at-spi2-core``) hands out its
address, every GTK app (atk-bridge) and every Qt app (``QT_ACCESSIBILITY=1``, or the
session's ``org.a11y.Status.IsEnabled``) registers there, and the registry lists them.
:class:`AtspiBus` finds that bus — ``$AT_SPI_BUS_ADDRESS``, else the ``AT_SPI_BUS``
property of the X root window, else the session bus's ``org.a11y.Bus.GetAddress`` — and
makes calls on it. :meth:`AtspiBus.calls` sends a batch of calls at once and then reads
their replies (one round trip per batch, not per call: a tree of 300 nodes is read in a
few dozen milliseconds instead of a few hundred). A failed call answers ``None``.

:class:`Ref` names one accessible object: the bus name of its app and its object path.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Sequence
from typing import Any, NamedTuple

from omg_agent.errors import DeviceError

log = logging.getLogger(__name__)

ACCESSIBLE = "org.a11y.atspi.Accessible"
REGISTRY = "org.a11y.atspi.Registry"
ROOT_PATH = "/org/a11y/atspi/accessible/root"
NULL_PATH = "/org/a11y/atspi/null"
CALL_TIMEOUT_S = 2.0
ENABLE_WAIT_S = 0.5  # apps that only now see IsEnabled register within this


class Ref(NamedTuple):
    """One accessible object: its app's bus name and its object path."""

    bus: str
    path: str

    @property
    def null(self) -> bool:
        return not self.bus or self.path == NULL_PATH


class Call(NamedTuple):
    ref: Ref
    interface: str
    method: str
    signature: str = ""
    args: tuple[Any, ...] = ()


def _jeepney() -> Any:
    try:
        import jeepney
        import jeepney.io.blocking
    except ImportError as e:
        raise DeviceError("the accessibility tree needs jeepney: pip install "
                          "'omg-agent[desktop]'", serial="desktop", command="at-spi") from e
    return jeepney


def bus_address(display: str | None = None) -> str | None:
    """The accessibility bus's address: the environment's, the X root window's, or the
    one the session bus's ``org.a11y.Bus`` gives (starting it when it is activatable)."""
    if os.environ.get("AT_SPI_BUS_ADDRESS"):
        return os.environ["AT_SPI_BUS_ADDRESS"]
    from_x = _x_root_address(display)
    if from_x:
        return from_x
    if not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        return None
    jeepney = _jeepney()
    try:
        with jeepney.io.blocking.open_dbus_connection("SESSION") as conn:
            bus = jeepney.DBusAddress("/org/a11y/bus", "org.a11y.Bus", "org.a11y.Bus")
            reply = conn.send_and_get_reply(jeepney.new_method_call(bus, "GetAddress"),
                                            timeout=CALL_TIMEOUT_S)
            if reply.header.message_type != jeepney.MessageType.method_return:
                return None
            _enable(jeepney, conn)
            return str(reply.body[0])
    except (OSError, TimeoutError, ValueError, KeyError) as e:
        log.debug("no accessibility bus on the session bus: %s", e)
        return None


def _enable(jeepney: Any, conn: Any) -> None:
    """Say an assistive technology is on (``org.a11y.Status.IsEnabled``): Qt apps and
    some GTK builds register with the accessibility bus only then."""
    status = jeepney.DBusAddress("/org/a11y/bus", "org.a11y.Bus", "org.a11y.Status")
    props = jeepney.Properties(status)
    reply = conn.send_and_get_reply(props.get("IsEnabled"), timeout=CALL_TIMEOUT_S)
    if reply.body and reply.body[0] == ("b", True):
        return
    conn.send_and_get_reply(props.set("IsEnabled", "b", True), timeout=CALL_TIMEOUT_S)
    time.sleep(ENABLE_WAIT_S)  # nothing to await: the apps register when they notice


def _x_root_address(display: str | None) -> str | None:
    name = display or os.environ.get("DISPLAY")
    if not name:
        return None
    try:
        from Xlib import X
        from Xlib import display as xdisplay
        d = xdisplay.Display(name)
    except Exception:  # noqa: BLE001 - no X, no address from it
        return None
    try:
        atom = d.intern_atom("AT_SPI_BUS", only_if_exists=True)
        if not atom:
            return None
        prop = d.screen().root.get_full_property(atom, X.AnyPropertyType)
        return bytes(prop.value).decode() if prop is not None and prop.value else None
    finally:
        d.close()


class AtspiBus:
    """A connection to the accessibility bus at ``address``."""

    def __init__(self, address: str) -> None:
        self._j = _jeepney()
        try:
            self._conn = self._j.io.blocking.open_dbus_connection(address)
        except (OSError, TimeoutError, ValueError) as e:
            raise DeviceError(f"cannot open the accessibility bus {address}: {e}",
                              serial="desktop", command="at-spi") from e
        self._serial = 1 << 20

    def call(self, call: Call) -> Any:
        return self.calls([call])[0]

    def calls(self, calls: Sequence[Call]) -> list[Any]:
        """Each call's reply body (one value when the body holds one), ``None`` for an
        error; all calls sent before the first reply is read."""
        j = self._j
        serials: dict[int, int] = {}
        wire = []
        for i, c in enumerate(calls):
            addr = j.DBusAddress(c.ref.path, bus_name=c.ref.bus, interface=c.interface)
            msg = j.new_method_call(addr, c.method, c.signature or None, c.args)
            self._serial += 1
            serials[self._serial] = i
            wire.append(msg.serialise(serial=self._serial))
        self._conn.sock.sendall(b"".join(wire))  # one write for the whole batch
        out: list[Any] = [None] * len(calls)
        deadline = time.monotonic() + CALL_TIMEOUT_S
        while serials:
            try:
                msg = self._conn.receive(timeout=max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                log.debug("at-spi: %d calls unanswered", len(serials))
                break
            i = serials.pop(msg.header.fields.get(j.HeaderFields.reply_serial, -1), -1)
            if i < 0:
                continue  # a signal
            if msg.header.message_type == j.MessageType.method_return:
                body = msg.body
                out[i] = body[0] if len(body) == 1 else body
        return out

    def unix_pid(self, bus: str) -> int:
        """The process id behind a bus name (0 when the bus cannot say)."""
        j = self._j
        reply = self._conn.send_and_get_reply(
            j.new_method_call(j.bus_messages.message_bus, "GetConnectionUnixProcessID",
                              "s", (bus,)), timeout=CALL_TIMEOUT_S)
        ok = reply.header.message_type == j.MessageType.method_return
        return int(reply.body[0]) if ok else 0

    def names(self) -> list[str]:
        """Every connection on the bus (its unique names and well-known names)."""
        j = self._j
        reply = self._conn.send_and_get_reply(
            j.new_method_call(j.bus_messages.message_bus, "ListNames"),
            timeout=CALL_TIMEOUT_S)
        ok = reply.header.message_type == j.MessageType.method_return
        return [str(n) for n in reply.body[0]] if ok else []

    def apps(self) -> list[Ref]:
        """The apps the registry knows."""
        children = self.call(Call(Ref(REGISTRY, ROOT_PATH), ACCESSIBLE, "GetChildren"))
        return [Ref(*c) for c in children or ()]

    def close(self) -> None:
        self._conn.close()
