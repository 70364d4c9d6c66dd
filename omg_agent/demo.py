"""The quick-start demo: the main job, end to end, on the embedded default device.

:func:`run_demo` starts a vphone in this process, connects it to the adb server (starting
the server if needed), and runs one shipped multi-app task — "Find the price of MacBook Air
13 in Shop and save it in Notes" — with the real agent (planner, operator, memory, driver,
trace) on the configured model. With no model configured it runs the agent against the
expert double (:mod:`omg_agent.sim.expert`) behind a real HTTP endpoint and says
so: the agent, driver and phone are real, only the model's answers are simulated.

The outcome is read from the phone, not taken from the agent: the Shop's price of the
product and the texts of the notes in Notes (:class:`DemoOutcome`). The run's trace folder
gets its HTML report (:func:`omg_agent.trace.report.render_report`).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from omg_agent.config import Settings

log = logging.getLogger(__name__)

DEMO_PRODUCT = "MacBook Air 13"
SIMULATED_NOTICE = (
    "No model is configured, so this demo uses a SIMULATED model: the bench's expert double "
    "answers the agent from the vphone's true state (no real model is called). The agent, "
    "its adb driver and the phone are real.")
REAL_MODEL_HINT = ("To run the demo on a real model, set OMG_MODEL and OMG_BASE_URL (and "
                   "OMG_API_KEY if the endpoint needs one) or write them into omg.toml; check "
                   "them with `omg-agent doctor`.")


@dataclass(frozen=True)
class DemoOutcome:
    """What the demo did and what the phone shows afterwards.

    ``price`` is the Shop's price of the product and ``notes`` the bodies of every note
    in Notes, both read from the vphone after the run; ``saved`` says whether a note's
    text equals the price. ``ok``: the agent said done and the phone agrees.
    """

    task: str
    model: str
    simulated: bool
    serial: str
    status: str
    answer: str
    price: str
    notes: tuple[str, ...]
    saved: bool
    model_calls: int
    steps: int
    tokens_in: int
    tokens_out: int
    wall_s: float
    run_dir: str
    report: str
    summary: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "done" and self.saved

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "notes": list(self.notes), "ok": self.ok}


def demo_task() -> Any:
    """The shipped task the demo runs (a bench expert task: setup, truth check, price)."""
    from omg_agent.sim.expert.tasks import ShopPriceToNotes

    return ShopPriceToNotes(product=DEMO_PRODUCT)


def run_demo(settings: Settings, out: Path, *, seed: int = 0,
             on_progress: Callable[[Any], None] | None = None,
             ask: Callable[[str], str | None] | None = None) -> DemoOutcome:
    """Run the demo task on a fresh vphone (``seed``); the trace goes under ``out``.

    Uses ``settings``' model when :attr:`Settings.model_configured`, else the expert
    double. Raises :class:`~omg_agent.errors.OmgError` for setup failures (no adb, a
    model endpoint that refuses every request, …).
    """
    from omg_agent.brain.agent import choke_point, open_agent
    from omg_agent.drivers.adb import AdbDriver
    from omg_agent.sim.expert.runner import vphone_on_adb
    from omg_agent.sim.expert.sim import on_double, start_double
    from omg_agent.sim.expert.tasks import NOTES
    from omg_agent.trace.report import render_report
    from omg_agent.trace.rundir import new_run_dir
    from omg_agent.vphone.apps.notes import NotesApp

    task = demo_task()
    simulated = not settings.model_configured
    run_dir = new_run_dir(Path(out).resolve(), "demo")
    with vphone_on_adb(seed) as (phone, serial), ExitStack() as stack:
        task.setup(phone)
        if simulated:
            settings = on_double(settings, start_double(stack, task, phone, seed))
        log.info("demo: %s on %s with model %s", task.goal, serial, settings.model_for("operator"))
        driver = AdbDriver(serial, judge=choke_point(settings, serial))
        stack.callback(driver.close)
        result = open_agent(stack, driver, settings, task.goal, run_dir=run_dir,
                            session=f"demo-{uuid.uuid4().hex[:8]}", ask_user=ask,
                            on_progress=on_progress).run(task.goal)
        price = task.price(phone)
        notes_app = phone.apps[NOTES]
        assert isinstance(notes_app, NotesApp)
        notes = tuple(str(n.get("body", "")) for n in notes_app.notes)
    report = render_report(run_dir)
    return DemoOutcome(
        task=task.goal, model=settings.model_for("operator") or "", simulated=simulated,
        serial=serial, status=result.status, answer=result.answer or "", price=price,
        notes=notes, saved=price in notes, model_calls=result.model_calls,
        steps=result.steps_used, tokens_in=result.tokens_in, tokens_out=result.tokens_out,
        wall_s=round(result.wall_s, 2), run_dir=str(run_dir), report=str(report),
        summary=result.summary())
