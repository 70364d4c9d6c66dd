"""``omg-agent macro run NAME``: a stored macro played on a device outside any run.

The macro passes the same gate a run's macro does: the driver's choke point bound to a gate
built from the settings (``allow`` pre-authorises; nobody is asked, so anything sensitive
stops the macro before it is sent), and :class:`~omg_agent.macros.runner.MacroRunner` holds
a chunk whose touch the gate would hold.
"""

from __future__ import annotations

from omg_agent.brain.agent import gatekeeper, run_secrets
from omg_agent.config import Settings
from omg_agent.drivers.base import Driver
from omg_agent.drivers.wrapper import shell_of
from omg_agent.guards.choke import bind
from omg_agent.macros.model import Macro, Stop
from omg_agent.macros.runner import MacroReport, MacroRunner


def play(driver: Driver, macro: Macro, stop: Stop, settings: Settings) -> MacroReport:
    """Run ``macro`` on ``driver`` from the screen it shows now, until ``stop``."""
    vault = run_secrets("", settings)
    gate = gatekeeper(settings, "", None, driver.observe)
    with bind(driver, gate, vault.mask):
        return MacroRunner(driver, shell_of(driver), gate).run(macro, stop)


__all__ = ["play"]
