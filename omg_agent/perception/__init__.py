"""Perception: turn what the device shows into what the agent reasons over.

``uitree`` (accessibility XML → compact element list), ``windows`` (which window of a dump
is on top, which are system bars, what each covers), ``screenhash`` (perceptual hash with
volatile bands masked), ``ocr`` (text boxes, cached by screen hash), ``anchor`` (target →
pixel point), ``som`` and ``grid`` (marked-up images for the model), ``textmatch``
(DESIGN.md §4). Nothing here talks to a device or a model: these are computations over bytes,
XML and images that a driver has already fetched. Each driver's ``observe()`` calls them and
assembles the :class:`~omg_agent.core.observation.Observation` (the per-device objects sit in
:class:`~omg_agent.drivers.perception_kit.DevicePerception`); drivers' executors call
``anchor`` to place taps.
"""
