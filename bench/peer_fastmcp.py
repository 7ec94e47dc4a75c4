"""The performance peer (bench/serve.py): the official MCP Python SDK serving `search_catalog`.

`mcp` 2.3.0's `MCPServer` (what was FastMCP) in stateless JSON mode, with a
`search_catalog` tool equivalent to ours: the same arguments, the same
search (mirror.read.catalog over the same Postgres), the same result
fields and provenance. It does what a straightforward SDK server does per
call: look the company up (one indexed query, the gate) and run the search
(one query); there is no render cache. Served by uvicorn:

    DATABASE_URL=... PEER_COMPANY_KEY=... uvicorn --workers 2 bench.peer_fastmcp:app

It answers `POST /mcp`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from pydantic import BaseModel, Field

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from datetime import UTC  # noqa: E402

from mcp.server.mcpserver import MCPServer  # noqa: E402
from mcp.types import ToolAnnotations  # noqa: E402

from mirror.catalog.channels import company_open  # noqa: E402
from mirror.catalog.public_view import freshness  # noqa: E402
from mirror.catalog.trades import TierSlug  # noqa: E402
from mirror.read.catalog import search_catalog  # noqa: E402
from mirror.read.company import open_company_row  # noqa: E402
from mirror.read.gate import entry_of  # noqa: E402
from mirror.runtime.config import load_settings  # noqa: E402
from mirror.service.context import Mirror  # noqa: E402
from mirror.values.money import cents_to_decimal, to_cents  # noqa: E402
from mirror.values.timestamps import rfc3339  # noqa: E402

SETTINGS = load_settings()
MIRROR = Mirror(SETTINGS)
COMPANY_KEY = os.environ.get("PEER_COMPANY_KEY", "")


class Product(BaseModel):
    sku: str
    name: str
    brand: str | None
    category: str
    category_slug: str
    tier: TierSlug | None
    price: float
    model_numbers: list[str]
    description: str | None


class SearchResults(BaseModel):
    query: str
    results: list[Product]
    result_count: int
    total_matches: int
    currency: str
    quote_url: str | None
    last_synced_at: str | None
    freshness_state: str


mcp = MCPServer(name="peer-company-catalog", instructions="One contractor's catalog (benchmark peer).")


@mcp.tool(
    name="search_catalog",
    title="Search the catalog",
    description="Search this contractor's published products by keywords.",
    annotations=ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False),
)
def search_catalog_tool(
    query: str = Field(max_length=200),
    category: str | None = None,
    tier: TierSlug | None = None,
    max_price: float | None = Field(default=None, ge=0),
    limit: int = Field(default=10, ge=1, le=50),
) -> SearchResults:
    """Keyword search over the company's published products."""
    with MIRROR.Session() as session:
        found_company = open_company_row(session, COMPANY_KEY, "mcp")  # one query: the gate, as a plain server asks
        if found_company is None:
            raise ValueError("No such company.")
        company, synced = found_company
        max_cents = to_cents(max_price) if max_price is not None else None
        found = search_catalog(
            session,
            entry_of(company),  # the same search as ours, which knows the catalog's size from its gate entry
            query,
            category_slug=category,
            tier=tier,
            max_price_cents=max_cents,
            limit=limit,
        )
    quote_open = company_open(company, "quote")
    return SearchResults(
        query=query,
        results=[
            Product(
                sku=h.sku,
                name=h.name,
                brand=h.brand,
                category=h.category_name,
                category_slug=h.category_slug,
                tier=h.tier,
                price=float(cents_to_decimal(h.price_cents)),
                model_numbers=h.model_numbers,
                description=h.description,
            )
            for h in found.hits
        ],
        result_count=len(found.hits),
        total_matches=found.total,
        currency=company.currency,
        quote_url=SETTINGS.absolute(f"/companies/{company.plugin_key}/quote") if quote_open else None,
        last_synced_at=rfc3339(synced),
        freshness_state=freshness(synced, SETTINGS.freshness_threshold_seconds, _now()),
    )


def _now():
    from datetime import datetime

    return datetime.now(UTC)


app = mcp.streamable_http_app(stateless_http=True, json_response=True)
