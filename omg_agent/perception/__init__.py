"""Perception: turn what the device shows into what the agent reasons over.

``uitree`` (accessibility XML → compact element list), ``screenhash`` (perceptual hash with
volatile bands masked), ``som`` (set-of-marks image); OCR and anchoring live beside them
(DESIGN.md §4). Nothing here talks to a device or a model.
"""
