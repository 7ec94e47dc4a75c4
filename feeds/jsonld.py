"""JSON-LD: a company's schema.org graph, `GET /companies/<key>.jsonld`.

`company_graph()` (mirror/render/schema_org.py) is the one builder. The `.jsonld`
document, the hosted pages' page-scoped JSON-LD and the NLWeb `/ask`
answers all call it (or its node builders) with the same `CompanyView` the
visible text is rendered from, so structured data and page can never disagree.
"""

from __future__ import annotations

import json

from feeds.blueprint import bp
from mirror.catalog.channels import Channel
from mirror.catalog.public_view import CompanyView
from mirror.catalog.urls import JSONLD, flask_rule
from mirror.render.schema_org import company_graph
from web.db import settings
from web.gate import gate, renderings
from web.responses import conditional

CHANNEL = Channel.JSONLD
MIMETYPE = "application/ld+json"
CACHE_CONTROL = "public, max-age=300"
# Characters that could end a <script> element or start markup when the
# document is pasted into a page; JSON allows them as \u escapes.
_SCRIPT_UNSAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "'": "\\u0027"}


@bp.get(flask_rule(JSONLD))
def company_jsonld(key: str):
    """The company's complete graph, ready to paste verbatim into a script tag."""
    company = gate(key, CHANNEL)
    rendered = renderings(company, options=False).body("jsonld", render_jsonld)
    return conditional(
        rendered.body, mimetype=MIMETYPE, cache_control=CACHE_CONTROL, etag=rendered.etag, expose_etag=True
    )


def render_jsonld(view: CompanyView) -> bytes:
    """The .jsonld body (rendered once per content state by the render cache)."""
    return script_safe_json(company_graph(view, settings())).encode("utf-8")


def script_safe_json(data) -> str:
    """Compact JSON in which `</script>` (or any tag) can never form.

    The same escaping Flask's `tojson` applies, so the document can be pasted
    into `<script type="application/ld+json">` as is.
    """
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    # One str.replace per character: each is a C scan. str.translate looks
    # every character up in the table's dict (265 against 11 us on 4.8 KB of
    # non-ASCII text, measured): a tenth of a cold JSON-LD request.
    for unsafe, escaped in _SCRIPT_UNSAFE.items():
        text = text.replace(unsafe, escaped)
    return text
