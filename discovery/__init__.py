"""Documents that describe the surfaces: the OpenAPI 3.1 document (`/openapi.json`).

They sit above the surfaces (they read each one's declarations: routes,
models, limits), so no surface and nothing below imports this package
(import-linter, pyproject.toml). The MCP-specific discovery documents
(server cards, the AI Catalog, llms.txt) live with the MCP servers.
"""

from __future__ import annotations

from flask import Blueprint, Flask, Response

from discovery.openapi import openapi
from mirror.catalog.urls import OPENAPI
from web.db import settings
from web.responses import json_response

bp = Blueprint("discovery", __name__)


@bp.get(OPENAPI)
def openapi_document() -> Response:
    """The OpenAPI 3.1 document."""
    return json_response(openapi(settings()), headers={"Cache-Control": "public, max-age=3600"})


def init_app(app: Flask) -> None:
    """Register the discovery blueprint."""
    app.register_blueprint(bp)
