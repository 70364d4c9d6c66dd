"""Human in the loop: a secure live mirror of the phone in a browser (issue 16).

* :mod:`~omg_agent.hitl.security` — who may see and drive the mirror: loopback bind, a
  single-use URL token traded for a per-port HttpOnly SameSite=Strict cookie plus a per-tab
  key the page sends on every request (the cookie alone, which other ports see, opens
  nothing), Host allow-list, Origin checks;
* :mod:`~omg_agent.hitl.bodies` — request bodies bounded in size and nesting;
* :mod:`~omg_agent.hitl.frames` — the screen as JPEG frames, pushed only when it changes;
* :mod:`~omg_agent.hitl.channel` — the agent's questions and sensitive-action approvals
  answered on the page (or on the terminal: whichever answers first wins);
* :mod:`~omg_agent.hitl.audit` — every human action written down;
* :mod:`~omg_agent.hitl.learn` — a takeover's gestures kept as anchored steps, offered as a
  flow before the model the next time the run meets that app, screen and step;
* :mod:`~omg_agent.hitl.client` — the mirror spoken to as a browser does (bench, tests);
* :mod:`~omg_agent.hitl.app` / :mod:`~omg_agent.hitl.server` — the ASGI app and uvicorn.
"""
