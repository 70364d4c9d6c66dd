"""Guards: loops, sensitive actions, injected instructions and secrets (DESIGN.md §5)."""
