"""Device profiles for the vphone: screen geometry, identity props and command latencies.

A profile says what the virtual phone pretends to be. The latency table holds per-command
delays taken from commonly published real-device measurements (USB 2, mid-range phone,
Android 12–14): they are applied only when a phone is started with ``latency=True`` (the
benchmarks do; unit tests don't), so harness choices can be compared with realistic costs.
The transition durations are used when the phone's motion is on (``motion.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Seconds per command kind on a real device over USB. Sources: adb screencap -p spends most of
# its time in on-device PNG encoding (~0.5–1 s at 1080x2400); raw screencap is bound by the
# ~10 MB transfer (~0.2–0.3 s); `uiautomator dump` waits for idle and starts a VM (~1–2 s);
# a trivial `adb shell` round trip costs ~30–50 ms over USB. `input` depends on the release:
# up to Android 11 each call started a Java VM through app_process (~0.3–0.5 s); since Android
# 12 `/system/bin/input` is a script around `cmd input`, a binder call (~50 ms).
# The uiautomator2 server keeps one UiAutomation connection open, so its hierarchy dump skips
# the VM start and idle wait of `uiautomator dump` (~0.2–0.4 s) and its screenshot is a JPEG
# encoded on the device, a much smaller transfer than a raw frame (~0.15–0.25 s).
REAL_DEVICE_LATENCY: dict[str, float] = {
    "screencap_png": 0.65,
    "screencap_raw": 0.22,
    "dump": 1.4,
    "u2_dump": 0.3,
    "u2_screenshot": 0.18,
    "input": 0.05,
    "dumpsys": 0.12,
    "shell": 0.04,
}
LEGACY_INPUT_LATENCY = 0.35  # Android <= 11 (sdk <= 30): `input` starts app_process


@dataclass(frozen=True)
class DeviceProfile:
    name: str
    width: int
    height: int
    density: int
    model: str
    brand: str
    manufacturer: str
    device: str
    product: str
    sdk: int
    release: str
    serialno: str
    status_bar_height: int
    nav_bar_height: int
    latency: dict[str, float] = field(default_factory=lambda: dict(REAL_DEVICE_LATENCY))
    # Screen transitions (see motion.py): an activity open/close animation lasts ~150-350 ms
    # on phones at animation scale 1; after a launch the app stays busy (first layout, data)
    # a little longer, which `uiautomator dump` waits out.
    transition_ms: int = 300
    launch_busy_ms: int = 250

    def __post_init__(self) -> None:
        if self.sdk <= 30 and self.latency == REAL_DEVICE_LATENCY:
            self.latency["input"] = LEGACY_INPUT_LATENCY

    @property
    def scale(self) -> float:
        """Pixels per dp."""
        return self.density / 160.0

    def px(self, dp: float) -> int:
        return round(dp * self.scale)

    def props(self) -> dict[str, str]:
        """The ``getprop`` table a phone of this profile starts with."""
        return {
            "ro.product.model": self.model, "ro.product.brand": self.brand,
            "ro.product.manufacturer": self.manufacturer, "ro.product.name": self.product,
            "ro.product.device": self.device, "ro.build.version.sdk": str(self.sdk),
            "ro.build.version.release": self.release, "ro.serialno": self.serialno,
            "ro.product.cpu.abi": "x86_64", "ro.sf.lcd_density": str(self.density),
            "ro.build.characteristics": "default", "ro.debuggable": "1",
            "ro.secure": "1", "sys.boot_completed": "1", "persist.sys.locale": "en-US",
            "ro.build.fingerprint": (f"omg/{self.product}/{self.device}:{self.release}/OMG/"
                                     f"{self.sdk}:user"),
        }


PROFILES: dict[str, DeviceProfile] = {
    "default": DeviceProfile(
        name="default", width=1080, height=2400, density=440, model="vPhone 1",
        brand="omg", manufacturer="OMG", device="vphone", product="vphone_x86_64",
        sdk=34, release="14", serialno="VPHONE0001", status_bar_height=110, nav_bar_height=66,
    ),
    "compact": DeviceProfile(
        name="compact", width=720, height=1600, density=320, model="vPhone Compact",
        brand="omg", manufacturer="OMG", device="vphone_compact", product="vphone_compact",
        sdk=33, release="13", serialno="VPHONE0002", status_bar_height=72, nav_bar_height=48,
    ),
    "legacy": DeviceProfile(
        name="legacy", width=1080, height=2340, density=440, model="vPhone Legacy",
        brand="omg", manufacturer="OMG", device="vphone_legacy", product="vphone_legacy",
        sdk=29, release="10", serialno="VPHONE0004", status_bar_height=96, nav_bar_height=132,
        transition_ms=350, launch_busy_ms=400,
    ),
    "tablet": DeviceProfile(
        name="tablet", width=1600, height=2560, density=320, model="vPhone Tab",
        brand="omg", manufacturer="OMG", device="vphone_tab", product="vphone_tab",
        sdk=34, release="14", serialno="VPHONE0003", status_bar_height=64, nav_bar_height=64,
    ),
}


def get_profile(name: str) -> DeviceProfile:
    try:
        return PROFILES[name]
    except KeyError:
        known = ", ".join(sorted(PROFILES))
        raise ValueError(f"unknown vphone profile {name!r}; known profiles: {known}") from None
