"""A2A 1.0 agents: one per public company (its catalog), and the install's directory agent.

Skills are the MCP tool declarations (agent_tools), reached by message;
see a2a_server/skills.py. Each module adds its routes to the one blueprint `bp`.
"""

from flask import Flask

from a2a_server import routes  # noqa: F401  (register routes)
from a2a_server.blueprint import bp


def init_app(app: Flask) -> None:
    """Register the agents' routes."""
    app.register_blueprint(bp)
