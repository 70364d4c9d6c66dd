"""Benchmarks and the doubles they (and the tests) run against.

``model_double`` is an OpenAI-compatible HTTP server answering from a script or a policy,
so the real ``openai`` client is exercised end to end without a real model (DESIGN.md §9).
"""
