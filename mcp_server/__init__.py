"""MCP servers: the per-company catalog server and the install-wide provider server.

Each module adds its routes to the one blueprint `bp`; `init_app(app)` registers it.
"""

from flask import Flask

from mcp_server import host_guard, routes  # noqa: F401  (register the Host check and the routes)
from mcp_server.blueprint import bp
from mcp_server.ucp.server import init_agent_profiles


def init_app(app: Flask) -> None:
    """Register the blueprint and the app's UCP agent-profile cache."""
    init_agent_profiles(app, app.extensions["mirror"].settings)
    app.register_blueprint(bp)
