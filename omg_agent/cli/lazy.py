"""Deferred third-party imports for the command line's one-shot commands.

``adbutils`` imports ``requests`` at its top for one function (downloading an APK), and
``requests`` with urllib3, charset_normalizer, idna and ssl costs ~0.12 s — more than the
device command it precedes (README, "Everyday commands"). :func:`defer` puts a stand-in
module in ``sys.modules``: ``import requests`` binds it at no cost, and the first attribute
read on it imports the real module (which then replaces it in ``sys.modules``, its names
copied into the stand-in), so a command that never uses it never pays for it and one that
does gets the real module. (:class:`importlib.util.LazyLoader` does not do here: on 3.11
every later ``import requests`` statement reads ``__spec__`` and so loads it at once.)

Only the CLI does this (before it imports anything else); library users import as usual.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from typing import Any

#: modules imported at the top of our dependencies but used only inside their functions
DEFERRED = ("requests",)


class Deferred(types.ModuleType):
    """Stands in for a top-level module until one of its attributes is read."""

    def __getattr__(self, attr: str) -> Any:  # only called for names it does not have yet
        name = self.__name__
        if sys.modules.get(name) is self:
            del sys.modules[name]
        real = importlib.import_module(name)
        self.__dict__.update(real.__dict__)
        return getattr(real, attr)


def defer(name: str) -> bool:
    """Make ``import name`` lazy in this process; False if it is already imported or absent."""
    if name in sys.modules or importlib.util.find_spec(name) is None:
        return False
    sys.modules[name] = Deferred(name)
    return True


def defer_all() -> None:
    for name in DEFERRED:
        defer(name)
