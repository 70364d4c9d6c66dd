"""Doctor's pixel probe for a dialect: does the model's point land where the image shows it?

The most reported failure with these models is a coordinate mismatch: the server resizes
screenshots to fewer pixels than the model's format assumes (``max_pixels`` set too low,
or a vLLM release that ignored it), and every tap lands at a fraction of its target. The
probe sends one synthetic 1080x2400 screen — white, one red dot at a known place — in the
dialect's own format, asks for a tap on the dot, and converts the answer exactly as a run
would. Within :data:`TOLERANCE_PX` of the dot: fine; both axes off by about the same
factor: the server's pixel limit is wrong, and the fix names it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from PIL import Image, ImageDraw

from omg_agent.brain.dialects.base import Dialect, DialectTurn
from omg_agent.brain.structured import InvalidReply
from omg_agent.core.actions import PointTarget, Tap
from omg_agent.core.geometry import ScreenGeometry
from omg_agent.core.observation import Observation

SCREEN = (1080, 2400)
DOT = (810, 1800)  # distinct ratios on both axes (0.75, 0.75 would hide a swapped axis)
DOT_RADIUS = 36
TOLERANCE_PX = 60
PROBE_TASK = "Tap the red dot."


def probe_screen() -> Image.Image:
    image = Image.new("RGB", SCREEN, (255, 255, 255))
    x, y = DOT
    ImageDraw.Draw(image).ellipse((x - DOT_RADIUS, y - DOT_RADIUS, x + DOT_RADIUS,
                                   y + DOT_RADIUS), fill=(230, 20, 20))
    return image


@dataclass(frozen=True)
class ProbeResult:
    status: Literal["ok", "warn", "fail"]
    detail: str
    fix: str = ""


def probe_messages(dialect: Dialect) -> tuple[list[dict[str, Any]], Any]:
    obs = Observation(probe_screen(), ())
    return dialect.messages(DialectTurn(PROBE_TASK, obs))


def judge(dialect: Dialect, reply: str) -> ProbeResult:
    """What the model's answer to the probe says about the pixel limits."""
    _, frame = probe_messages(type(dialect)())
    try:
        bundle = dialect.parse_reply(reply, frame)
    except InvalidReply as exc:
        return ProbeResult("warn", f"the probe's answer is not a {dialect.name} action: {exc}",
                           f"check that the endpoint serves a {dialect.name} model")
    action = bundle.actions[0] if bundle.actions else None
    if not isinstance(action, Tap) or not isinstance(action.target, PointTarget):
        return ProbeResult("warn", f"asked to tap the probe's dot, the model answered "
                           f"{action.type if action else 'no action'}", "")
    x, y = ScreenGeometry.of_screen(SCREEN).to_pixels((action.target.x, action.target.y))
    off = max(abs(x - DOT[0]), abs(y - DOT[1]))
    if off <= TOLERANCE_PX:
        return ProbeResult("ok", f"tapped the probe's dot at {x},{y} ({off} px off): the "
                           "server's image size matches the coordinates")
    sx, sy = x / DOT[0], y / DOT[1]
    if abs(sx - sy) < 0.08 and sx < 0.95:
        return ProbeResult("fail", f"the tap landed at {x},{y}, {sx:.2f}x the dot's position "
                           f"{DOT[0]},{DOT[1]}: the server shrinks images below what "
                           f"{dialect.name} coordinates refer to",
                           "raise the server's pixel limit (vLLM: --mm-processor-kwargs "
                           "'{\"max_pixels\": 12845056}'; check that your vLLM version "
                           "applies it)")
    return ProbeResult("warn", f"the tap landed at {x},{y}, {off} px from the dot at "
                       f"{DOT[0]},{DOT[1]}", "check the model and its image settings")
