"""UCP (Universal Commerce Protocol, ucp.dev) 2026-04-08 and 2026-08-25: every contractor's catalog as the Catalog capability.

- `profile`: the business profile served at `/companies/{key}/.well-known/ucp`
  (and at `/.well-known/ucp` on a COMPANY_HOSTS custom domain);
- `server` + `tools` + `catalog` + `selection`: the MCP endpoint
  `/companies/{key}/ucp/mcp` with the tools `search_catalog`,
  `lookup_catalog` and `get_product`, served by the shared stateless
  transport (mcp_server.transport);
- `agent_profile`: the safe fetch of the calling agent's profile;
- `versions`: the releases served side by side, and the negotiation UCP
  requires (the agent profile's `ucp.version` picks the release, by exact
  equality; then the capabilities both sides declare at that version);
- `routes`: the HTTP routes, registered on mcp_server.bp.

The data mapping (offer group -> Product, published product -> Variant)
lives in mirror.render.ucp. Only constants and pure helpers live here, so
importing the package has no side effects.
"""

from mirror.catalog.channels import Channel

V2026_04_08 = "2026-04-08"
V2026_08_25 = "2026-08-25"
# Oldest first; the last is the one `/.well-known/ucp` answers in (mcp_server.ucp.versions).
UCP_VERSIONS = (V2026_04_08, V2026_08_25)
SHOPPING_SERVICE = "dev.ucp.shopping"
SEARCH_CAPABILITY = "dev.ucp.shopping.catalog.search"
LOOKUP_CAPABILITY = "dev.ucp.shopping.catalog.lookup"


def spec_base(version: str) -> str:
    """Where a release's specification, schemas and services are published."""
    return f"https://ucp.dev/{version}"


def openrpc_url(version: str) -> str:
    """A release's official MCP binding (OpenRPC) of the shopping service."""
    return f"{spec_base(version)}/services/shopping/mcp.openrpc.json"


# The per-company switch that governs every UCP surface of a company (the
# profile and the endpoint): UCP is one more MCP server of its catalog.
CHANNEL = Channel.MCP
