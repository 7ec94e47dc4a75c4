"""HTTP routes of UCP (registered on mcp_server.bp; mcp_server/routes.py imports this module).

- `POST /companies/<key>/ucp/mcp`: the company's UCP Catalog endpoint (the
  shared stateless MCP transport);
- `GET /companies/<key>/.well-known/ucp`: its business profile;
- `GET /.well-known/ucp` and `POST /ucp/mcp` at the root of a COMPANY_HOSTS
  custom domain: the same for the company that host is mapped to (UCP
  discovery only looks at a host's root).

Every route passes the shared gate (web.gate) on the company's `mcp` switch
(UCP is one more MCP server of its catalog): unknown, not public or switched
off answers the one JSON 404, as does a root request on a host that is not
mapped; then the per-company rate limit. Profiles are never redirected.
"""
from __future__ import annotations

from flask import Response, request

from mcp_server import bp
from mcp_server.transport import method_not_allowed, preflight, serve
from mcp_server.ucp import CHANNEL
from mcp_server.ucp.profile import CACHE_CONTROL, business_profile, company_endpoint, host_endpoint
from mcp_server.ucp.server import company_for_host, company_host, ucp_server
from mirror.urls import HOST_UCP_MCP, HOST_UCP_PROFILE, UCP_MCP, UCP_PROFILE, flask_rule
from web.db import db, settings
from web.gate import gate
from web.responses import conditional, dumps

_NOT_POST = ["GET", "DELETE", "PUT", "PATCH"]


def _profile_response(endpoint: str) -> Response:
    body = dumps(business_profile(endpoint)).encode("utf-8")
    return conditional(body, mimetype="application/json", cache_control=CACHE_CONTROL)


# --- per-company paths ------------------------------------------------------------------

@bp.post(flask_rule(UCP_MCP), provide_automatic_options=False)
def company_ucp_mcp(key: str) -> Response:
    """One JSON-RPC message to a company's UCP Catalog endpoint."""
    company = gate(key, CHANNEL, mcp=True)
    return serve(ucp_server(db(), company, settings()))


@bp.route(flask_rule(UCP_MCP), methods=["OPTIONS"])
def company_ucp_preflight(key: str) -> Response:
    """CORS preflight from any site (the key is not looked up)."""
    return preflight(None)


@bp.route(flask_rule(UCP_MCP), methods=_NOT_POST, provide_automatic_options=False)
def company_ucp_not_post(key: str) -> Response:
    """POST only: no SSE stream, no sessions."""
    return method_not_allowed(None)


@bp.get(flask_rule(UCP_PROFILE))
def company_ucp_profile(key: str) -> Response:
    """The company's UCP business profile."""
    company = gate(key, CHANNEL)
    return _profile_response(company_endpoint(settings(), company.plugin_key))


# --- the root of a COMPANY_HOSTS custom domain -----------------------------------------------

@bp.post(flask_rule(HOST_UCP_MCP), provide_automatic_options=False)
def host_ucp_mcp() -> Response:
    """The UCP endpoint of the company mapped to this Host."""
    company = gate(company_for_host(settings(), request.host) or "", CHANNEL, mcp=True)
    return serve(ucp_server(db(), company, settings()))


@bp.route(flask_rule(HOST_UCP_MCP), methods=["OPTIONS"])
def host_ucp_preflight() -> Response:
    """CORS preflight from any site (the host is not looked up)."""
    return preflight(None)


@bp.route(flask_rule(HOST_UCP_MCP), methods=_NOT_POST, provide_automatic_options=False)
def host_ucp_not_post() -> Response:
    """POST only: no SSE stream, no sessions."""
    return method_not_allowed(None)


@bp.get(flask_rule(HOST_UCP_PROFILE))
def host_ucp_profile() -> Response:
    """The business profile of the company mapped to this Host; its endpoint is on the host as configured."""
    entry = company_host(settings(), request.host)
    gate(entry[1] if entry else "", CHANNEL)
    return _profile_response(host_endpoint(settings(), entry[0]))  # never the request's port
