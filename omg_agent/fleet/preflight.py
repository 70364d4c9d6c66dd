"""Before a fleet starts: every task has a device that could run it.

A suite task runs on a vphone slot, a goal on a phone with the profile and app it names
(:meth:`~omg_agent.fleet.attempt.FleetJob.fits`). A task no device of the pool could ever
run is refused up front, in one line naming it and what the pool offers — not reported as
"never started" one by one after the others have run. Checked twice by ``fleet run``: on the
devices as named (kinds only: before any phone is asked anything), then on their census
(profile and apps) before the first attempt starts.
"""

from __future__ import annotations

from collections.abc import Sequence

from omg_agent.errors import ConfigError
from omg_agent.fleet.attempt import FleetJob
from omg_agent.fleet.devices import FleetDevice

MAX_LISTED = 5  # devices named in the error


def _offered(phones: Sequence[FleetDevice]) -> str:
    shown = [f"{d.name} ({d.profile or 'no answer'})" for d in phones[:MAX_LISTED]]
    more = len(phones) - MAX_LISTED
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def why_unfit(job: FleetJob, devices: Sequence[FleetDevice], census: bool = True
              ) -> str | None:
    """Why no device of ``devices`` could run ``job`` (None: one could). ``census=False``:
    the devices were not asked yet, so only their kind (vphone slot or phone) counts."""
    kind = [d for d in devices if d.is_vphone == job.needs_vphone]
    if not kind:
        if job.needs_vphone:
            return "a suite task runs on a vphone slot and the pool has none: add --vphones N"
        return "a goal runs on a phone and the pool has none: add --device SERIAL"
    if not census or any(job.fits(d) for d in kind):
        return None
    needs = " and ".join(f"{k} {v!r}" for k, v in (("profile", job.profile), ("app", job.app))
                         if v)
    return f"needs a phone with {needs}; the pool's phones: {_offered(kind)}"


def check_jobs(jobs: Sequence[FleetJob], devices: Sequence[FleetDevice],
               census: bool = True) -> None:
    """:class:`ConfigError` naming the first job no device could run."""
    for job in jobs:
        why = why_unfit(job, devices, census)
        if why is not None:
            raise ConfigError(f"tasks: {job.key}: {why}")


__all__ = ["check_jobs", "why_unfit"]
