"""OMG-Agent: automate an Android phone (and a desktop) from a plain-language task.

The package is layered as ../DESIGN.md describes: drivers and perception at the bottom, the
brain (planner, operator, memory) on top, guards around it, and ``vphone`` — a virtual phone
speaking the real ADB protocol — as the device every test and demo can run on.
"""

__version__ = "0.1.0"
