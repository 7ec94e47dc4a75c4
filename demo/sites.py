"""Stand-ins for the demo contractors' own sites, served by the demo upstream on its own port.

The demo's companies name sites that do not exist (`www.tudimechanical.example`,
`shop.example`, `images.catalog.example`): on a laptop with no network a
quote redirect to them, a "Visit website" link or a product picture opens
nothing. With stand-ins on (`demo-upstream --stand-ins`, the default, which
`make run` uses), the upstream publishes each such URL of its records as the
same URL under its own address, `/sites/<host><path>`:

    https://www.tudimechanical.example/estimate?ref=site
    -> http://127.0.0.1:8001/sites/www.tudimechanical.example/estimate?ref=site

and answers there: a picture (an SVG) for an image path, else a small page
saying whose site it stands for and what the visitor arrived with (the
`ref` the mirror stamped). The mirror treats those URLs as any contractor's
(its funnel rule, docs/contracts/upstream.md, is unchanged); only the demo's
data points at the stand-ins. Without stand-ins (the tests' and benchmarks'
`start_in_thread`), the records are served as stored.
"""

from __future__ import annotations

import hashlib
from html import escape
from urllib.parse import urlsplit

from werkzeug.wrappers import Request, Response

SITES_PATH = "/sites/"
# Only hosts of the reserved .example domain stand in: no real site is ever rewritten.
STAND_IN_SUFFIX = ".example"
_COMPANY_URLS = ("website",)
_SETTINGS_URLS = ("systems_estimate_url", "concom_shop_url")
_PRODUCT_URLS = ("image_url",)
_IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".gif", ".svg")


def stand_in_url(value, base: str):
    """`value` under `base`/sites/ when it is a URL (or a bare host) on a .example host; else `value` as it is."""
    if not isinstance(value, str) or not value:
        return value
    text = value if "://" in value else f"https://{value}"
    try:
        parts = urlsplit(text)
        host = parts.hostname
    except ValueError:
        return value
    if parts.scheme not in ("http", "https") or not host or not host.endswith(STAND_IN_SUFFIX) or "@" in parts.netloc:
        return value
    query = f"?{parts.query}" if parts.query else ""
    fragment = f"#{parts.fragment}" if parts.fragment else ""
    return f"{base}{SITES_PATH}{host}{parts.path or '/'}{query}{fragment}"


def stand_in_record(record, base: str):
    """A served record with its site URLs on the stand-ins (a new dict; the stored one is never changed)."""
    if not isinstance(record, dict):
        return record
    fields = _PRODUCT_URLS if "sku" in record else _COMPANY_URLS
    changed = {name: stand_in_url(record[name], base) for name in fields if name in record}
    settings = record.get("settings")
    if "sku" not in record and isinstance(settings, dict):
        urls = {name: stand_in_url(settings[name], base) for name in _SETTINGS_URLS if name in settings}
        changed["settings"] = {**settings, **urls}
    return {**record, **changed}


def stand_in_response(request: Request) -> Response:
    """The stand-in page or picture for `/sites/<host><path>`."""
    host, _, rest = request.path[len(SITES_PATH) :].partition("/")
    path = "/" + rest
    if path.lower().endswith(_IMAGE_SUFFIXES):
        return Response(_picture(host, path), content_type="image/svg+xml", headers={"Cache-Control": "max-age=3600"})
    query = request.query_string.decode("latin-1")
    arrived = f"<p>It arrived with <code>{escape(query)}</code>.</p>" if query else ""
    body = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Stand-in for {escape(host)}</title></head>"
        '<body style="font:16px/1.5 system-ui,sans-serif;max-width:40em;margin:40px auto;padding:0 20px">'
        f"<h1>Stand-in for {escape(host)}{escape(path)}</h1>"
        "<p>In the demo, the contractor's own site is this page, served by the demo upstream: a real "
        "contractor's quote page (or website) opens here.</p>"
        f"{arrived}</body></html>"
    )
    return Response(body, content_type="text/html; charset=utf-8")


def _picture(host: str, path: str) -> str:
    """A 4:3 SVG picture labelled with the image's file name, its colour drawn from its folder."""
    folder, _, name = path.rpartition("/")
    hue = int(hashlib.sha256((host + folder).encode()).hexdigest()[:4], 16) % 360
    label = escape(name.rsplit(".", 1)[0].upper()[:18])
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300" viewBox="0 0 400 300">'
        f'<rect width="400" height="300" fill="hsl({hue},45%,88%)"/>'
        f'<rect x="120" y="70" width="160" height="130" rx="10" fill="hsl({hue},40%,60%)"/>'
        f'<rect x="140" y="90" width="120" height="70" rx="6" fill="hsl({hue},35%,80%)"/>'
        f'<text x="200" y="250" font-family="sans-serif" font-size="24" text-anchor="middle" '
        f'fill="hsl({hue},40%,25%)">{label}</text></svg>'
    )
