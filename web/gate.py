"""The gate chain every keyed public request passes, in this order:

1. resolve the key in the process's gate state (mirror/read/gate.py): no
   query; the state follows every sync's commit within a second;
2. public status and the surface's channel switch (mirror/catalog/channels.py, the
   one gate rule; each surface names the one switch that closes it, per the
   switch table of docs/contracts/upstream.md): unknown, churned, not live
   and switched off all answer the ONE 404 of their surface (identical
   status, headers and body; HTML pages the HTML one), before any other
   work, so probing keys learns nothing from status, body or timing: a
   closed company has no entry, exactly like an unknown key;
3. the per-company rate limit (web/limits.py), which therefore never sees,
   counts or refuses a key that is not public;
4. serve: a stored document (`document()`: pricing.json, the JSON-LD and
   the hosted pages, as the sync rendered them, mirror/render/documents.py),
   or the view's renderings (`renderings()`), which the render cache holds
   for the state's stamp: complete for a document that lists every option
   and no stored row serves, the summary for everything else
   (mirror/render/cache.py).

Every keyed view calls `gate()` first and serves from `renderings()` (all
but `/companies/{key}/webmcp.json`, which by design answers `{"enabled":
false}` for a closed key instead of a 404, from the same gate state); a
refusal is raised as an HTTP abort carrying the finished response, so no view
can forget to return it. The install-wide endpoints (no key) call
`web.limits.charge_client()` instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from flask import abort, current_app, g

from mirror.catalog.channels import Channel
from mirror.catalog.public_view import CompanyView
from mirror.read.company import load_company_snapshot
from mirror.read.gate import GateEntry, MirrorState, StateMoved
from mirror.render.cache import CompanyRenderings, Rendered
from mirror.render.documents import Document
from web.db import db, render_cache, settings
from web.limits import RateLimited, rate_limits
from web.responses import not_found_html, not_found_json

MAX_ATTEMPTS = 3  # polls a request may make for a company the database keeps moving under


@dataclass(frozen=True)
class GateResult:
    """What the gate decided for this request (read by the invocation log)."""

    channel: str
    company_key: str | None  # None when the key did not pass
    outcome: str  # "served", "not_found" or "rate_limited"


def gate_state() -> MirrorState:
    """The process's current gate state (confirmed within the last second)."""
    return current_app.extensions["mirror"].gate_state.current()


def gate(key: str, channel: Channel | str, *, html: bool = False, mcp: bool = False) -> GateEntry:
    """The gate entry of the public company for `key` with its `channel` switch on, or abort.

    Aborts with the surface's 404 or the 429. `html` picks the HTML 404
    (hosted pages); `mcp` the JSON-RPC-shaped 429 (MCP endpoints; their 404 is
    the JSON one, at the HTTP level). The state the gate decided at is the
    one `renderings()` serves from.
    """
    state = gate_state()
    g.gate_html = html
    company = state.open_company(key, channel)
    if company is None:
        _not_found(channel)
    try:
        rate_limits().charge_company(company.plugin_key, mcp=mcp)
    except RateLimited as limited:
        g.gate = GateResult(channel, company.plugin_key, "rate_limited")
        abort(limited.response)
    g.gate = GateResult(channel, company.plugin_key, "served")
    g.gate_state = state
    return company


def renderings(company: GateEntry, *, options: bool) -> CompanyRenderings:
    """The gated company's renderings at the gate's state (no query when the render cache holds them).

    `options`: the caller renders every option (pricing.json, the hosted
    pages); False: the summary view (tools, JSON-LD), whose miss costs the
    same whatever the catalog's size.

    When the database is already past that state for the company (a sync
    committed since the last poll), the state is refreshed and the company
    gated again (`following`): it may have closed meanwhile (the surface's 404).
    """
    state = g.gate_state
    for _attempt in range(MAX_ATTEMPTS):
        try:
            return render_cache().entry(db(), company, state, options=options)
        except StateMoved:
            company, state = _gated_again(company)
    raise StateMoved(company.plugin_key)  # it kept moving under every poll: a 503, retry (web/health.py)


def document(company: GateEntry, document: Document) -> Rendered:
    """The gated company's `document` (pricing.json, JSON-LD): the bytes the sync stored for it, filled in at
    this moment (one primary-key read on a miss, mirror/render/documents.py); rendered from its view when no
    stored row serves (a company the sync has not rendered yet, or not in this release's format)."""
    stored = render_cache().document(db(), company, g.gate_state, document)
    if stored is not None:
        return stored
    return renderings(company, options=document.options).body(
        document.kind, lambda view: document.render(view, settings())
    )


def named_view(key: str) -> CompanyView | None:
    """The view of a public company an answer names (found by a read, not by its key in a URL), or None.

    From the render cache at the process's gate state, like every keyed
    surface (no channel is gated and no limit charged here: the request was
    charged for the question); read from the database when the state moved
    past the process's (a sync committed since the last poll). The summary:
    an answer shows a business and its categories, never their options.
    """
    state = gate_state()
    company = state.open_company(key)
    if company is not None:
        try:
            return render_cache().entry(db(), company, state, options=False).view
        except StateMoved:
            pass
    snapshot = load_company_snapshot(db(), key, options=False)
    return snapshot.view(current_app.extensions["mirror"].settings) if snapshot is not None else None


def following(company: GateEntry) -> Callable[[], tuple[GateEntry, CompanyRenderings]]:
    """For a tool layer that met StateMoved: the company gated again at a refreshed state, and its renderings
    (the summary: tools show no options)."""

    def follow() -> tuple[GateEntry, CompanyRenderings]:
        moved, _state = _gated_again(company)
        return moved, renderings(moved, options=False)

    return follow


def _gated_again(company: GateEntry) -> tuple[GateEntry, MirrorState]:
    watcher = current_app.extensions["mirror"].gate_state
    state = watcher.refresh(after=watcher.clock())  # a poll that began after the mismatch was seen
    g.gate_state = state
    moved = state.open_company(company.plugin_key, g.gate.channel)
    if moved is None:
        _not_found(g.gate.channel)
    return moved, state


def _not_found(channel: str):
    g.gate = GateResult(channel, None, "not_found")
    abort(not_found_html() if g.get("gate_html") else not_found_json())


def gate_result() -> GateResult | None:
    """This request's gate decision, if a gate ran."""
    return g.get("gate")
