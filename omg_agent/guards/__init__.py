"""Guards: rules that watch the agent's actions independently of any model (DESIGN.md §5)."""
