"""HTTP routes of the MCP servers.

- `POST /companies/<key>/mcp`: one contractor's catalog server. The gate
  (unknown, not public or `mcp` switched off) answers the one JSON 404 before
  anything else; browsers may call it from any Origin (the WebMCP embed).
- `POST /mcp`: the install-wide provider server; browsers only from
  ALLOWED_ORIGINS (or this site itself).
- Other methods answer 405 with `Allow: POST, OPTIONS` without looking the key
  up, so they reveal nothing about which keys exist.
"""
from __future__ import annotations

from flask import Response

from mcp_server import (
    bp,
    discovery,  # noqa: F401  (registers /.well-known/mcp.json and /llms.txt)
)
from mcp_server.servers import company_server, provider_origins, provider_server
from mcp_server.ucp import routes as _ucp_routes  # noqa: F401  (registers the UCP profile and endpoint)
from mcp_server.transport import method_not_allowed, preflight, serve
from web.db import db, render_cache, settings
from web.gate import gate
from web.limits import charge_client

_NOT_POST = ["GET", "DELETE", "PUT", "PATCH"]


@bp.post("/companies/<key>/mcp", provide_automatic_options=False)
def company_mcp(key: str) -> Response:
    """One JSON-RPC message to a contractor's catalog server."""
    company = gate(key, "mcp", mcp=True)
    return serve(company_server(db(), company, settings(), render_cache().entry(db(), company)))


@bp.route("/companies/<key>/mcp", methods=["OPTIONS"])
def company_mcp_preflight(key: str) -> Response:
    """CORS preflight from any site (the key is not looked up)."""
    return preflight(None)


@bp.route("/companies/<key>/mcp", methods=_NOT_POST, provide_automatic_options=False)
def company_mcp_not_post(key: str) -> Response:
    """No SSE stream and no sessions: POST only."""
    return method_not_allowed(None)


@bp.post("/mcp", provide_automatic_options=False)
def provider_mcp() -> Response:
    """One JSON-RPC message to the provider server."""
    return serve(provider_server(db(), settings()), charge=lambda: charge_client(mcp=True))  # after Host/Origin


@bp.route("/mcp", methods=["OPTIONS"])
def provider_mcp_preflight() -> Response:
    """CORS preflight: only ALLOWED_ORIGINS (and this site) get the allow headers."""
    return preflight(provider_origins(settings()))


@bp.route("/mcp", methods=_NOT_POST, provide_automatic_options=False)
def provider_mcp_not_post() -> Response:
    """No SSE stream and no sessions: POST only."""
    return method_not_allowed(provider_origins(settings()))
