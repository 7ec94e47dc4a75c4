"""UCP (Universal Commerce Protocol, ucp.dev) 2026-04-08: every contractor's catalog as the Catalog capability.

- `profile`: the business profile served at `/companies/{key}/.well-known/ucp`
  (and at `/.well-known/ucp` on a COMPANY_HOSTS custom domain);
- `server` + `tools` + `catalog` + `selection`: the MCP endpoint
  `/companies/{key}/ucp/mcp` with the tools `search_catalog`,
  `lookup_catalog` and `get_product`, served by the shared stateless
  transport (mcp_server.transport);
- `agent_profile`: the safe fetch of the calling agent's profile and the
  capability negotiation UCP requires;
- `routes`: the HTTP routes, registered on mcp_server.bp.

The data mapping (offer group -> Product, published product -> Variant)
lives in mirror.ucp_mapping. Only constants live here, so importing the
package has no side effects.
"""

UCP_VERSION = "2026-04-08"
SHOPPING_SERVICE = "dev.ucp.shopping"
SEARCH_CAPABILITY = "dev.ucp.shopping.catalog.search"
LOOKUP_CAPABILITY = "dev.ucp.shopping.catalog.lookup"
SPEC_BASE = f"https://ucp.dev/{UCP_VERSION}"
OPENRPC_URL = f"{SPEC_BASE}/services/shopping/mcp.openrpc.json"
# The per-company switch that governs every UCP surface of a company (the
# profile and the endpoint): UCP is one more MCP server of its catalog.
CHANNEL = "mcp"
