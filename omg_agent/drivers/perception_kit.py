"""The perception objects a driver needs, wired the same way from its :class:`DeviceInfo`:
screen geometry, the masked screen hash, the OCR engine (made once, on first use) and the
anchorer that shares it. Drivers own one and expose its parts.

This is a holder, not a pipeline: it neither talks to the device nor builds the
:class:`~omg_agent.core.observation.Observation`. The driver's ``observe()`` fetches the
frame and the XML and assembles the observation with these objects and
:func:`~omg_agent.perception.uitree.parse_elements`; its executor resolves targets with the
anchorer (see :mod:`omg_agent.drivers.base`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from omg_agent.core.geometry import ScreenGeometry
from omg_agent.drivers.base import DeviceInfo
from omg_agent.perception.screenhash import ScreenHash


class DevicePerception:
    def __init__(self, info: Callable[[], DeviceInfo], *, ocr: Any = None,
                 anchorer: Any = None) -> None:
        self._info = info
        self._ocr = ocr
        self._anchorer = anchorer
        self._hasher: ScreenHash | None = None

    @property
    def geometry(self) -> ScreenGeometry:
        info = self._info()
        return ScreenGeometry(info.width, info.height, info.status_bar_px, info.nav_bar_px)

    @property
    def hasher(self) -> ScreenHash:
        if self._hasher is None:
            info = self._info()
            self._hasher = ScreenHash(status_bar=info.status_bar_px, nav_bar=info.nav_bar_px)
        return self._hasher

    @property
    def ocr_engine(self) -> Any:
        """The OCR engine (``perception.ocr.OcrEngine`` unless one was passed), made once."""
        if self._ocr is None:
            from omg_agent.perception.ocr import OcrEngine  # models load on first read

            self._ocr = OcrEngine()
        return self._ocr

    @property
    def anchorer(self) -> Any:
        if self._anchorer is None:
            from omg_agent.perception.anchor import Anchorer

            ocr = self.ocr_engine  # without the OCR extra: the tree, then the labelled grid
            self._anchorer = Anchorer(self.geometry,
                                      ocr=ocr if getattr(ocr, "available", True) else None,
                                      density=self._info().density)
        return self._anchorer
