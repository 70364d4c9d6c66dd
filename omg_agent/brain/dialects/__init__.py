"""Model dialects (issue 18): phone models drive the harness in their own action formats.

=============  ===========================================================================
``json``       ours, the default: the JSON ``DecisionBundle`` (bundles, mem_save, checks)
``autoglm``    AutoGLM-Phone: ``<think>…</think><answer>do(action=…)</answer>``, 0–999
``uitars``     UI-TARS-1.5 mobile: ``Thought: … Action: click(point='<point>x y</point>')``
``qwen-mobile`` Qwen2.5-VL / GUI-Owl ``mobile_use`` tool call, pixels of the resized image
=============  ===========================================================================

``Settings.dialect`` (``OMG_DIALECT``, ``run --dialect``) picks one; ``auto`` (the default)
detects it from the operator model's name (:func:`detect`; doctor prints the result). A
dialect other than ``json`` cannot bundle, save to memory or write end-state checks, so
:func:`adapt_settings` runs it ``flat`` (one action per call) — an explicit other planning
mode is refused. A finished task is confirmed against the screen by a planner model that
speaks JSON; with the phone model alone (:func:`judgeless`: one AutoGLM or UI-TARS endpoint,
the most common setup of their users) the run starts all the same, and a "done" that no
check of the run could verify ends ``unverified`` (exit 9), never ``done``
(:func:`omg_agent.brain.operator_turn.ticked`).
"""

from __future__ import annotations

import re

from omg_agent.brain.dialects.autoglm import AutoGLM
from omg_agent.brain.dialects.base import Dialect, DialectTurn, Frame, smart_resize
from omg_agent.brain.dialects.qwen_mobile import QwenMobile
from omg_agent.brain.dialects.uitars import UITars
from omg_agent.config import Settings
from omg_agent.errors import ConfigError

DIALECTS: dict[str, type[Dialect]] = {"autoglm": AutoGLM, "uitars": UITars,
                                      "qwen-mobile": QwenMobile}
NAMES = ("json", *DIALECTS)
# model-name patterns, first match wins; plain Qwen2.5-VL stays json (it follows schemas)
_DETECT = ((re.compile(r"autoglm", re.I), "autoglm"),
           (re.compile(r"ui[-_ ]?tars", re.I), "uitars"),
           (re.compile(r"gui[-_ ]?owl|mobile[-_]?use", re.I), "qwen-mobile"))


def detect(model: str | None) -> str:
    """The dialect a model name suggests (``json`` when nothing matches)."""
    for pattern, name in _DETECT:
        if model and pattern.search(model):
            return name
    return "json"


def resolved(settings: Settings) -> tuple[str, str]:
    """(dialect, how it was chosen) for the operator model of ``settings``."""
    if settings.dialect != "auto":
        return settings.dialect, f"set by {settings.source('dialect')}"
    model = settings.model_for("operator")
    name = detect(model)
    return name, (f"detected from the model name {model!r}" if name != "json" else
                  "the default (no dialect in the model name)")


def adapt_settings(settings: Settings) -> Settings:
    """``settings`` with the dialect resolved and, for a non-JSON dialect, planning ``flat``;
    raises :class:`ConfigError` for a combination that cannot work."""
    name, _ = resolved(settings)
    update: dict[str, object] = {"dialect": name}
    if name != "json" and "bundle" in DIALECTS[name].cannot:
        if settings.planning != "flat" and settings.source("planning") != "default":
            raise ConfigError(f"dialect {name} gives one action per call and keeps no plan: "
                              f"planning must be 'flat', not {settings.planning!r} (set by "
                              f"{settings.source('planning')})")
        update["planning"] = "flat"
    adapted = settings.model_copy(update=update)
    adapted._sources.update(settings._sources)
    return adapted


def judgeless(settings: Settings) -> bool:
    """Whether no model of ``settings`` can confirm a finished task: the operator speaks a
    dialect and the planner role is that same model (it cannot answer our JSON)."""
    name, _ = resolved(settings)
    return name != "json" and settings.model_for("planner") == settings.model_for("operator")


def dialect_for(settings: Settings) -> Dialect | None:
    """The operator's dialect object for a run (``None`` for ``json``: the JSON path)."""
    name, _ = resolved(settings)
    if name == "json":
        return None
    dialect = DIALECTS[name]()
    dialect.max_side = settings.image_max_side
    return dialect


__all__ = ["DIALECTS", "NAMES", "Dialect", "DialectTurn", "Frame", "adapt_settings",
           "detect", "dialect_for", "judgeless", "resolved", "smart_resize"]
