"""OCR: text boxes read from the screenshot, for screens whose text is not in the tree.

WebViews, games and canvases draw text the accessibility tree never shows; anchoring
(``perception.anchor``) falls back to this module for them (DESIGN.md §4). It wraps
rapidocr-onnxruntime with its bundled PP-OCRv4 models (offline, CPU; the ``omg-agent[ocr]``
extra: without it a read raises ``ExtraMissing``). The engine is built
lazily on first use and reused; one lock serialises engine calls, since the wrapper keeps
per-call state (cache hits take a second, short-held lock and never wait for a read).
:meth:`OcrEngine.read` returns :class:`~omg_agent.core.observation.OcrBox` es in *screen*
pixels — the crop offset added back and the downscale undone — and caches them in
a bounded LRU keyed by the screen hash and the region, so asking again about the same
screen costs a dictionary lookup (~2 µs; ~14 ms when no hash is given and the 10 MB of
pixels must be hashed instead).

Engine settings: the angle classifier is off (phone UI text is upright: it cost ~20 ms
per frame for nothing), and rapidocr's own resizing is off (its detector *upscales* any
image whose short side is under 736 px, which made small region crops slower than the full
frame; its 2000 px cap resized 1080x2400 frames behind our back). Our ``scale`` alone
decides the resolution.

Downscale policy, measured with ``scripts/bench_ocr.py --downscale --runs 3`` on vphone
1080x2400 frames (Shop home, Promotions WebView, Settings, Feed, Messages, each in en-US and
zh-CN: 132 labels of >= 4 characters drawn whole on one line, taken from the vphone's own
view tree; "found" = ``find_text`` matches it; 2 shared cores):

=====  ================  ===============================
scale  labels found      full-frame read, median of runs
=====  ================  ===============================
1.0    131/132  99.2 %   817 ms (895 ms in a second run)
0.75   131/132  99.2 %   722 ms (709 ms)
0.5    130/132  98.5 %   491 ms (501 ms)
=====  ================  ===============================

The one label every scale misses is read "lh ago · Post 1" (l for 1). 0.5 also loses the
small grey "1h ago · Post 3" — secondary text (12–14 sp) is what halving kills first, and
real apps have more of it than the vphone. 0.75 finds everything full resolution finds,
~12 % cheaper, so ``DEFAULT_SCALE = 0.75``. (Also tried: detecting on the downscaled frame
but recognising crops of the full-resolution one — no recall gain, no time gain at 0.5,
slower at 0.75 — rejected.) Recognition (~0.33 s for ~20 lines) does not shrink with the
scale; detection does (0.52 s → 0.13 s from 1.0 to 0.5).

Regions up to ``_NO_DOWNSCALE_AREA`` (a fifth of a 1080x2400 frame) are never downscaled:
a crop around a label is cheap already and small text is what a downscale loses first.

Caveat of the cache: the screen hash is perceptual and ignores one-character changes
(see ``perception.screenhash``), so a cached read can miss a character typed since.
Callers that need the latest text pass ``key=None`` (the exact pixels are hashed instead).
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING

from PIL import Image

from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import OcrBox
from omg_agent.extras import installed, load, require
from omg_agent.perception.textmatch import EXACT_TIERS, MatchMode, TextQuery

if TYPE_CHECKING:  # numpy loads when a hash or OCR is computed, not on import
    import numpy as np

log = logging.getLogger(__name__)

DEFAULT_SCALE = 0.75
DEFAULT_CACHE_SIZE = 64
MIN_CONFIDENCE = 0.5
_NO_DOWNSCALE_AREA = 1080 * 480
_NO_RESIZE_SIDE = 10_000  # disables rapidocr's own resizing (see the module docstring)


class OcrEngine:
    """Reads text boxes from screenshots; thread-safe; one instance per process is enough.

    ``calls`` counts real engine invocations (cache misses), for tests and benchmarks.
    """

    def __init__(self, *, scale: float = DEFAULT_SCALE, cache_size: int = DEFAULT_CACHE_SIZE,
                 min_confidence: float = MIN_CONFIDENCE, threads: int | None = None) -> None:
        if not 0 < scale <= 1:
            raise ValueError(f"scale must be in (0, 1], got {scale}")
        self.scale = scale
        self.min_confidence = min_confidence
        self.threads = threads
        self.calls = 0
        self._cache: OrderedDict[tuple, tuple[OcrBox, ...]] = OrderedDict()
        self._cache_size = cache_size
        # one engine call at a time (rapidocr keeps state); engines with these options are
        # shared by the process, and so is their lock
        self._lock = _shared(threads, min_confidence).lock
        self._cache_lock = threading.Lock()  # held briefly: cache hits never wait for OCR

    @property
    def available(self) -> bool:
        """Whether the OCR extra is installed; without it :meth:`read` raises
        :class:`~omg_agent.errors.ExtraMissing` and anchoring skips OCR for the grid."""
        return installed("ocr")

    def _rapid(self):
        require("ocr", "OCR")  # asked each time: a shared engine built earlier proves nothing
        return _shared(self.threads, self.min_confidence).engine()

    def warm_up(self) -> None:
        """Build the engine now (model load ~0.3 s) instead of on the first read."""
        with self._lock:
            self._rapid()

    # -- reading ---------------------------------------------------------------------------
    def read(self, image: Image.Image, region: Bounds | None = None, *,
             key: str | None = None) -> tuple[OcrBox, ...]:
        """Text boxes of ``image`` (or of ``region`` of it) in screen pixels, top to bottom.

        ``key`` names the screen for the cache (the observation's screen hash); without it
        the pixels themselves are hashed.
        """
        crop = Bounds(0, 0, image.width, image.height)
        if region is not None:
            clipped = crop.intersection(region)
            if clipped is None:
                return ()
            crop = clipped
        scale = 1.0 if crop.area <= _NO_DOWNSCALE_AREA else self.scale
        cache_key = (key or _pixel_key(image), tuple(crop), scale)
        cached = self._cached(cache_key)
        if cached is not None:
            return cached
        with self._lock:
            cached = self._cached(cache_key)  # another thread may have read it meanwhile
            if cached is not None:
                return cached
            boxes = self._run(image, crop, scale)
            with self._cache_lock:  # stored before the engine lock goes: a waiter finds it
                self._cache[cache_key] = boxes
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        return boxes

    def _cached(self, cache_key: tuple) -> tuple[OcrBox, ...] | None:
        with self._cache_lock:
            boxes = self._cache.get(cache_key)
            if boxes is not None:
                self._cache.move_to_end(cache_key)
            return boxes

    def _run(self, image: Image.Image, crop: Bounds, scale: float) -> tuple[OcrBox, ...]:
        import numpy as np
        part = image.crop(crop).convert("RGB")
        if scale != 1.0:
            part = part.resize((max(1, round(part.width * scale)),
                                max(1, round(part.height * scale))), Image.Resampling.BILINEAR)
        bgr = np.ascontiguousarray(np.asarray(part)[:, :, ::-1])  # rapidocr wants BGR
        self.calls += 1
        result, _ = self._rapid()(bgr)
        found = [_box(np.asarray(quad, dtype=np.float32), text, conf, crop, scale)
                 for quad, text, conf in result or ()]
        boxes = [b for b in found if b is not None and b.confidence >= self.min_confidence]
        boxes.sort(key=lambda b: (b.bounds.top, b.bounds.left))
        log.debug("ocr %s at scale %.2f: %d boxes", crop, scale, len(boxes))
        return tuple(boxes)

    def find_text(self, image: Image.Image, text: str, match: MatchMode = "exact",
                  region: Bounds | None = None, *, key: str | None = None
                  ) -> tuple[OcrBox, ...]:
        """Boxes whose text matches ``text``, best match first (see ``textmatch`` tiers)."""
        return best_matches(self.read(image, region, key=key), text, match)

    def clear_cache(self) -> None:
        with self._cache_lock:
            self._cache.clear()


def best_matches(boxes: Sequence[OcrBox], text: str,
                 match: MatchMode = "exact") -> tuple[OcrBox, ...]:
    """``boxes`` that match ``text``: better tier first, then higher confidence."""
    query = TextQuery(text, match)
    limit = 4 if match == "contains" else EXACT_TIERS
    scored = [(tier, -b.confidence, i, b) for i, b in enumerate(boxes)
              if (tier := query.score(b.text)) is not None
              and (match == "regex" or tier <= limit)]
    return tuple(b for *_, b in sorted(scored, key=lambda s: s[:3]))


class _SharedEngine:
    """One rapidocr engine per process and options: its models take ~1 s of CPU and tens of
    MB to load, and every driver of a fleet (and every run of a test worker) reads with it."""

    def __init__(self, threads: int | None, min_confidence: float) -> None:
        self.threads, self.min_confidence = threads, min_confidence
        self.lock = threading.Lock()  # held around every call of the engine, and its build
        self._engine = None

    def engine(self):  # called with ``lock`` held
        if self._engine is None:
            rapidocr = load("rapidocr_onnxruntime", "ocr", "OCR")
            options = {}
            if self.threads:
                options["intra_op_num_threads"] = self.threads
            self._engine = rapidocr.RapidOCR(
                use_cls=False, max_side_len=_NO_RESIZE_SIDE, det_limit_type="max",
                det_limit_side_len=_NO_RESIZE_SIDE, text_score=self.min_confidence, **options)
            log.debug("rapidocr engine created")
        return self._engine


_ENGINES: dict[tuple[int | None, float], _SharedEngine] = {}
_ENGINES_LOCK = threading.Lock()


def _shared(threads: int | None, min_confidence: float) -> _SharedEngine:
    with _ENGINES_LOCK:
        key = (threads, min_confidence)
        if key not in _ENGINES:
            _ENGINES[key] = _SharedEngine(threads, min_confidence)
        return _ENGINES[key]


def _pixel_key(image: Image.Image) -> str:
    digest = hashlib.blake2b(image.tobytes(), digest_size=16)
    digest.update(f"{image.mode}{image.size}".encode())
    return "px:" + digest.hexdigest()


def _box(quad: np.ndarray, text: str, confidence: float, crop: Bounds,
         scale: float) -> OcrBox | None:
    """A quad in (scaled) crop pixels as an upright box in screen pixels."""
    xs, ys = quad[:, 0], quad[:, 1]
    left = crop.left + round(max(0.0, float(xs.min())) / scale)
    top = crop.top + round(max(0.0, float(ys.min())) / scale)
    right = min(crop.right, crop.left + round(float(xs.max()) / scale))
    bottom = min(crop.bottom, crop.top + round(float(ys.max()) / scale))
    text = str(text)
    if right <= left or bottom <= top or not text.strip():
        return None
    return OcrBox(text, Bounds(left, top, right, bottom), float(confidence))
