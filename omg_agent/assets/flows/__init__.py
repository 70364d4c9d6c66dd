"""Flows shipped for the vphone: ``omg-agent flow run`` them, or read them as examples."""
