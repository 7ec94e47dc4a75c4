"""URL rules shared by every surface: the public route paths, safe redirect targets and referrer stamping.

The path templates below are the one route table: the Flask blueprints
register their rules from them (`flask_rule`), the OpenAPI document lists
them as they are, and every absolute URL a payload carries is built from
them (`company_path`). `{key}` is the company's pluginKey.
"""

from __future__ import annotations

from urllib.parse import quote, unquote_plus, urlsplit, urlunsplit

from mirror.catalog.records import normalise_url

REFERRER_VARIABLES = ("ref", "referrer", "utm_source")

# --- the route table -----------------------------------------------------------
JSONLD = "/companies/{key}.jsonld"
PRICING_JSON = "/companies/{key}/pricing.json"
PRICING_PAGE = "/companies/{key}/pricing"
QUOTE_PAGE = "/companies/{key}/quote"
COMPANY_MCP = "/companies/{key}/mcp"
UCP_MCP = "/companies/{key}/ucp/mcp"
UCP_PROFILE = "/companies/{key}/.well-known/ucp"
WEBMCP_SWITCH = "/companies/{key}/webmcp.json"
WEBMCP_DEMO = "/companies/{key}/webmcp-demo"
WEBMCP_MCP = "/companies/{key}/webmcp/mcp"  # webmcp.js's calls (the `webmcp` switch alone)
COMPANY_SERVER_CARD = "/companies/{key}/mcp/server-card"
COMPANY_AGENT_CARD = "/companies/{key}/.well-known/agent-card.json"
COMPANY_A2A = "/companies/{key}/a2a"
COMPANY_ASK = "/companies/{key}/ask"  # NLWeb: the contractor's answers (its `a2a` switch)
PROVIDER_MCP = "/mcp"
BUSINESS_FEED = "/v1/businesses"
# Answered for the company mapped to the request's Host (COMPANY_HOSTS).
HOST_UCP_MCP = "/ucp/mcp"
HOST_UCP_PROFILE = "/.well-known/ucp"
WEBMCP_JS = "/webmcp.js"
WEBMCP_DEMO_JS = "/webmcp-demo.js"
MCP_SERVER_CARD = "/.well-known/mcp.json"  # the earlier single-document card, kept
AI_CATALOG = "/.well-known/ai-catalog.json"
PROVIDER_SERVER_CARD = "/mcp/server-card"
COMPANY_TEMPLATE_SERVER_CARD = "/mcp/company-server-card"
AGENT_CARD = "/.well-known/agent-card.json"  # the directory agent (or a COMPANY_HOSTS company's)
ROOT_A2A = "/a2a"
ROOT_ASK = "/ask"  # NLWeb: the directory's answers across contractors
LLMS_TXT = "/llms.txt"
# Operations (not per company; never rate limited, never logged as invocations).
HEALTHZ = "/healthz"
READYZ = "/readyz"
METRICS = "/metrics"
OPENAPI = "/openapi.json"


def company_path(template: str, plugin_key: str) -> str:
    """A route template filled with one company's key (percent-encoded, `/` included)."""
    return template.replace("{key}", quote(plugin_key, safe=""))


def flask_rule(template: str) -> str:
    """The Flask URL rule of a route template (`{key}` becomes `<key>`)."""
    return template.replace("{key}", "<key>")


def redirect_target(url: str | None) -> str | None:
    """The URL a surface may redirect to or link for `url`, in its normal form, else None.

    Only URLs that pass the sync's URL rule (mirror.catalog.records.normalise_url:
    absolute http(s), the host a browser would go to, valid port, at most
    URL_MAX_LENGTH characters) are redirected to. Rows stored before that
    rule was complete are held to it here too, and published normalised.
    """
    return normalise_url(url) if url else None


def image_schemes(public_base_url: str) -> tuple[str, ...]:
    """The schemes of the images the hosted pages show (docs/pricing-page.md, "Pictures").

    `https`; and `http` too where the pages themselves are served over http
    (a laptop's demo: PUBLIC_BASE_URL http), since there an http image is no
    mixed content. The pages' Content-Security-Policy allows exactly these.
    """
    return ("https", "http") if urlsplit(public_base_url).scheme == "http" else ("https",)


def page_image(url: str | None, public_base_url: str) -> str | None:
    """`url` when a hosted page may show it as an image (its scheme is one of `image_schemes`), else None."""
    if not url:
        return None
    return url if urlsplit(url).scheme in image_schemes(public_base_url) else None


def stamp_referrer(url: str, stamp: str) -> str:
    """Replace the value of each referrer variable already on the URL with `stamp`.

    Names match case-insensitively (`ref`, `referrer`, `utm_source`); none is
    added; order, other parameters and the fragment are kept.
    """
    parts = urlsplit(url)
    if not parts.query:
        return url
    # Work on the raw segments so every other parameter keeps its exact bytes.
    segments = parts.query.split("&")
    stamped = [_stamp_segment(segment, stamp) for segment in segments]
    if stamped == segments:
        return url
    return urlunsplit(parts._replace(query="&".join(stamped)))


def _stamp_segment(segment: str, stamp: str) -> str:
    name, _sep, _value = segment.partition("=")
    if unquote_plus(name).lower() not in REFERRER_VARIABLES:
        return segment
    return name + "=" + quote(stamp, safe="")
