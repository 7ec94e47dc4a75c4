"""Domain discovery: the AI Catalog and the MCP Server Cards (SEP-2127).

- `/.well-known/ai-catalog.json` (`application/ai-catalog+json`) lists the
  install's server cards: the provider server's and the per-company server's
  template. It never enumerates companies.
- `<streamable-http-url>/server-card` (`application/mcp-server-card+json`):
  `/mcp/server-card` for the provider server, `/companies/{key}/mcp/server-card`
  for one contractor's catalog server (the `mcp` channel's gate decides, like
  the endpoint itself), and `/mcp/company-server-card` for the per-company
  template, whose remote URL carries a `{plugin_key}` variable.

Cards describe identity and connection only; tools stay a runtime listing
(`tools/list`), as the discovery text asks, so the card cannot drift from the
one tool declaration. Every document is public, read-only, `Cache-Control:
public, max-age=3600`, with an ETag (304 on If-None-Match) and the CORS headers
browser clients need.
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from flask import Response

from mcp_server.blueprint import bp
from mcp_server.discovery import CACHE_CONTROL, CARD_SCHEMA, COMPANY_TEMPLATE, card_namespace
from mcp_server.jsonrpc import SUPPORTED_VERSIONS
from mcp_server.servers import SERVER_VERSION
from mirror.catalog import urls
from mirror.catalog.channels import Channel
from mirror.read.gate import GateEntry
from mirror.runtime.config import Settings
from web.db import settings
from web.gate import gate
from web.responses import conditional

AI_CATALOG_TYPE = "application/ai-catalog+json"
SERVER_CARD_TYPE = "application/mcp-server-card+json"
AI_CATALOG_SPEC_VERSION = "1.0"
# Headers the discovery text requires on hosted cards (browser clients send
# If-None-Match, which is not CORS-safelisted, so they preflight).
CARD_CORS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "GET",
    "Access-Control-Allow-Headers": "Content-Type, If-None-Match",
    "Access-Control-Expose-Headers": "ETag",
}
TITLE_LIMIT = 100  # the schema's maxLength for title (and description)
PLUGIN_KEY_VARIABLE = {
    "description": "The contractor's pluginKey: the id in the business feed (/v1/businesses), also returned as "
    "business_id by the provider server's search_businesses.",
    "isRequired": True,
}


def provider_card(settings: Settings) -> dict:
    """The provider server's card (the install-wide directory)."""
    return {
        "$schema": CARD_SCHEMA,
        "name": f"{card_namespace(settings)}/{settings.provider_name}",
        "version": SERVER_VERSION,
        "title": f"{settings.provider_name} contractor directory",
        "description": "Find contractors by ZIP, category and keywords; check coverage; open a quote request.",
        "websiteUrl": settings.public_base_url,
        "remotes": [_remote(settings.absolute(urls.PROVIDER_MCP))],
    }


def company_template_card(settings: Settings) -> dict:
    """The per-company catalog server, as one card whose remote URL is a template."""
    return {
        "$schema": CARD_SCHEMA,
        "name": f"{card_namespace(settings)}/company-catalog",
        "version": SERVER_VERSION,
        "title": "Contractor catalog",
        "description": "One contractor's published installed prices: search, tier comparisons, service area.",
        "websiteUrl": settings.public_base_url,
        "remotes": [_remote(settings.absolute(COMPANY_TEMPLATE), variables={"plugin_key": PLUGIN_KEY_VARIABLE})],
    }


def company_card(settings: Settings, company: GateEntry) -> dict:
    """One contractor's catalog server card (the template, expanded for `company`).

    The title carries the contractor's name: data, not instructions, like every
    other contractor text the server hands out.
    """
    card = company_template_card(settings)
    card["name"] = f"{card_namespace(settings)}/company-{company.plugin_key}"
    card["title"] = f"{company.name[: TITLE_LIMIT - len(' catalog')]} catalog"
    card["remotes"] = [_remote(settings.absolute(urls.company_path(urls.COMPANY_MCP, company.plugin_key)))]
    return card


def ai_catalog(settings: Settings) -> dict:
    """The install's AI Catalog: one entry per server card it hosts."""
    publisher = urlsplit(settings.public_base_url).hostname or "localhost"
    return {
        "specVersion": AI_CATALOG_SPEC_VERSION,
        "entries": [
            {
                "identifier": f"urn:air:{publisher}:mcp:{settings.provider_name}",
                "type": SERVER_CARD_TYPE,
                "url": settings.absolute(urls.PROVIDER_SERVER_CARD),
            },
            {
                "identifier": f"urn:air:{publisher}:mcp:company-catalog",
                "type": SERVER_CARD_TYPE,
                "url": settings.absolute(urls.COMPANY_TEMPLATE_SERVER_CARD),
            },
        ],
    }


def _remote(url: str, variables: dict | None = None) -> dict:
    remote = {"type": "streamable-http", "url": url, "supportedProtocolVersions": list(SUPPORTED_VERSIONS)}
    if variables:
        remote["variables"] = variables
    return remote


def _document(document: dict, media_type: str) -> Response:
    body = json.dumps(document, ensure_ascii=False, indent=2).encode("utf-8")
    response = conditional(body, mimetype=media_type, cache_control=CACHE_CONTROL)
    response.headers.update(CARD_CORS)
    return response


def _preflight() -> Response:
    response = Response(status=204)
    response.headers.update(CARD_CORS)
    response.headers["Access-Control-Max-Age"] = "86400"
    return response


@bp.route(urls.AI_CATALOG, methods=["GET"], provide_automatic_options=False)
def ai_catalog_document() -> Response:
    """The AI Catalog for domain-level discovery."""
    return _document(ai_catalog(settings()), AI_CATALOG_TYPE)


@bp.route(urls.PROVIDER_SERVER_CARD, methods=["GET"], provide_automatic_options=False)
def provider_card_document() -> Response:
    """The provider server's card."""
    return _document(provider_card(settings()), SERVER_CARD_TYPE)


@bp.route(urls.COMPANY_TEMPLATE_SERVER_CARD, methods=["GET"], provide_automatic_options=False)
def company_template_card_document() -> Response:
    """The per-company server's templated card."""
    return _document(company_template_card(settings()), SERVER_CARD_TYPE)


@bp.route(urls.flask_rule(urls.COMPANY_SERVER_CARD), methods=["GET"], provide_automatic_options=False)
def company_card_document(key: str) -> Response:
    """One contractor's server card; the `mcp` gate answers unknown and closed keys with its one 404."""
    return _document(company_card(settings(), gate(key, Channel.MCP)), SERVER_CARD_TYPE)


def _register_preflights() -> None:
    """OPTIONS on every discovery document: the CORS answer, with no key looked up."""
    paths = (
        urls.AI_CATALOG,
        urls.PROVIDER_SERVER_CARD,
        urls.COMPANY_TEMPLATE_SERVER_CARD,
        urls.flask_rule(urls.COMPANY_SERVER_CARD),
    )
    for number, path in enumerate(paths):
        bp.add_url_rule(
            path,
            f"discovery_{number}_preflight",
            lambda **_: _preflight(),
            methods=["OPTIONS"],
            provide_automatic_options=False,
        )


_register_preflights()
