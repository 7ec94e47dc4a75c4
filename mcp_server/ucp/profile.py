"""The UCP business profile of one company (served at `/.well-known/ucp`).

One version (2026-04-08), the `dev.ucp.shopping` service bound to MCP at the
company's absolute endpoint with the official OpenRPC schema, the two
Catalog capabilities, and an empty payment-handler registry (nothing is sold
through UCP checkout here: the quote page is the next step). The document
is self-contained and absolute, so a contractor can serve it verbatim from
the root of its own domain.
"""
from __future__ import annotations

from urllib.parse import urlsplit

from mcp_server.ucp import (
    LOOKUP_CAPABILITY,
    OPENRPC_URL,
    SEARCH_CAPABILITY,
    SHOPPING_SERVICE,
    SPEC_BASE,
    UCP_VERSION,
)
from mirror.config import Settings
from mirror.urls import HOST_UCP_MCP, UCP_MCP, company_path

CACHE_CONTROL = "public, max-age=300"
CAPABILITY_DOCS = {
    SEARCH_CAPABILITY: ("catalog/search", "catalog_search.json"),
    LOOKUP_CAPABILITY: ("catalog/lookup", "catalog_lookup.json"),
}


def company_endpoint(settings: Settings, plugin_key: str) -> str:
    """The company's UCP MCP endpoint under PUBLIC_BASE_URL."""
    return settings.absolute(company_path(UCP_MCP, plugin_key))


def host_root(settings: Settings, host: str) -> str:
    """`scheme://host[:port]` of a COMPANY_HOSTS custom domain, from configuration only.

    `host` is the COMPANY_HOSTS entry as configured; the scheme, and the port
    when the entry names none, are PUBLIC_BASE_URL's (the deployment's
    published ones). Never the request's Host, whose port any client picks.
    """
    base = urlsplit(settings.public_base_url)
    scheme = base.scheme or "https"
    if ":" not in host.rsplit("]", 1)[-1] and base.port is not None:
        host = f"{host}:{base.port}"
    return f"{scheme}://{host}"


def host_endpoint(settings: Settings, host: str) -> str:
    """The UCP endpoint at the root of a COMPANY_HOSTS custom domain (see host_root)."""
    return host_root(settings, host) + HOST_UCP_MCP


def business_profile(endpoint: str) -> dict:
    """The /.well-known/ucp document for a company whose MCP endpoint is `endpoint`."""
    return {
        "ucp": {
            "version": UCP_VERSION,
            "services": {
                SHOPPING_SERVICE: [{
                    "version": UCP_VERSION,
                    "spec": f"{SPEC_BASE}/specification/overview",
                    "transport": "mcp",
                    "schema": OPENRPC_URL,
                    "endpoint": endpoint,
                }],
            },
            "capabilities": {
                name: [{
                    "version": UCP_VERSION,
                    "spec": f"{SPEC_BASE}/specification/{spec}",
                    "schema": f"{SPEC_BASE}/schemas/shopping/{schema}",
                }]
                for name, (spec, schema) in CAPABILITY_DOCS.items()
            },
            "payment_handlers": {},
        }
    }
