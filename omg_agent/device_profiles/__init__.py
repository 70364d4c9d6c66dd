"""Device profiles shipped with OMG-Agent: one YAML file per device model.

``_common.yaml`` holds the app aliases and per-brand notes merged into every profile; the
other files describe one model each (screen, bars, IME, keyboard quirks, app aliases).
They are data, read and validated by :mod:`omg_agent.drivers.profiles`; probed profiles of
unknown devices are written to a user directory, never here.
"""
