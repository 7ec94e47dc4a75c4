"""JSON-LD: a company's schema.org graph, `GET /companies/<key>.jsonld`.

`company_graph()` (mirror/render/schema_org.py) is the one builder. The `.jsonld`
document, the hosted pages' page-scoped JSON-LD and the NLWeb `/ask`
answers all call it (or its node builders) with the same `CompanyView` the
visible text is rendered from, so structured data and page can never disagree.
The `.jsonld` body is the one the sync rendered when the company last changed
(mirror/render/documents.py).
"""

from __future__ import annotations

from feeds.blueprint import bp
from mirror.catalog.urls import JSONLD, flask_rule
from mirror.render.documents import JSONLD_DOCUMENT
from web.gate import document, gate
from web.responses import conditional

CHANNEL = JSONLD_DOCUMENT.channel
MIMETYPE = "application/ld+json"
CACHE_CONTROL = "public, max-age=300"


@bp.get(flask_rule(JSONLD))
def company_jsonld(key: str):
    """The company's complete graph, ready to paste verbatim into a script tag."""
    company = gate(key, CHANNEL)
    rendered = document(company, JSONLD_DOCUMENT)
    return conditional(
        rendered.body, mimetype=MIMETYPE, cache_control=CACHE_CONTROL, etag=rendered.etag, expose_etag=True
    )
