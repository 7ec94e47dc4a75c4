"""HTTP routes of the MCP servers.

- `POST /companies/<key>/mcp`: one contractor's catalog server, for remote
  agents. The gate (unknown, not public or `mcp` switched off) answers the
  one JSON 404 before anything else; browsers may call it from any Origin.
- `POST /companies/<key>/webmcp/mcp`: the same server (same transport, same
  tools, same per-company budget) for webmcp.js, the in-browser agent on the
  contractor's own site. It is gated by the `webmcp` switch alone, so an owner
  who switches off `mcp` keeps a working embed and the other way round
  (channels are independent: docs/contracts/upstream.md). Any Origin, like
  the endpoint above: the embed runs on whatever hosts the contractor's pages
  (its own domain, a `www.` twin, a site builder's preview), the calls carry
  no credentials and the answers are public catalog data, so an Origin list
  would only break real sites. Discovery documents do not list it: it is the
  embed's, not an endpoint to advertise to remote agents.
- `POST /mcp`: the install-wide provider server; browsers only from
  ALLOWED_ORIGINS (or this site itself).
- Other methods answer 405 with `Allow: POST, OPTIONS` without looking the key
  up, so they reveal nothing about which keys exist.
"""

from __future__ import annotations

from flask import Response

from mcp_server import (
    discovery,  # noqa: F401  (registers /.well-known/mcp.json and /llms.txt)
    server_cards,  # noqa: F401  (registers the AI Catalog and the server cards)
)
from mcp_server.blueprint import bp
from mcp_server.servers import company_server, provider_origins, provider_server
from mcp_server.transport import method_not_allowed, preflight, serve
from mcp_server.ucp import routes as _ucp_routes  # noqa: F401  (registers the UCP profile and endpoint)
from mirror.catalog.channels import Channel
from mirror.catalog.urls import COMPANY_MCP, PROVIDER_MCP, WEBMCP_MCP, flask_rule
from web.db import db, settings
from web.gate import following, gate, gate_state, renderings
from web.limits import charge_client

_NOT_POST = ["GET", "DELETE", "PUT", "PATCH"]
# webmcp.js builds the same path from its own URL (webmcp/embed.js `CALLS`).
WEBMCP_CALLS = flask_rule(WEBMCP_MCP)


def _company_catalog(key: str, channel: str) -> Response:
    """One JSON-RPC message to a contractor's catalog server, behind `channel`'s gate."""
    company = gate(key, channel, mcp=True)
    return serve(
        company_server(db(), company, settings(), renderings(company, options=False), follow=following(company))
    )


@bp.post(flask_rule(COMPANY_MCP), provide_automatic_options=False)
def company_mcp(key: str) -> Response:
    """One JSON-RPC message to a contractor's catalog server (the `mcp` switch)."""
    return _company_catalog(key, Channel.MCP)


@bp.route(flask_rule(COMPANY_MCP), methods=["OPTIONS"])
def company_mcp_preflight(key: str) -> Response:
    """CORS preflight from any site (the key is not looked up)."""
    return preflight(None)


@bp.route(flask_rule(COMPANY_MCP), methods=_NOT_POST, provide_automatic_options=False)
def company_mcp_not_post(key: str) -> Response:
    """No SSE stream and no sessions: POST only."""
    return method_not_allowed(None)


@bp.post(WEBMCP_CALLS, provide_automatic_options=False)
def company_webmcp(key: str) -> Response:
    """webmcp.js's tools/call to the same catalog server (the `webmcp` switch alone)."""
    return _company_catalog(key, Channel.WEBMCP)


@bp.route(WEBMCP_CALLS, methods=["OPTIONS"])
def company_webmcp_preflight(key: str) -> Response:
    """CORS preflight from any site: the embed runs on the contractor's pages (the key is not looked up)."""
    return preflight(None)


@bp.route(WEBMCP_CALLS, methods=_NOT_POST, provide_automatic_options=False)
def company_webmcp_not_post(key: str) -> Response:
    """No SSE stream and no sessions: POST only."""
    return method_not_allowed(None)


@bp.post(flask_rule(PROVIDER_MCP), provide_automatic_options=False)
def provider_mcp() -> Response:
    """One JSON-RPC message to the provider server."""
    return serve(
        provider_server(db(), settings(), gate_state().last_success_at), charge=lambda: charge_client(mcp=True)
    )  # after Host/Origin


@bp.route(flask_rule(PROVIDER_MCP), methods=["OPTIONS"])
def provider_mcp_preflight() -> Response:
    """CORS preflight: only ALLOWED_ORIGINS (and this site) get the allow headers."""
    return preflight(provider_origins(settings()))


@bp.route(flask_rule(PROVIDER_MCP), methods=_NOT_POST, provide_automatic_options=False)
def provider_mcp_not_post() -> Response:
    """No SSE stream and no sessions: POST only."""
    return method_not_allowed(provider_origins(settings()))
