"""mcp_server blueprint."""
from flask import Blueprint

bp = Blueprint("mcp_server", __name__)
