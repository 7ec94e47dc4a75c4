"""The UCP catalog endpoint of one company as a `ServerSpec` of the shared stateless transport.

UCP clients call `tools/call` with no `initialize`, send `Accept:
application/json` only and put `meta` even on `tools/list`; the transport
accepts all of that as it is (each POST is answered on its own, JSON only,
unknown params ignored). Generic MCP clients can still `initialize` and
`tools/list` first.
"""

from __future__ import annotations

import json
import re

from flask import current_app

from agent_tools.company import at_gate_state
from mcp_server.servers import CONTRACTOR_TEXT_WARNING, SERVER_VERSION
from mcp_server.transport import ServerSpec
from mcp_server.ucp import UCP_VERSIONS
from mcp_server.ucp.agent_profile import AgentProfiles, ProfileError, fetch_policy
from mcp_server.ucp.catalog import UcpContext
from mcp_server.ucp.tools import UCP_TOOLS
from mirror.read import ReadSession as Session
from mirror.read.gate import GateEntry
from mirror.render.cache import CompanyRenderings
from mirror.runtime.config import Settings
from web.limits import RateLimited, rate_limits

_EXTENSION_KEY = "ucp_agent_profiles"
_PORT_RE = re.compile(r":\d+$")
_NAME_LIMIT = 120


def init_agent_profiles(app, settings: Settings) -> None:
    """Give the app its agent-profile cache (one per app, shared by all requests and threads)."""
    app.extensions[_EXTENSION_KEY] = AgentProfiles(
        fetch_policy(settings), concurrency=settings.ucp_profile_fetch_concurrency
    )


def agent_profiles() -> AgentProfiles:
    """The app's agent-profile cache."""
    return current_app.extensions[_EXTENSION_KEY]


def charge_profile_fetch() -> None:
    """The per-client limit on agent-profile fetches, as UCP's retryable profile_unreachable."""
    try:
        rate_limits().charge_profile_fetch()
    except RateLimited as limited:
        raise ProfileError(
            "profile_unreachable",
            "This client has asked for too many agent-profile fetches; retry "
            f"after {limited.retry_after} s, or serve the profile with a "
            "longer Cache-Control max-age.",
        ) from None


def ucp_server(
    session: Session, company: GateEntry, settings: Settings, renderings: CompanyRenderings, follow=None
) -> ServerSpec:
    """The UCP Catalog server of one (already gated) company."""
    context = UcpContext(
        session=session,
        company=company,
        settings=settings,
        profiles=agent_profiles(),
        renderings=renderings,
        before_fetch=charge_profile_fetch,
        follow=follow,
    )
    name = json.dumps(company.name[:_NAME_LIMIT], ensure_ascii=False)  # contractor text, quoted as data
    return ServerSpec(
        name=f"{settings.provider_name}-ucp-catalog",
        version=SERVER_VERSION,
        title=f"{company.name[:_NAME_LIMIT]} catalog (UCP)",
        instructions=lambda: (
            f"This endpoint speaks the Universal Commerce Protocol ({' and '.join(UCP_VERSIONS)}) Catalog "
            f"capability for one contractor, {name}: search_catalog, lookup_catalog and get_product, each taking "
            '{"meta": {"ucp-agent": {"profile": <your UCP profile URL>}}, "catalog": {...}}; the ucp.version of '
            "that profile picks the release of the answer. Products are "
            "categories of installed systems and parts, variants the contractor's published products; prices are "
            "published installed estimates in minor units, and the quote page (url, seller links) is the next "
            "step. " + CONTRACTOR_TEXT_WARNING
        ),
        tools=UCP_TOOLS,
        call_tool=lambda tool, arguments: at_gate_state(context, lambda ctx: tool.run(ctx, arguments)),
        allowed_origins=None,  # a public, read-only catalog: browsers may call it from any site
    )


def company_host(settings: Settings, host: str | None) -> tuple[str, str] | None:
    """(the COMPANY_HOSTS entry, its pluginKey) a request's Host matches: exact first, then without the port.

    The entry is the configured spelling: URLs built for that host use it,
    never the request's Host (whose port any client chooses).
    """
    hosts = settings.company_hosts
    value = (host or "").strip().lower()
    if not value:
        return None
    if value in hosts:
        return value, hosts[value]
    bare = _PORT_RE.sub("", value)
    return (bare, hosts[bare]) if bare != value and bare in hosts else None


def company_for_host(settings: Settings, host: str | None) -> str | None:
    """The pluginKey COMPANY_HOSTS maps a request's Host to: exact match first, then without the port."""
    entry = company_host(settings, host)
    return entry[1] if entry else None
