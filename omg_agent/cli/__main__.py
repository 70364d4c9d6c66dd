"""``python -m omg_agent.cli``: the same app as the ``omg-agent`` script."""

from omg_agent.cli import app

app()
