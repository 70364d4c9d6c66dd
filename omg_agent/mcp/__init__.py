"""The MCP server (issue 28): the phone as tools for an assistant or IDE, with the official
``mcp`` SDK — devices, observe (element list + screenshot), gated actions, a full agent run
with progress notifications, held runs answered or approved by a human, flows, and the
recent runs as resources. :func:`omg_agent.mcp.server.build_server` builds it;
``omg-agent mcp`` serves it over stdio or loopback HTTP (:mod:`omg_agent.mcp.http`).
"""
