"""Device drivers: the hands and eyes below perception (DESIGN.md §1). Nothing here knows an
LLM exists; every backend implements :class:`~omg_agent.drivers.base.Driver`."""
