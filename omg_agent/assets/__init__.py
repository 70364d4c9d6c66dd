"""Files shipped with OMG-Agent (flows, demo task files)."""
