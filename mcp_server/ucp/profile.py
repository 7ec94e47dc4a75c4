"""The UCP business profile of one company (served at `/.well-known/ucp`), in every release served.

Each rendering has one version, the `dev.ucp.shopping` service bound to MCP
at the company's absolute endpoint (one endpoint for every release: the
agent profile's `ucp.version` picks the release of each answer) with that
release's official OpenRPC schema, the two Catalog capabilities, and an
empty payment-handler registry (nothing is sold through UCP checkout here:
the quote page is the next step).

`/.well-known/ucp` is the newest release's rendering (2026-08-25), whose
`supported_versions` maps each older release to the URL of its complete
rendering, `<profile URL>/<version>` (`/.well-known/ucp/2026-04-08`, the
2026-04-08 document as it was before 2026-08-25 was added). Every release's
rendering is also at its own path. A path rather than a query string, so a
cache or a static host that ignores queries still serves the right one.
Documents are self-contained and absolute, so a contractor can serve them
verbatim from the root of its own domain.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from mcp_server.ucp import (
    LOOKUP_CAPABILITY,
    SEARCH_CAPABILITY,
    SHOPPING_SERVICE,
    UCP_VERSIONS,
    openrpc_url,
    spec_base,
)
from mirror.catalog.urls import HOST_UCP_MCP, HOST_UCP_PROFILE, UCP_MCP, UCP_PROFILE, company_path
from mirror.runtime.config import Settings

CACHE_CONTROL = "public, max-age=300"
CAPABILITY_DOCS = {
    SEARCH_CAPABILITY: ("catalog/search", "catalog_search.json"),
    LOOKUP_CAPABILITY: ("catalog/lookup", "catalog_lookup.json"),
}
LATEST_VERSION = UCP_VERSIONS[-1]


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


def company_profile_url(settings: Settings, plugin_key: str) -> str:
    """The company's business profile URL under PUBLIC_BASE_URL (versioned ones append /<version>)."""
    return settings.absolute(company_path(UCP_PROFILE, plugin_key))


def host_endpoint(settings: Settings, host: str) -> str:
    """The UCP endpoint at the root of a COMPANY_HOSTS custom domain (see host_root)."""
    return host_root(settings, host) + HOST_UCP_MCP


def host_profile_url(settings: Settings, host: str) -> str:
    """The business profile URL at the root of a COMPANY_HOSTS custom domain (see host_root)."""
    return host_root(settings, host) + HOST_UCP_PROFILE


def business_profile(endpoint: str, version: str = LATEST_VERSION, profile_url: str | None = None) -> dict:
    """The business profile in one release for a company whose MCP endpoint is `endpoint`.

    `profile_url` (the company's `/.well-known/ucp`) is given for the newest
    release only: its `supported_versions` then links the older renderings.
    """
    base = spec_base(version)
    ucp: dict = {"version": version}
    if profile_url is not None and version == LATEST_VERSION:
        ucp["supported_versions"] = {older: f"{profile_url}/{older}" for older in UCP_VERSIONS if older != version}
    ucp["services"] = {
        SHOPPING_SERVICE: [
            {
                "version": version,
                "spec": f"{base}/specification/overview",
                "transport": "mcp",
                "schema": openrpc_url(version),
                "endpoint": endpoint,
            }
        ],
    }
    ucp["capabilities"] = {
        name: [
            {
                "version": version,
                "spec": f"{base}/specification/{spec}",
                "schema": f"{base}/schemas/shopping/{schema}",
            }
        ]
        for name, (spec, schema) in CAPABILITY_DOCS.items()
    }
    ucp["payment_handlers"] = {}
    return {"ucp": ucp}
