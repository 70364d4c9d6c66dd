"""What every vphone app is: a package with state, a screen stack and a view builder.

An app never draws or hit-tests itself: it builds a :class:`View` tree from its state
(``build``) and mutates its state from the handlers it attached to those views. Text fields
are named (``field_key``) and their values live in ``self.fields``, so the phone can deliver
typed text without knowing anything about the app. ``state()`` is the app's outcome record
the bench's reward checks read.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from omg_agent.vphone.hazards import active
from omg_agent.vphone.memfs import MemFS
from omg_agent.vphone.ui.kit import Kit
from omg_agent.vphone.ui.view import View


@dataclass
class AppEnv:
    """What an app may ask of the phone (and nothing more)."""

    rng: random.Random
    clock: Callable[[], float]
    launch: Callable[[str], bool]  # start another app by package
    go_home: Callable[[], None]
    locale: Callable[[], str]
    settings: dict[str, dict[str, str]] = field(default_factory=dict)
    fs: MemFS = field(default_factory=MemFS)  # the phone's files (/sdcard, as adb sees them)


@dataclass
class Screen:
    name: str
    params: dict = field(default_factory=dict)


class App:
    package: str = ""
    label: str = ""
    label_zh: str = ""
    glyph: str = "?"
    color: tuple[int, int, int] = (120, 120, 120)
    activities: dict[str, str] = {"main": ".MainActivity"}

    def __init__(self, env: AppEnv) -> None:
        self.env = env
        self.fields: dict[str, str] = {}
        self._focus: str | None = None
        # The soft keyboard is up. BACK hides it and the field keeps focus (keys and typed
        # text still go to it), as on a phone; focusing a field shows it again.
        self.ime_shown = False
        self.stack: list[Screen] = []
        self.reset_data()
        self.reset_ui()

    # -- lifecycle -----------------------------------------------------------------------
    def reset_data(self) -> None:
        """Forget everything the user saved (``pm clear``)."""

    def reset_ui(self) -> None:
        """Back to the first screen, as after a force-stop."""
        self.stack = [Screen("main")]
        self.fields = {}
        self.focus = None

    def on_launch(self) -> None:
        """Called each time the app comes to the foreground from the launcher."""

    def frame_key(self) -> tuple:
        """Extra cache key for screens that change with time alone (spinners, timers)."""
        return ()

    def moving(self) -> bool:
        """Whether the screen moves by itself now (a turning spinner): not still."""
        return False

    @property
    def focus(self) -> str | None:
        """The key of the edit field that has input focus, or None."""
        return self._focus

    @focus.setter
    def focus(self, key: str | None) -> None:
        self._focus = key
        self.ime_shown = key is not None

    # -- navigation ----------------------------------------------------------------------
    @property
    def screen(self) -> Screen:
        return self.stack[-1]

    def push(self, name: str, **params) -> None:
        self.stack.append(Screen(name, params))
        self.focus = None

    def replace(self, name: str, **params) -> None:
        self.stack[-1] = Screen(name, params)
        self.focus = None

    def back(self) -> bool:
        """Handle BACK; False means the app has nothing left to pop and should close."""
        if self.ime_shown:
            self.ime_shown = False
            return True
        if len(self.stack) > 1:
            self.stack.pop()
            return True
        return False

    def activity(self) -> str:
        return self.activities.get(self.screen.name, self.activities["main"])

    # -- text fields ---------------------------------------------------------------------
    def field(self, key: str) -> str:
        return self.fields.get(key, "")

    def set_field(self, key: str, value: str) -> None:
        self.fields[key] = value

    def on_enter(self, key: str) -> bool:
        """ENTER pressed in a field; return True if handled (e.g. submits a search)."""
        return False

    def multiline(self, key: str) -> bool:
        return False

    # -- content -------------------------------------------------------------------------
    def t(self, en: str, zh: str) -> str:
        return zh if self.env.locale().startswith("zh") else en

    def title(self) -> str:
        return self.t(self.label, self.label_zh)

    def hazard(self, name: str) -> bool:
        """Whether hazard ``name`` (see :mod:`omg_agent.vphone.hazards`) is switched on."""
        return name in active(self.env.settings)

    def animated(self) -> bool:
        """Whether animations run: ``settings put global animator_duration_scale 0`` (as
        on many test phones) stops them, so a spinner stands still in every frame."""
        scale = self.env.settings.get("global", {}).get("animator_duration_scale", "1")
        try:
            return float(scale) > 0
        except ValueError:
            return True

    def build(self, kit: Kit) -> View:
        raise NotImplementedError

    def state(self) -> dict:
        return {}
