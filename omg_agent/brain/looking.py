"""When the operator model is shown the screenshot, not only the element list (issue 27).

A screenshot costs ~425–1,100 prompt tokens a call; the element list usually says what the
model needs. ``--vision`` (``Settings.vision``, ``OMG_VISION``) decides:

- ``always`` — every operator request carries the screenshot (the old behaviour);
- ``never`` — none does (text-only models; the element list alone);
- ``auto`` (default) — the screenshot goes with a request when it adds information
  (:func:`screenshot_reason`): the element list is not usable (a WebView, canvas or game;
  few labelled elements), the app shows several unlabeled icons, the last action's effect
  is unclear (it failed, or the screen did not change), or the model asked to look
  (``DecisionBundle.look``).

Models answering in their own dialect (AutoGLM, UI-TARS, Qwen mobile — ``brain/dialects``)
see only pixels: they always get the screenshot, whatever the setting.
"""

from __future__ import annotations

from typing import Literal

from omg_agent.core.observation import Observation, UIElement

VisionMode = Literal["auto", "always", "never"]
VISION_MODES: tuple[VisionMode, ...] = ("auto", "always", "never")
FEW_LABELLED = 3  # fewer labelled app elements than this: the list says too little
UNLABELED_ICONS = 3  # this many tappable elements with no text or description: look
_DRAWN = ("WebView", "SurfaceView", "TextureView", "GLSurfaceView", "Canvas")


def _labelled(element: UIElement) -> bool:
    return bool(element.text or element.desc or element.extra_texts or element.hint)


def list_gap(obs: Observation) -> str | None:
    """What the element list of ``obs`` cannot say on its own, or ``None``."""
    app = [e for e in obs.elements if not e.window]
    drawn = next((e for e in app if e.role == "web" or any(d in e.cls for d in _DRAWN)), None)
    if drawn is not None:
        return f"the screen draws its content ({drawn.cls.rsplit('.', 1)[-1]})"
    labelled = sum(_labelled(e) for e in app)
    if labelled < FEW_LABELLED:
        return f"only {labelled} labelled element{'s' * (labelled != 1)} on the screen"
    icons = sum(1 for e in app if (e.clickable or e.long_clickable) and not _labelled(e))
    if icons >= UNLABELED_ICONS:
        return f"{icons} unlabeled icons"
    return None


def screenshot_reason(mode: VisionMode, obs: Observation, *, asked: bool = False,
                      unclear: str = "") -> str | None:
    """Why the screenshot goes with this request (``None``: the element list alone).

    ``asked``: the model's last reply set ``look``; ``unclear``: why the last action's
    effect is unclear (empty when it is clear).
    """
    if mode == "always":
        return "vision always"
    if mode == "never":
        return None
    if asked:
        return "the model asked to look"
    if unclear:
        return unclear
    return list_gap(obs)


def unclear_effect(failed: bool, acted: bool, before: str, after: str) -> str:
    """Why the last turn's effect is unclear, or ``""``: its actions failed, or they went
    through and the screen (by hash) did not change."""
    if failed:
        return "the last action failed"
    if acted and before and before == after:
        return "the last action changed nothing visible"
    return ""


__all__ = ["VISION_MODES", "VisionMode", "list_gap", "screenshot_reason", "unclear_effect"]
