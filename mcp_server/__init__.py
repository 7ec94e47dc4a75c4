"""MCP servers: the per-company catalog server and the install-wide provider server.

Each module adds its routes to the one blueprint `bp`.
"""
from flask import Blueprint

bp = Blueprint("mcp_server", __name__)

from mcp_server import host_guard, routes  # noqa: E402,F401  (register the Host check and the routes)
