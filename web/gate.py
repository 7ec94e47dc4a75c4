"""The gate chain every keyed public request passes, in this order:

1. resolve the key (one primary-key lookup; for a company the render cache
   does not hold, the same statement also reads its offer groups, so the
   view it is about to build needs no second one);
2. public status and the surface's channel switch (mirror/channels.py, the
   one channel rule; each surface names the one switch that closes it, per
   the switch table of docs/contracts/upstream.md): unknown, churned, not
   live and switched off all answer the ONE 404 of their surface (identical
   status, headers and body; HTML pages the HTML one), before any other work,
   so probing keys learns nothing from status, body or timing: the lookup
   asks for a public company with the channels open, so every closed case
   is the unknown case (the same statement, no row, nothing built);
3. the per-company rate limit (web/limits.py), which therefore never sees,
   counts or refuses a key that is not public;
4. serve: the view renders from the company returned here.

Views call `gate()` first thing and use the company it returns; a refusal is
raised as an HTTP abort carrying the finished response, so no view can forget
to return it. The install-wide endpoints (no key) call
`web.limits.charge_client()` instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import abort, g

from mirror.models import Company
from mirror.public_view import find_public_company
from web.db import db, render_cache
from web.limits import RateLimited, rate_limits
from web.responses import not_found_html, not_found_json


@dataclass(frozen=True)
class GateResult:
    """What the gate decided for this request (read by the invocation log)."""

    channel: str
    company_key: str | None  # None when the key did not pass
    outcome: str  # "served", "not_found" or "rate_limited"


def gate(key: str, channel: str, *, html: bool = False, mcp: bool = False) -> Company:
    """The public company for `key` with its `channel` switch on, or abort.

    Aborts with the surface's 404 or the 429. `html` picks the HTML 404
    (hosted pages); `mcp` the JSON-RPC-shaped 429 (MCP endpoints; their 404 is
    the JSON one, at the HTTP level).
    """
    # This surface's switch alone, in the lookup itself; a company this process
    # holds no view of comes with its offer groups, in the same statement.
    cold = render_cache().peek(key) is None
    company = find_public_company(db(), key, channel, with_offer_groups=cold)
    if company is None:
        g.gate = GateResult(channel, None, "not_found")
        abort(not_found_html() if html else not_found_json())
    try:
        rate_limits().charge_company(company.plugin_key, mcp=mcp)
    except RateLimited as limited:
        g.gate = GateResult(channel, company.plugin_key, "rate_limited")
        abort(limited.response)
    g.gate = GateResult(channel, company.plugin_key, "served")
    return company


def gate_result() -> GateResult | None:
    """This request's gate decision, if a gate ran."""
    return g.get("gate")
