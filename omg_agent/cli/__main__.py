"""``python -m omg_agent.cli``: the same as the ``omg-agent`` script."""

from omg_agent.cli import main

main()
