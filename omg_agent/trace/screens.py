"""The screenshots a trace keeps: downscaled to ``MAX_SIDE`` and saved as JPEG, each
renamed into place whole.
"""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image

from omg_agent.durable import write_atomic

MAX_SIDE = 1080
JPEG_QUALITY = 80


def downscaled(image: Image.Image, max_side: int) -> Image.Image:
    """``image`` no larger than ``max_side`` on its long side (itself when it fits)."""
    if max(image.size) <= max_side:
        return image
    scale = max_side / max(image.size)
    size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
    return image.resize(size, Image.Resampling.LANCZOS)


def save_jpeg(image: Image.Image, path: Path) -> None:
    """A screenshot, renamed into place whole (no fsync: a kill cannot tear it, and the
    trace line naming it is fsynced after it)."""
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=JPEG_QUALITY)
    write_atomic(path, buffer.getvalue(), sync=False)
