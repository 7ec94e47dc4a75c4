"""HTTP routes of UCP (registered on mcp_server.bp; mcp_server/routes.py imports this module).

- `POST /companies/<key>/ucp/mcp`: the company's UCP Catalog endpoint (the
  shared stateless MCP transport);
- `GET /companies/<key>/.well-known/ucp`: its business profile (the newest
  release, listing the older ones in `supported_versions`), and
  `.../.well-known/ucp/<version>`: the rendering of one release (an unknown
  version is the one 404);
- `GET /.well-known/ucp[/<version>]` and `POST /ucp/mcp` at the root of a
  COMPANY_HOSTS custom domain: the same for the company that host is mapped
  to (UCP discovery only looks at a host's root).

Every route passes the shared gate (web.gate) on the company's `mcp` switch
(UCP is one more MCP server of its catalog): unknown, not public or switched
off answers the one JSON 404, as does a root request on a host that is not
mapped; then the per-company rate limit. Profiles are never redirected.
"""

from __future__ import annotations

from flask import Response, request

from mcp_server.blueprint import bp
from mcp_server.transport import method_not_allowed, preflight, serve
from mcp_server.ucp import CHANNEL, UCP_VERSIONS
from mcp_server.ucp.profile import (
    CACHE_CONTROL,
    LATEST_VERSION,
    business_profile,
    company_endpoint,
    company_profile_url,
    host_endpoint,
    host_profile_url,
)
from mcp_server.ucp.server import company_for_host, company_host, ucp_server
from mirror.catalog.urls import HOST_UCP_MCP, HOST_UCP_PROFILE, UCP_MCP, UCP_PROFILE, flask_rule
from mirror.values.jsontext import dumps
from web.db import db, settings
from web.gate import following, gate, renderings
from web.responses import conditional, not_found_json

_NOT_POST = ["GET", "DELETE", "PUT", "PATCH"]


def _profile_response(endpoint: str, version: str, profile_url: str) -> Response:
    if version not in UCP_VERSIONS:
        return not_found_json()  # the surface's one 404, as for an unknown company
    body = dumps(business_profile(endpoint, version, profile_url)).encode("utf-8")
    return conditional(body, mimetype="application/json", cache_control=CACHE_CONTROL)


# --- per-company paths ------------------------------------------------------------------


@bp.post(flask_rule(UCP_MCP), provide_automatic_options=False)
def company_ucp_mcp(key: str) -> Response:
    """One JSON-RPC message to a company's UCP Catalog endpoint."""
    company = gate(key, CHANNEL, mcp=True)
    return serve(ucp_server(db(), company, settings(), renderings(company, options=False), following(company)))


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
    """The company's UCP business profile (the newest release)."""
    return company_ucp_profile_of(key, LATEST_VERSION)


# Its own rule, not `defaults=` on the one above: Werkzeug redirects a URL that spells out a default
# (/2026-08-25) to the short one, and a profile is never a redirect.
@bp.get(flask_rule(UCP_PROFILE) + "/<version>")
def company_ucp_profile_of(key: str, version: str) -> Response:
    """The company's UCP business profile in the release named."""
    company = gate(key, CHANNEL)
    return _profile_response(
        company_endpoint(settings(), company.plugin_key), version, company_profile_url(settings(), company.plugin_key)
    )


# --- the root of a COMPANY_HOSTS custom domain -----------------------------------------------


@bp.post(flask_rule(HOST_UCP_MCP), provide_automatic_options=False)
def host_ucp_mcp() -> Response:
    """The UCP endpoint of the company mapped to this Host."""
    company = gate(company_for_host(settings(), request.host) or "", CHANNEL, mcp=True)
    return serve(ucp_server(db(), company, settings(), renderings(company, options=False), following(company)))


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
    """The business profile of the company mapped to this Host (the newest release)."""
    return host_ucp_profile_of(LATEST_VERSION)


@bp.get(flask_rule(HOST_UCP_PROFILE) + "/<version>")
def host_ucp_profile_of(version: str) -> Response:
    """The mapped company's business profile in the release named; its URLs use the host as configured."""
    entry = company_host(settings(), request.host)
    gate(entry[1] if entry else "", CHANNEL)
    host = entry[0]  # the COMPANY_HOSTS entry: never the request's port
    return _profile_response(host_endpoint(settings(), host), version, host_profile_url(settings(), host))
