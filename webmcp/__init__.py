"""The WebMCP embed: /webmcp.js and its demo page."""
from flask import Blueprint

bp = Blueprint("webmcp", __name__)

from webmcp import routes  # noqa: E402,F401  (register routes)
