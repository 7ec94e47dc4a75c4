"""A2A 1.0 agents: one per public company (its catalog), and the install's directory agent.

Skills are the MCP tool declarations (agent_tools), reached by message;
see a2a_server/skills.py. Each module adds its routes to the one blueprint `bp`.
"""

from flask import Blueprint, Flask

bp = Blueprint("a2a_server", __name__)

from a2a_server import routes  # noqa: E402,F401  (register routes)


def init_app(app: Flask) -> None:
    """Register the agents' routes."""
    app.register_blueprint(bp)
