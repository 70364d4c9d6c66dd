"""VirtualPhone: the simulated Android device behind vphone's ADB server.

It owns the apps, the foreground task, text focus, the file system, props and settings, and
turns input events (tap, swipe, key, text) into app state changes. Everything that touches
UI state holds ``self.lock``, so adbd stream threads, the uiautomator2 server and host-side
test code can all drive one phone at once. The phone knows nothing about sockets: ``serve``
hands it to :class:`~omg_agent.vphone.adbd.AdbdServer`, and the shell (``phone.shell``)
parses command lines into these methods.
"""

from __future__ import annotations

import logging
import random
import threading
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING

from PIL import Image

from omg_agent.vphone.apps import default_apps
from omg_agent.vphone.apps.base import App, AppEnv
from omg_agent.vphone.apps.browser import BrowserApp
from omg_agent.vphone.apps.launcher import Launcher
from omg_agent.vphone.backend import AdbdBackendMixin
from omg_agent.vphone.display import Display, Frame
from omg_agent.vphone.editing import Editing
from omg_agent.vphone.focus import KeyFocus
from omg_agent.vphone.hazards import SETTING as HAZARD_SETTING
from omg_agent.vphone.hazards import check as check_hazards
from omg_agent.vphone.input_events import InputEvents
from omg_agent.vphone.logbuf import LogBuffer, Processes
from omg_agent.vphone.memfs import MemFS
from omg_agent.vphone.motion import Motion
from omg_agent.vphone.notices import Notices
from omg_agent.vphone.power import Power
from omg_agent.vphone.profile import DeviceProfile, get_profile
from omg_agent.vphone.system import SystemOverlay
from omg_agent.vphone.system_surfaces import SystemSurfaces
from omg_agent.vphone.ui.kit import Kit
from omg_agent.vphone.ui.view import View

if TYPE_CHECKING:
    from omg_agent.vphone.adbd import AdbdServer
    from omg_agent.vphone.shell import Shell
    from omg_agent.vphone.u2server import U2Server

log = logging.getLogger(__name__)

LATIN_IME = "com.android.inputmethod.latin/.LatinIME"
ADB_IME = "com.android.adbkeyboard/.AdbIME"


class VirtualPhone(InputEvents, AdbdBackendMixin):
    def __init__(self, profile: str | DeviceProfile = "default", *, seed: int = 0,
                 latency: bool = False, motion: bool | None = None,
                 reports_idle: bool | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        """``motion`` (default: same as ``latency``): gestures last their duration and
        screens animate (see motion.py); off keeps unit tests fast. ``reports_idle``
        (default: without motion) answers ``vphone-idle``, so a driver need not watch the
        frames for a quiet window (a phone with motion is watched, as a real one is)."""
        self.profile = get_profile(profile) if isinstance(profile, str) else profile
        self.seed = seed
        self.latency_enabled = latency
        self.extra_latency = 0.0
        self.clock = clock
        self.lock = threading.RLock()
        self.fs = MemFS()
        self.props = self.profile.props()
        # every phone has its own serial number (the device lease keys on it)
        self.props["ro.serialno"] = f"{self.profile.serialno}{uuid.uuid4().hex[:8].upper()}"
        self.settings: dict[str, dict[str, str]] = {
            "system": {"screen_brightness": "153", "screen_brightness_mode": "1",
                       "system_locales": "en-US"},
            "secure": {"default_input_method": LATIN_IME,
                       "enabled_input_methods": f"{LATIN_IME}:{ADB_IME}"},
            "global": {"adb_enabled": "1", "device_name": self.profile.model,
                       "wifi_on": "1", "bluetooth_on": "0", "window_animation_scale": "1.0",
                       "transition_animation_scale": "1.0", "animator_duration_scale": "1.0"},
            "_about": {"Model": self.profile.model, "Android version": self.profile.release,
                       "Build number": f"OMG.{self.profile.sdk}.{seed}"},
        }
        self.ime_ids = [LATIN_IME, ADB_IME]
        self.rng = random.Random(seed)
        self.log = LogBuffer(clock)
        self.procs = Processes(self.log, seed)
        self.surfaces = SystemSurfaces(self)
        env = AppEnv(rng=self.rng, clock=clock, launch=self.start_activity,
                     go_home=self.go_home, locale=self.locale, settings=self.settings,
                     fs=self.fs, system=self.surfaces)
        self.apps: dict[str, App] = {a.package: a for a in default_apps(env)}
        self.launcher = Launcher(env, list(self.apps.values()))
        self.apps[self.launcher.package] = self.launcher
        self.foreground = self.launcher.package
        self.overlay = SystemOverlay(self)
        self.notices = Notices(self)
        self.editing = Editing(self)
        self.power = Power(self)
        self.display = Display(self.profile, clock)
        self.motion = Motion(self, latency if motion is None else motion)
        self.reports_idle = not self.motion.enabled if reports_idle is None else reports_idle
        self.motion.observe()
        self.procs.start(self.launcher.package, self.launcher.activity())
        self._version = 0
        self.keyfocus = KeyFocus()  # Tab / D-pad focus (vphone.focus)
        self._offline_until = 0.0
        self._tcp: dict[int, int] = {}
        self._u2: dict[int, U2Server] = {}
        self._shell: Shell | None = None
        self.adbd: AdbdServer | None = None

    # -- identity ------------------------------------------------------------------------
    def locale(self) -> str:
        return self.settings["system"].get("system_locales", "en-US").split(",")[0]

    def set_locale(self, locale: str) -> None:
        with self.lock:
            self.settings["system"]["system_locales"] = locale
            self.props["persist.sys.locale"] = locale
            self.changed()

    @property
    def ime_current(self) -> str:
        return self.settings["secure"]["default_input_method"]

    def set_ime(self, ime_id: str) -> bool:
        if ime_id not in self.ime_ids:
            return False
        self.settings["secure"]["default_input_method"] = ime_id
        return True

    # -- frame ---------------------------------------------------------------------------
    def changed(self) -> None:
        self._version += 1
        self.motion.observe()

    @property
    def app(self) -> App:
        return self.apps[self.foreground]

    def _frame(self) -> Frame:
        app = self.app
        key = (self._version, app.package, app.frame_key(),
               self.settings["global"].get(HAZARD_SETTING, ""), self.notices.frame_key(),
               self.power.frame_key(), self.motion.frame_key())
        return self.display.frame(key, self._build, caret=app.focus is not None)

    def _build(self) -> View:
        if self.power.blocking:
            return self.power.build(Kit(self.profile, "com.android.systemui"))
        root = self.app.build(Kit(self.profile, self.app.package))
        # Every app window's views sit in the framework's content frame, as on a phone.
        content = View(root.cls, root.bounds, resource_id="android:id/content",
                       package=root.package, children=root.children)
        root.children = [content]
        self.motion.apply(root)
        banner = self.notices.build(Kit(self.profile, "com.android.systemui"))
        if banner is not None:
            root.add(banner)
        surface = self.surfaces.build(lambda pkg: Kit(self.profile, pkg))
        if surface is not None:
            root.add(surface)
        dialog = self.overlay.build(Kit(self.profile, "android"))
        if dialog is not None:
            root.add(dialog)
        self.keyfocus.mark(root)
        return root

    def view_tree(self) -> View:
        with self.lock:
            return self._frame().root

    def screenshot(self) -> Image.Image:
        with self.lock:
            return self.display.image(self._frame())

    def screen_frame(self) -> tuple[tuple, Image.Image]:
        """The current frame's key and picture: the key changes whenever the pixels may."""
        with self.lock:
            frame = self._frame()
            return frame.key, self.display.image(frame)

    def screencap_raw(self) -> bytes:
        with self.lock:
            return self.display.raw(self._frame())

    def frame_digest(self) -> str:
        """md5 of :meth:`screencap_raw` (cached with the frame)."""
        with self.lock:
            return self.display.digest(self._frame())

    def screencap_png(self) -> bytes:
        with self.lock:
            return self.display.png(self._frame())

    def dump_xml(self) -> str:
        with self.lock:
            return self.display.xml(self._frame())

    # -- apps ----------------------------------------------------------------------------
    def packages(self) -> list[str]:
        return sorted(self.apps)

    browser_package = BrowserApp.package  # what VIEW intents of http(s) links open

    def open_url(self, url: str) -> bool:
        """A link opened from outside (``am start -a VIEW -d URL``): the browser loads it."""
        with self.lock:
            if not self.start_activity(self.browser_package):
                return False
            browser = self.apps[self.browser_package]
            assert isinstance(browser, BrowserApp)
            browser.load(url)
            self.changed()
            return True

    def launchable(self) -> dict[str, str]:
        """package → the activity its launcher icon starts (MAIN/LAUNCHER); not the home app."""
        return {p: a.activities["main"] for p, a in self.apps.items()
                if p != self.launcher.package}

    def focus(self) -> tuple[str, str]:
        with self.lock:
            if (shade := self.power.package()) is not None:
                return shade, ".NotificationShade"
            if self.overlay.package() is None and (surface := self.surfaces.package()):
                return surface, self.surfaces.activity()
            pkg = self.overlay.package() or self.foreground
            app = self.apps.get(pkg, self.app)
            return pkg, app.activity() if pkg == app.package else ".AppNotRespondingDialog"

    def start_activity(self, package: str, activity: str | None = None) -> bool:
        with self.lock:
            app = self.apps.get(package)
            if app is None:
                return False
            if activity and activity not in app.activities.values():
                return False
            self.overlay.dismiss()
            launching = self.foreground != package
            self.foreground = package
            if package != self.launcher.package:
                app.on_launch()
            if launching:
                self.procs.launched(package, app.activity(), self.profile.transition_ms
                                    + self.profile.launch_busy_ms)
            self.changed()
            return True

    def go_home(self) -> None:
        with self.lock:
            self.foreground = self.launcher.package
            self.procs.start(self.launcher.package, self.launcher.activity())
            self.changed()

    def force_stop(self, package: str) -> None:
        with self.lock:
            app = self.apps.get(package)
            if app is None:
                return
            app.reset_ui()
            self.surfaces.app_stopped(package)
            self.procs.force_stopped(package)
            if self.foreground == package:
                self.go_home()
            self.changed()

    def clear_app(self, package: str) -> bool:
        with self.lock:
            app = self.apps.get(package)
            if app is None:
                return False
            app.reset_data()
            self.force_stop(package)
            return True

    def set_wifi(self, on: bool) -> None:
        with self.lock:
            self.apps["com.android.settings"].wifi = on  # type: ignore[attr-defined]
            self.settings["global"]["wifi_on"] = "1" if on else "0"
            self.changed()

    def set_hazards(self, *names: str) -> None:
        """Switch on exactly these hazards (none: all off); see :mod:`..hazards`."""
        check_hazards(names)
        with self.lock:
            self.settings["global"][HAZARD_SETTING] = ",".join(names)
            self.changed()

    def enable_hazard(self, name: str) -> None:
        with self.lock:
            have = [h for h in self.settings["global"].get(HAZARD_SETTING, "").split(",") if h]
            self.set_hazards(*dict.fromkeys([*have, name]))

    def state(self) -> dict:
        with self.lock:
            pkg, activity = self.focus()
            return {"foreground": pkg, "activity": activity, "ime": self.ime_current,
                    "locale": self.locale(), "overlay": self.overlay.title(),
                    "notification": self.notices.state(), "screen": self.power.state(),
                    "system": self.surfaces.state(),
                    "apps": {p: st for p, a in self.apps.items() if (st := a.state())}}

    # -- faults and timing ---------------------------------------------------------------
    def command_latency(self, kind: str) -> float:
        base = self.profile.latency.get(kind, 0.0) if self.latency_enabled else 0.0
        return base + self.extra_latency

    @property
    def online(self) -> bool:
        return self.clock() >= self._offline_until

    def go_offline(self, seconds: float) -> None:
        self._offline_until = self.clock() + seconds
        if self.adbd is not None:
            self.adbd.drop_transports()

    def drop_transports(self) -> None:
        if self.adbd is not None:
            self.adbd.drop_transports()

    def crash_foreground(self) -> None:
        with self.lock:
            self.procs.crashed(self.foreground)
            self.overlay.crash(self.foreground)

    def show_anr(self, package: str | None = None) -> None:
        with self.lock:
            self.overlay.anr(package or self.foreground)

    def screen_off(self, *, lock: bool = True, pin: str | None = None) -> None:
        """Turn the screen off (POWER); locked unless ``lock`` is False; ``pin`` sets the
        keyguard's PIN ("" = swipe to unlock)."""
        with self.lock:
            if pin is not None:
                self.power.pin = pin
            self.power.sleep(lock)
