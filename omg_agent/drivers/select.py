"""Choosing the driver for a device: ``--driver adb | u2 | auto``.

``auto`` first makes sure the device has a probed profile in ``profile_dir`` (probing it
once, :mod:`omg_agent.drivers.probe`); if that profile already records a driver choice, that
driver is used. Otherwise both drivers observe the current screen a few times, the faster
median wins, and the decision is written into the probed profile, so the measurement runs
once per device model. The uiautomator2 driver competes only if its server starts and
answers; if it fails, the ADB driver is used (and the reason is recorded).
"""

from __future__ import annotations

import logging
import statistics
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import adbutils

from omg_agent.drivers.adb import AdbDriver
from omg_agent.drivers.base import Driver
from omg_agent.drivers.ports import InputJudge
from omg_agent.drivers.probe import parse_getprop, probe_profile
from omg_agent.drivers.profiles import (
    DeviceProfileSpec,
    default_profile_dir,
    load_profile,
    match_profile,
    profile_name_for,
    update_profile,
)
from omg_agent.drivers.u2 import U2Driver
from omg_agent.errors import DeviceError

log = logging.getLogger(__name__)

Preference = Literal["adb", "u2", "auto"]
SAMPLES = 3  # timed observes per driver, after one warm-up


def _identity(device: adbutils.AdbDevice) -> tuple[str, str]:
    try:
        props = parse_getprop(device.shell("getprop"))
    except adbutils.AdbError as e:
        raise DeviceError(str(e), serial=device.serial, command="getprop") from e
    return props.get("ro.product.brand", "").strip().lower(), props.get("ro.product.model", "")


def known_profile(device: adbutils.AdbDevice, profile_dir: Path) -> DeviceProfileSpec | None:
    """The device's probed profile if ``profile_dir`` has one, else a matching shipped one."""
    brand, model = _identity(device)
    name = profile_name_for(brand, model)
    if (profile_dir / f"{name}.yaml").is_file():
        return load_profile(name, [profile_dir])
    return match_profile(model, brand)


def device_profile(device: adbutils.AdbDevice, profile_dir: Path) -> DeviceProfileSpec:
    """The device's probed profile from ``profile_dir``, probing (and saving) it if absent."""
    name = profile_name_for(*_identity(device))
    if (profile_dir / f"{name}.yaml").is_file():
        return load_profile(name, [profile_dir])
    return probe_profile(device, profile_dir)


def build_driver(kind: Literal["adb", "u2"], serial: str, *,
                 profile: DeviceProfileSpec | None, client: adbutils.AdbClient,
                 ocr: Any = None, grace_s: float = 30.0,
                 judge: InputJudge | None = None) -> Driver:
    """One driver, wired with the profile's bars and app aliases and the choke point
    ``judge`` every input passes (:mod:`omg_agent.guards.choke`: the composition root gives
    it); it rides out device drops for ``grace_s`` seconds (the u2 driver while observing)."""
    if kind == "u2":
        return U2Driver(serial, client=client, profile=profile, ocr=ocr, grace_s=grace_s,
                        judge=judge)
    return AdbDriver(serial, client=client, profile=profile, ocr=ocr, grace_s=grace_s,
                     judge=judge)


def observe_ms(driver: Driver, samples: int = SAMPLES) -> float:
    """Median wall time of ``samples`` observes, after one warm-up."""
    driver.observe()
    times = []
    for _ in range(samples):
        start = time.perf_counter()
        driver.observe()
        times.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(times), 1)


def choose_driver(serial: str, prefer: Preference = "auto", *,
                  profile_dir: Path | None = None, client: adbutils.AdbClient | None = None,
                  ocr: Any = None, samples: int = SAMPLES, grace_s: float = 30.0,
                  judge: InputJudge | None = None) -> Driver:
    """The driver to use for ``serial`` (see the module docstring for ``auto``); a
    ``desktop`` / ``desktop=…`` serial is the desktop driver (:mod:`.desktop`). Every
    input it sends passes ``judge`` (the choke point)."""
    from omg_agent.drivers.desktop import is_desktop, open_desktop

    if is_desktop(serial):
        return open_desktop(serial, ocr=ocr, judge=judge)
    client = client if client is not None else adbutils.AdbClient()
    profile_dir = profile_dir if profile_dir is not None else default_profile_dir()
    if prefer != "auto":
        profile = known_profile(client.device(serial), profile_dir)
        return build_driver(prefer, serial, profile=profile, client=client, ocr=ocr,
                            grace_s=grace_s, judge=judge)

    profile = device_profile(client.device(serial), profile_dir)
    if profile.driver is not None:
        kind = profile.driver.preferred
        log.info("%s: driver %s (measured %s)", serial, kind, profile.driver.measured_at)
        try:
            return build_driver(kind, serial, profile=profile, client=client, ocr=ocr,
                                grace_s=grace_s, judge=judge)
        except DeviceError as e:
            if kind == "adb":
                raise
            log.warning("%s: the u2 driver did not start (%s); using adb", serial, e)
            return build_driver("adb", serial, profile=profile, client=client, ocr=ocr,
                                grace_s=grace_s, judge=judge)
    return _measure_and_choose(serial, profile, profile_dir, client, ocr, samples, grace_s,
                               judge)


def _measure_and_choose(serial: str, profile: DeviceProfileSpec, profile_dir: Path,
                        client: adbutils.AdbClient, ocr: Any, samples: int,
                        grace_s: float = 30.0, judge: InputJudge | None = None) -> Driver:
    adb = build_driver("adb", serial, profile=profile, client=client, ocr=ocr,
                       grace_s=grace_s, judge=judge)
    try:
        adb_ms = observe_ms(adb, samples)
    except BaseException:
        adb.close()
        raise
    u2: Driver | None = None
    u2_ms, u2_error = None, ""
    try:
        u2 = build_driver("u2", serial, profile=profile, client=client, ocr=ocr, judge=judge)
        u2_ms = observe_ms(u2, samples)
    except DeviceError as e:
        u2_error = str(e)[:300]
        log.info("%s: the u2 driver is not usable: %s", serial, u2_error)
        if u2 is not None:
            u2.close()
            u2 = None
    winner, loser = (u2, adb) if u2 is not None and u2_ms is not None and u2_ms < adb_ms \
        else (adb, u2)
    if loser is not None:
        loser.close()
    choice = "u2" if winner is u2 else "adb"
    update_profile(profile.name, profile_dir, driver={
        "preferred": choice, "adb_observe_ms": adb_ms, "u2_observe_ms": u2_ms,
        "u2_error": u2_error, "measured_at": datetime.now(UTC).isoformat(timespec="seconds")})
    log.info("%s: observe takes %.1f ms with adb, %s with u2: using %s", serial, adb_ms,
             f"{u2_ms:.1f} ms" if u2_ms is not None else "n/a", choice)
    return winner
