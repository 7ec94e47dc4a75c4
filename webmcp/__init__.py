"""The WebMCP embed: /webmcp.js and its demo page."""

from flask import Blueprint, Flask

bp = Blueprint("webmcp", __name__)

from webmcp import routes  # noqa: E402,F401  (register routes)


def init_app(app: Flask) -> None:
    """Register the blueprint (the embed keeps no per-app state)."""
    app.register_blueprint(bp)
