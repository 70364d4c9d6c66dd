"""Fleets: many tasks on many devices, in a local pool or across hosts on Ray.

:mod:`~omg_agent.fleet.taskfile` reads TASKS.yaml; :mod:`~omg_agent.fleet.devices` names the
devices (a Ray custom resource each); :mod:`~omg_agent.fleet.scheduler` dispatches jobs to
free fitting devices over a backend (local worker processes, or
:mod:`~omg_agent.fleet.ray_backend`); :mod:`~omg_agent.fleet.attempt` is one run on one
device; :mod:`~omg_agent.fleet.jobs` turns suite plans and task files into jobs.
"""
