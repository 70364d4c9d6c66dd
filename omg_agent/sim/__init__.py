"""Model doubles: stand-ins for a real model, used by the bench, the demo and ``run --model sim``.

``model_double`` is an OpenAI-compatible HTTP server answering from a script or a policy,
so the real ``openai`` client is exercised end to end without a real model (DESIGN.md §9).
``expert`` is the policy that reads a vphone's state and plays known tasks, with noise
knobs, plus the harness that runs the agent against it on an in-process vphone.

Dependency direction: ``bench`` imports ``sim``; ``sim`` never imports ``bench``, and the
brain never imports either.
"""
