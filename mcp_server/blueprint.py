"""The one blueprint of `mcp_server`: each routes module adds its routes to `bp`; the package's `init_app` registers it."""

from flask import Blueprint

bp = Blueprint("mcp_server", "mcp_server")
