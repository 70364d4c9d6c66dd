"""The optional extras (``pip install 'omg-agent[x]'``): which modules each one brings, and
the check a feature makes before it imports them.

The core (the agent, the vphone, device commands, doctor, demo, the mirror's JPEG frames)
needs none of them. A feature that does imports its libraries inside the function that uses
them, after :func:`require` (or through :func:`load`), so that without its extra it stops
with :class:`~omg_agent.errors.ExtraMissing`, whose message is the one line
"<feature> needs omg-agent[x]: pip install 'omg-agent[x]'". The command line turns an
``ExtraMissing`` — or an import of an extra's module that slipped past this — into that
line (:func:`missing`).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from types import ModuleType

from omg_agent.errors import ExtraMissing

# the desktop drivers read the screen with OCR too: [desktop] brings [ocr]
_DESKTOP = (*(("Quartz", "AppKit", "ApplicationServices") if sys.platform == "darwin"
              else ("Xlib", "mss")), "rapidocr_onnxruntime")

#: the top-level modules each extra installs (on this platform), as ``import`` names them
MODULES: dict[str, tuple[str, ...]] = {
    "ocr": ("rapidocr_onnxruntime",),
    "video": ("av",),
    "mcp": ("mcp",),
    "ray": ("ray",),
    "desktop": _DESKTOP,
}
#: what each extra gives, for ``doctor``
GIVES: dict[str, str] = {
    "ocr": "OCR of text the accessibility tree does not show",
    "video": "the vphone's screenrecord, the mirror's video",
    "mcp": "omg-agent mcp",
    "ray": "fleet run --ray, bench suite --ray",
    "desktop": "--device desktop",
}


def installed(extra: str) -> bool:
    """Whether every module of ``extra`` can be imported here (nothing is imported)."""
    return all(_findable(name) for name in MODULES[extra])


def require(extra: str, feature: str) -> None:
    """Nothing when ``extra`` is installed; else :class:`ExtraMissing` for ``feature``."""
    if not installed(extra):
        raise ExtraMissing(feature, extra)


def load(module: str, extra: str, feature: str) -> ModuleType:
    """``import module`` — or :class:`ExtraMissing` for ``feature`` when it is not there."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.partition(".")[0] != module.partition(".")[0]:
            raise  # the module is there but something it imports is not: not ours to word
        raise ExtraMissing(feature, extra) from None


def missing(exc: BaseException) -> ExtraMissing | None:
    """The :class:`ExtraMissing` that ``exc`` is, or that an import of an extra's module
    failing with ``exc`` means; ``None`` for anything else."""
    if isinstance(exc, ExtraMissing):
        return exc
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        top = exc.name.partition(".")[0]
        for extra, modules in MODULES.items():
            if top in modules:
                return ExtraMissing("this command", extra)
    return None


def _findable(name: str) -> bool:
    if name in sys.modules:
        return sys.modules[name] is not None
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a broken install, a module whose __spec__ is None
        return False
