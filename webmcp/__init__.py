"""The WebMCP embed: /webmcp.js and its demo page."""

from flask import Flask

from webmcp import routes  # noqa: F401  (register routes)
from webmcp.blueprint import bp


def init_app(app: Flask) -> None:
    """Register the blueprint (the embed keeps no per-app state)."""
    app.register_blueprint(bp)
