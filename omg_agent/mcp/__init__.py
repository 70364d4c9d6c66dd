"""The MCP server (issues 28 and 37): the phone as tools for an assistant or IDE, with the
official ``mcp`` SDK — devices, apps, observe (element list; screenshot none, jpeg or png),
gated actions, a full agent run with progress notifications, held runs answered or approved
by a human, flows, and the recent runs with their summaries as resources.
:func:`omg_agent.mcp.server.build_server` builds it; ``omg-agent mcp`` serves it over stdio
or loopback HTTP (:mod:`omg_agent.mcp.http`).
"""
