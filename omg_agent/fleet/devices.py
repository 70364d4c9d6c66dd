"""The devices of a fleet: what each is called, where it is, and what it offers.

A device is named by the part after ``omg-device:`` in its Ray custom resource (Ray's own
convention for "this node has one of these"): ``vphone-<label>`` is a slot on the node for
the suite's fresh vphones; ``<serial>`` is a phone the node's adb server sees;
``<serial>@<host>:<port>`` is a phone a remote adb server sees (``adb -H host -P port``).
``omg-agent fleet resources`` prints the JSON a node gives to ``ray start --resources``.
A task's needs (device profile, app) are matched against the census each device answers
on its own node (:func:`census`), which also reads the phone's lease keys (its address
and ``ro.serialno``): :func:`one_per_phone` keeps one name of a phone given twice.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from omg_agent.errors import ConfigError

RESOURCE_PREFIX = "omg-device:"
VPHONE_PREFIX = "vphone-"
VPHONE_PROFILE = "vphone"
# what a device name may hold: a serial (letters, digits, . : - _), optionally @host:port
_NAME = re.compile(r"^[A-Za-z0-9._:\-]{1,100}(@[A-Za-z0-9.\-]{1,100}:\d{1,5})?$")


@dataclass(frozen=True)
class FleetDevice:
    """One device: its ``name``, the Ray node that owns it ('' in a local pool), and the
    profile and app packages its census reported."""

    name: str
    node: str = ""
    profile: str = ""
    apps: tuple[str, ...] = ()
    keys: tuple[str, ...] = ()  # the phone's lease keys (omg_agent.drivers.lease)

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise ConfigError(f"device {self.name[:120]!r}: a device is 'vphone-LABEL', an "
                              "adb serial, or SERIAL@HOST:PORT for a remote adb server")

    @property
    def resource(self) -> str:
        """The Ray custom resource that stands for this device."""
        return RESOURCE_PREFIX + self.name

    @property
    def is_vphone(self) -> bool:
        return self.name.startswith(VPHONE_PREFIX)

    def adb_address(self) -> tuple[str, str | None, int | None]:
        """(serial, adb server host, adb server port); host and port None: the local one."""
        serial, at, server = self.name.partition("@")
        if not at:
            return serial, None, None
        host, _, port = server.rpartition(":")
        return serial, host, int(port)

    def matches(self, profile: str | None, app: str | None) -> bool:
        """Whether this device offers what a task needs (both optional)."""
        if profile and profile.lower() != self.profile.lower():
            return False
        return not app or app in self.apps


def adb_client(device: FleetDevice):  # -> adbutils.AdbClient (imported late: cheap CLI)
    import adbutils

    _, host, port = device.adb_address()
    if host is None:
        return adbutils.AdbClient()
    return adbutils.AdbClient(host=host, port=port or 5037)


def census(device: FleetDevice) -> FleetDevice:
    """``device`` with its profile and app packages, read where it is (on its node).

    A vphone slot offers the vphone's apps under the profile ``vphone``; a phone reports its
    ``ro.product.model`` and ``pm list packages``. A phone that does not answer is returned
    as it is (no profile, no apps): only tasks without needs go to it."""
    if device.is_vphone:
        from omg_agent.vphone.apps import APP_CLASSES

        return replace(device, profile=VPHONE_PROFILE,
                       apps=tuple(sorted(c.package for c in APP_CLASSES if c.package)))
    from adbutils.errors import AdbError

    from omg_agent.drivers.lease import lease_keys, serialno_of

    serial, host, port = device.adb_address()
    client = adb_client(device)
    keys = lease_keys(serial, serialno_of(serial, client), f"{host}:{port}" if host else "")
    try:
        if serial not in {d.serial for d in client.device_list()}:
            return replace(device, keys=keys)  # unknown to its server: no questions asked
        phone = client.device(serial)
        model = phone.prop.model or ""
        packages = tuple(sorted(phone.list_packages()))
    except (AdbError, OSError):
        return replace(device, keys=keys)
    return replace(device, profile=model, apps=packages, keys=keys)


def _identity(device: FleetDevice) -> set[str]:
    """Its lease keys as seen fleet-wide: an address (``HOST:PORT``) names a phone of its
    own node (127.0.0.1 on two hosts is two phones); a serial number is global."""
    return {f"{device.node}/{k}" if ":" in k else k for k in device.keys}


def one_per_phone(devices: Sequence[FleetDevice]) -> tuple[list[FleetDevice], list[str]]:
    """The devices with each phone once (two names sharing a lease key are one phone: the
    first name is kept), and a note for each name dropped."""
    kept: list[FleetDevice] = []
    notes: list[str] = []
    for device in devices:
        same = next((k for k in kept if _identity(k) & _identity(device)), None)
        if same is None:
            kept.append(device)
        else:
            notes.append(f"{device.name} is the same phone as {same.name}: used once, "
                         f"as {same.name}")
    return kept, notes


def attached(device: FleetDevice) -> bool:
    """Whether the device is still there (its adb server calls it ``device``); a vphone
    slot always is (each task brings its own vphone)."""
    if device.is_vphone:
        return True
    from adbutils.errors import AdbError

    serial, _, _ = device.adb_address()
    try:
        return adb_client(device).device(serial).get_state() == "device"
    except (AdbError, OSError):
        return False


def local_devices(serials: Iterable[str], vphones: int = 0) -> list[FleetDevice]:
    """Named devices plus ``vphones`` vphone slots (``vphone-1`` …)."""
    devices = [FleetDevice(s) for s in serials]
    devices += [FleetDevice(f"{VPHONE_PREFIX}{i}") for i in range(1, vphones + 1)]
    names = [d.name for d in devices]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ConfigError("a device is named twice: " + ", ".join(twice))
    return devices


def seen_by_adb(host: str | None = None, port: int | None = None) -> list[str]:
    """Device names for the phones an adb server sees (``@host:port`` when remote)."""
    import adbutils

    client = (adbutils.AdbClient() if host is None
              else adbutils.AdbClient(host=host, port=port or 5037))
    suffix = "" if host is None else f"@{host}:{port or 5037}"
    return [d.serial + suffix for d in client.device_list()]


def resources_json(devices: Sequence[FleetDevice]) -> str:
    """What ``ray start --resources`` takes: one unit of each device's resource."""
    return json.dumps({d.resource: 1 for d in devices})


def from_resources(resources: dict[str, float], node: str) -> list[FleetDevice]:
    """The devices a Ray node's resources name (a name that is no device is skipped)."""
    out = []
    for key in sorted(resources):
        if key.startswith(RESOURCE_PREFIX):
            try:
                out.append(FleetDevice(key[len(RESOURCE_PREFIX):], node=node))
            except ConfigError:
                continue
    return out
