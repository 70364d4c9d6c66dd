"""Desktop drivers: the same core drives a Linux X11 desktop and (untested) a Mac.

``--device desktop`` (this machine's display: ``$DISPLAY`` on Linux, the main display on
macOS), ``--device desktop=:99`` (an X display) or ``--device desktop=local`` pick it;
``,ocr`` after the display (``desktop=:99,ocr``) reads an X display by OCR only, never its
accessibility tree (``,tree``, the default, reads the tree first);
:func:`open_desktop` turns such a spec into a :class:`DesktopDriver`. The parts:
:mod:`.backend` (the adapter interface and the one pixel/point scale), :mod:`.driver`,
:mod:`.port` (actions as mouse, wheel and keys), :mod:`.keys`, :mod:`.x11` and
:mod:`.x11clip` (Linux), :mod:`.atspi` with :mod:`.atspi_bus`, :mod:`.atspi_tree` and
:mod:`.atspi_elements` (the Linux accessibility tree, over D-Bus), :mod:`.atspi_session`
(a private Xvfb and session bus for tests and ``bench desktop``), :mod:`.mac` and
:mod:`.mac_adapter` (macOS, pyobjc only there), :mod:`.testapp` (the Tk app the tests and
the benchmark drive).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported on use: `--device` checks cost nothing for phone runs
    from omg_agent.drivers.desktop.driver import DesktopDriver

__all__ = ["DesktopDriver", "is_desktop", "open_desktop"]

PREFIX = "desktop"
PERCEPTIONS = ("tree", "ocr")  # after a comma: the tree first (default), or OCR only


def is_desktop(spec: str | None) -> bool:
    """Whether a ``--device`` value names a desktop (``desktop``, ``desktop=…``)."""
    return bool(spec) and (spec == PREFIX or str(spec).startswith(PREFIX + "="))


def open_desktop(spec: str = PREFIX, **options: Any) -> DesktopDriver:
    """The driver for ``desktop``, ``desktop=local``, ``desktop=:99`` or ``desktop=mac``,
    each optionally followed by ``,ocr`` or ``,tree`` (how an X display is read);
    :class:`~omg_agent.errors.ConfigError` names what is accepted."""
    from omg_agent.errors import ConfigError

    accepted = ("use desktop, desktop=local, desktop=:N (an X display) or desktop=mac, "
                "optionally followed by ,ocr or ,tree (desktop=:99,ocr)")
    if not is_desktop(spec):
        raise ConfigError(f"not a desktop device {spec!r}: {accepted}")
    from omg_agent.drivers.desktop.driver import DesktopDriver

    where, _, perception = spec.partition("=")[2].partition(",")
    where, perception = where.strip() or "local", perception.strip() or "tree"
    if perception not in PERCEPTIONS:
        raise ConfigError(f"bad desktop {spec!r}: {accepted}")
    if where == "mac" or (where == "local" and sys.platform == "darwin"):
        if perception == "ocr":
            raise ConfigError(f"bad desktop {spec!r}: ,ocr is for an X display; a Mac is "
                              "read through its accessibility tree")
        from omg_agent.drivers.desktop.mac import MacBackend

        return DesktopDriver(MacBackend(), serial=spec, **options)
    if where != "local" and not where.startswith(":"):
        raise ConfigError(f"bad desktop {spec!r}: {accepted}")
    from omg_agent.extras import require

    require("desktop", "the X11 desktop driver")
    from omg_agent.drivers.desktop.x11 import X11Backend

    backend = X11Backend(None if where == "local" else where, tree=perception == "tree")
    return DesktopDriver(backend, serial=spec, **options)


def __getattr__(name: str) -> Any:
    if name == "DesktopDriver":
        from omg_agent.drivers.desktop.driver import DesktopDriver

        return DesktopDriver
    raise AttributeError(name)
