"""pricing.json: `GET /companies/<key>/pricing.json`, the pricing view model.

The body is exactly `CompanyView.pricing_document()`, as the sync rendered
it when the company last changed (mirror/render/documents.py). It is served with a
strong ETag over every byte, so a poller (the WordPress plugin) can ask
`If-None-Match` and get a bodiless 304 until something it would see changes.
`last_synced_at` is part of the body, so the tag also moves after every
successful sync; `content_version` inside it moves only with pricing content.
"""

from __future__ import annotations

from feeds.blueprint import bp
from mirror.catalog.urls import PRICING_JSON, flask_rule
from mirror.render.documents import PRICING_DOCUMENT
from web.gate import document, gate
from web.responses import conditional

CHANNEL = PRICING_DOCUMENT.channel
CACHE_CONTROL = "public, max-age=300"


@bp.get(flask_rule(PRICING_JSON))
def pricing_json(key: str):
    """The company's pricing document, with ETag / If-None-Match support."""
    company = gate(key, CHANNEL)
    rendered = document(company, PRICING_DOCUMENT)
    # Browser clients may read the validator cross-origin too (expose_etag).
    return conditional(
        rendered.body, mimetype="application/json", cache_control=CACHE_CONTROL, etag=rendered.etag, expose_etag=True
    )
