"""A fleet's vphone slot: the fresh vphone of one suite task, published like a started one.

While a suite task runs on the slot ``vphone-LABEL``, its in-process vphone is listed by
``omg-agent vphone list`` (a record in the vphone run folder, with ``fleet_device``) and can
be stopped with ``omg-agent vphone stop --port PORT`` — as a phone can be unplugged. A stop
closes the phone: the run loses its device, and the fleet retries the task elsewhere.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from omg_agent.durable import write_atomic
from omg_agent.vphone.control import ControlServer
from omg_agent.vphone.daemon import record_path
from omg_agent.vphone.phone import VirtualPhone


@dataclass
class SlotPhone:
    """The running vphone of a slot; ``stopped`` is set once someone stopped it."""

    device: str
    serial: str
    stopped: threading.Event = field(default_factory=threading.Event)


@contextmanager
def published(phone: VirtualPhone, serial: str, device: str,
              seen: list[SlotPhone] | None = None) -> Iterator[SlotPhone]:
    """Publish ``phone`` (serving adb as ``serial``) as the vphone of slot ``device``; the
    slot is also appended to ``seen`` (so a caller learns whether it was stopped)."""
    slot = SlotPhone(device, serial)
    if seen is not None:
        seen.append(slot)

    def stop() -> None:
        slot.stopped.set()
        phone.close()

    control = ControlServer(phone, stop)
    control.start()
    port = int(serial.rpartition(":")[2])
    path = record_path(port)
    record = {"port": port, "control_port": control.port, "pid": os.getpid(),
              "serial": serial, "seed": phone.seed,
              "profile": "default", "latency": False, "fleet_device": device}
    write_atomic(path, json.dumps(record), sync=False)
    try:
        yield slot
    finally:
        path.unlink(missing_ok=True)
        control.stop()
