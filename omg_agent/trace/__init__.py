"""Run traces: the recorder every run writes through, the loader, and the HTML report.

See :mod:`omg_agent.trace.recorder` for the folder layout and line shapes.
"""

from omg_agent.trace.lines import REDACTED
from omg_agent.trace.loader import EventRecord, StepRecord, Trace, load_trace
from omg_agent.trace.recorder import TraceRecorder
from omg_agent.trace.report import render_report
from omg_agent.trace.rundir import new_run_dir

__all__ = ["REDACTED", "EventRecord", "StepRecord", "Trace", "TraceRecorder", "load_trace",
           "new_run_dir", "render_report"]
