"""Helpers for the web-surface tests: exact companies in the demo upstream,
the structured-data validator, and readers for the hosted pages.

Companies are put into the mirror the way real data arrives: through the demo
upstream's mutation API, then a real sync over HTTP.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from decimal import Decimal

import extruct
import lxml.html

from tests import REPO_ROOT

NODE_BIN_DIR = REPO_ROOT / "tools" / "node_modules" / ".bin"
VALIDATOR = REPO_ROOT / "tools" / "validate_structured_data.mjs"
BASE_URL = "http://127.0.0.1:8000"
ALL_CHANNELS = {"jsonld": True, "mcp": True, "webmcp": True, "feed": True, "pricing": True, "quote": True, "a2a": True}
PRICE_DESCRIPTION = "Fully-installed price. Includes installation and permits."
HEAT_PUMP = {"name": "Heat Pump System", "slug": "heat-pump-system", "kind": "system"}
SOFTENER = {"name": "Water Softener", "slug": "water-softener", "kind": "system"}
FILTERS = {"name": "Air Filters", "slug": "air-filters", "kind": "accessory"}
# A catalog with whole and fractional prices, a missing tier and an
# image-less category, so every rendering rule is exercised.
DEFAULT_PRODUCTS = (
    {"sku": "HP-GOOD", "name": "Heat pump, good", "category": HEAT_PUMP, "tier": "good", "price": "8500.00"},
    {"sku": "HP-BETTER", "name": "Heat pump, better", "category": HEAT_PUMP, "tier": "better", "price": "11006"},
    {"sku": "HP-BEST", "name": "Heat pump, best", "category": HEAT_PUMP, "tier": "best", "price": "14200.5"},
    {"sku": "WS-GOOD", "name": "Softener", "category": SOFTENER, "tier": "good", "price": "2499", "image_url": None},
    {"sku": "FLT-1", "name": "Filter 1 inch", "category": FILTERS, "tier": None, "price": "60.05"},
    {"sku": "FLT-4", "name": "Filter 4 inch", "category": FILTERS, "tier": None, "price": "24.5"},
)


def company_fields(**overrides) -> dict:
    """A clean, public, fully-described company record (upstream spelling)."""
    fields = {
        "name": "Ridgeline Heating & Air",
        "trades": ["hvac", "plumbing"],
        "status": "active",
        "storefront_live": True,
        "phone": "(636) 555-0134",
        "website": "ridgeline.example",
        "address": {
            "line1": "12 Main St",
            "line2": "Suite 200",
            "city": "Wentzville",
            "state": "MO",
            "postal_code": "63385-1234",
            "country": "US",
            "latitude": 38.8114,
            "longitude": -90.8529,
        },
        "service_area": {"postal_codes": ["63385", "63376", " 63376 "]},
        "settings": {"currency": "USD", "price_description": PRICE_DESCRIPTION, "channels": dict(ALL_CHANNELS)},
    }
    fields.update(overrides)
    return fields


def add_company(upstream, products=DEFAULT_PRODUCTS, **overrides) -> str:
    """Create a company with exactly `products` upstream; return its key."""
    record = upstream.catalog.add_company(products=0, **company_fields(**overrides))
    key = record["plugin_key"]
    for product in products:
        set_product(upstream, key, **product)
    return key


def set_product(upstream, key: str, sku: str, **fields) -> None:
    """Create or change one product (published, with an image unless told)."""
    values = {"published": True, "image_url": f"https://images.example/{sku.lower()}.jpg", **fields}
    upstream.catalog.set_product(key, sku, **values)


def set_settings(upstream, key: str, **settings) -> None:
    """Change some of a company's settings (the rest are kept)."""
    current = upstream.catalog.get_company(key)["settings"]
    upstream.catalog.touch_company(key, settings={**current, **settings})


def sync(mirror) -> None:
    """One incremental sync that must succeed."""
    result = mirror.sync()
    assert result.status == "success", result.error


def sync_unrendered(mirror) -> None:
    """One run that stores no documents (mirror/render/documents.py): every document request renders from the
    company's view, as for a company the sync has not rendered yet."""
    result = mirror.sync(publish=None)
    assert result.status == "success", result.error


# What a picture host answers in the browser tests: the .example hosts resolve nowhere.
PICTURE = (
    b'<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300">'
    b'<rect width="400" height="300" fill="#c9dcf3"/></svg>'
)
PICTURE_HOSTS = re.compile(r"^https?://[^/]*\.example/")


def answer_pictures(page) -> None:
    """Answer every request a Chromium page (or context) makes to a .example host with PICTURE, as an image host would."""
    page.route(PICTURE_HOSTS, lambda route: route.fulfill(status=200, content_type="image/svg+xml", body=PICTURE))


def node_env() -> dict:
    """PATH with Node 22 first, as `make test` runs it."""
    env = dict(os.environ)
    env["PATH"] = f"{NODE_BIN_DIR}{os.pathsep}{env.get('PATH', '')}"
    return env


def validate_structured_data(html: str) -> dict:
    """Run @adobe/structured-data-validator on one HTML document."""
    proc = subprocess.run(
        ["node", str(VALIDATOR), "-"], input=html, capture_output=True, text=True, timeout=120, env=node_env()
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def wrap_in_script(jsonld_body: str) -> str:
    """The .jsonld document pasted verbatim into a page, as a site owner would."""
    return (
        '<!doctype html><html><head><title>t</title><script type="application/ld+json">'
        f"{jsonld_body}</script></head><body></body></html>"
    )


def extruct_graphs(html: str, url: str) -> list[dict]:
    """The JSON-LD blocks as extruct (strict) reads them."""
    return extruct.extract(html, base_url=url, syntaxes=["json-ld"], uniform=True)["json-ld"]


def ld_json_blocks(html: str) -> list[str]:
    """The raw text of every ld+json script block of a page."""
    return re.findall(r'<script type="application/ld\+json">(.*?)</script>', html, flags=re.S)


def graph_offer_prices(graph: dict) -> dict[str, dict]:
    """Per category node name: low, high and tier prices, as Decimals."""
    prices = {}
    for node in graph["@graph"]:
        offer = node.get("offers")
        if not offer:
            continue
        tiers = {o["name"].lower(): Decimal(o["price"]) for o in offer.get("offers", [])}
        prices[node["name"]] = {"low": Decimal(offer["lowPrice"]), "high": Decimal(offer["highPrice"]), "tiers": tiers}
    return prices


def money_value(text: str) -> Decimal:
    """'$14,200.50' -> Decimal('14200.50')."""
    return Decimal(text.strip().lstrip("$").replace(",", ""))


def visible_prices(html: str) -> dict[str, dict]:
    """Per category name: the prices a reader of the pricing page sees."""
    document = lxml.html.fromstring(html)
    prices = {}
    for element in document.find_class("category"):
        name = element.find_class("category-name")[0].text_content()
        parts = element.find_class("range")[0].text_content().split("–")
        tiers = {cell.get("data-tier"): money_value(cell.text_content()) for cell in element.xpath(".//td[@data-tier]")}
        prices[name] = {"low": money_value(parts[0]), "high": money_value(parts[-1]), "tiers": tiers}
    return prices


def response_signature(response) -> tuple:
    """Status, headers (without Date) and body: what two identical answers share."""
    headers = tuple(sorted((k, v) for k, v in response.headers.items() if k.lower() != "date"))
    return response.status_code, headers, response.get_data()
