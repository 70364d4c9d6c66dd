"""Benchmarks: the task suite with reward checks, its runner and scorecard, and the
observe/calls measurements. The model doubles they run against live in :mod:`omg_agent.sim`.
"""
