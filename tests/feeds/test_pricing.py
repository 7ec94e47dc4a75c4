"""pricing.json: the exact document, exact prices, ETag/304 and how syncs move them."""

from __future__ import annotations

import json
from datetime import datetime
from decimal import Decimal

from mirror.read.company import load_company_snapshot
from tests.surface_helpers import (
    BASE_URL,
    PRICE_DESCRIPTION,
    add_company,
    response_signature,
    set_product,
    set_settings,
    sync,
)
from web.responses import NOT_FOUND_BODY, strong_etag


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def path(key: str) -> str:
    return f"/companies/{key}/pricing.json"


def test_body_is_the_pricing_view_with_exact_prices(upstream, mirror, client):
    key = add_company(upstream)
    sync(mirror)
    response = client.get(path(key))
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert response.headers["Cache-Control"] == "public, max-age=300"

    with mirror.Session() as session:
        view = load_company_snapshot(session, key, options=True).view(mirror.settings)
        assert response.get_json() == view.pricing_document()

    raw = response.get_data(as_text=True)
    assert '"price_low":24.5,' in raw and '"price_high":60.05,' in raw  # no float artefacts
    assert '"better":11006,' in raw and '"best":14200.5}' in raw
    document = json.loads(raw, parse_float=Decimal)
    heat_pump, softener, filters = document["categories"]

    def option(sku, name, tier, price):
        return {
            "sku": sku,
            "name": name,
            "brand": None,
            "tier": tier,
            "price": price,
            "size": None,
            "efficiency": [],
            "warranty": None,
            # Each option's own picture, as the catalog gives it (the pages show it beside its name).
            "image_url": f"https://images.example/{sku.lower()}.jpg",
        }

    assert heat_pump == {
        "name": "Heat Pump System",
        "plain_name": None,  # nothing in it is abbreviated (mirror/catalog/glossary.py)
        "slug": "heat-pump-system",
        "kind": "system",
        "price_low": 8500,
        "price_high": Decimal("14200.5"),
        "offer_count": 3,
        "tiers": {"good": 8500, "better": 11006, "best": Decimal("14200.5")},
        "options": [
            option("HP-GOOD", "Heat pump, good", "good", 8500),
            option("HP-BETTER", "Heat pump, better", "better", 11006),
            option("HP-BEST", "Heat pump, best", "best", Decimal("14200.5")),
        ],
        # The image of its cheapest option with one (the JSON-LD's Product image).
        "image_url": "https://images.example/hp-good.jpg",
    }
    assert softener["tiers"] == {"good": 2499, "better": None, "best": None} and softener["kind"] == "system"
    assert softener["image_url"] is None  # no option has an image
    assert [option["image_url"] for option in softener["options"]] == [None]
    assert document["glossary"] == []  # none of its names, sizes or ratings needs explaining
    assert filters["image_url"] == "https://images.example/flt-4.jpg"
    assert "tiers" not in filters and filters["price_high"] == Decimal("60.05") and filters["kind"] == "accessory"
    # Accessories are listed cheapest first, without a tier.
    assert filters["options"] == [
        option("FLT-4", "Filter 4 inch", None, Decimal("24.5")),
        option("FLT-1", "Filter 1 inch", None, Decimal("60.05")),
    ]
    assert document["business"]["address"] == {
        "line1": "12 Main St",
        "line2": "Suite 200",
        "locality": "Wentzville",
        "region": "MO",
        "postal_code": "63385",
        "country": "US",
        "formatted": "12 Main St, Suite 200, Wentzville, MO 63385",
    }
    assert document["business"]["service_area"] == {"postal_code_count": 2, "postal_codes": ["63376", "63385"]}
    assert document["business"]["trades"] == ["hvac", "plumbing"]
    # The normalised contact data the JSON-LD carries (docs/contracts/surfaces.md).
    assert document["business"]["phone"] == "+16365550134"
    assert document["business"]["website"] == "https://ridgeline.example"
    assert document["business"]["geo"] == {"latitude": Decimal("38.8114"), "longitude": Decimal("-90.8529")}
    assert document["price_description"] == PRICE_DESCRIPTION
    assert document["quote_url"] == f"{BASE_URL}/companies/{key}/quote"
    assert document["freshness_state"] == "fresh"


def test_quote_url_is_null_when_the_quote_switch_is_off(upstream, mirror, client):
    key = add_company(upstream)
    set_settings(upstream, key, channels={"quote": False}, price_description=None)
    sync(mirror)
    document = client.get(path(key)).get_json()
    assert document["quote_url"] is None
    assert document["price_description"] is None


def test_contact_facts_the_contractor_has_not_published_are_null(upstream, mirror, client):
    address = {"line1": "12 Main St", "city": "Wentzville", "state": "MO", "postal_code": "63385", "country": "US"}
    key = add_company(upstream, phone="555-0134", website=None, address=address)  # a phone that is not a US number
    sync(mirror)
    business = client.get(path(key)).get_json()["business"]
    assert (business["phone"], business["website"], business["geo"]) == (None, None, None)
    assert business["address"]["formatted"] == "12 Main St, Wentzville, MO 63385"


def test_strong_etag_and_conditional_requests(upstream, mirror, client):
    key = add_company(upstream)
    sync(mirror)
    first = client.get(path(key))
    etag = first.headers["ETag"]
    assert etag == strong_etag(first.get_data()) and not etag.startswith("W/")
    assert first.headers["Access-Control-Expose-Headers"] == "ETag"

    for header in (etag, f'"nope", {etag}', f"W/{etag}", f'W/"x" , W/{etag}', "*"):
        answer = client.get(path(key), headers={"If-None-Match": header})
        assert answer.status_code == 304, header
        assert answer.get_data() == b""
        assert answer.headers["ETag"] == etag
        assert answer.headers["Cache-Control"] == "public, max-age=300"
        assert answer.headers["Access-Control-Allow-Origin"] == "*"

    for header in ('"nope"', 'W/"nope", "other"', etag[:-2] + '"', ""):
        answer = client.get(path(key), headers={"If-None-Match": header})
        assert answer.status_code == 200, header
        assert answer.get_data() == first.get_data()


def test_a_real_change_moves_etag_and_content_version(upstream, mirror, client):
    key = add_company(upstream)
    sync(mirror)
    before = client.get(path(key))
    set_product(upstream, key, "FLT-1", price="61.15")
    sync(mirror)
    after = client.get(path(key))
    assert after.headers["ETag"] != before.headers["ETag"]
    assert after.get_json()["content_version"] != before.get_json()["content_version"]
    assert after.get_json()["categories"][2]["price_high"] == 61.15
    assert client.get(path(key), headers={"If-None-Match": before.headers["ETag"]}).status_code == 200


def test_every_successful_sync_moves_the_etag_but_not_content_version(upstream, mirror, client):
    key = add_company(upstream)
    sync(mirror)
    before = client.get(path(key))
    sync(mirror)  # nothing changed upstream
    after = client.get(path(key))
    old, new = before.get_json(), after.get_json()
    assert parse_time(new["last_synced_at"]) > parse_time(old["last_synced_at"])
    assert new["content_version"] == old["content_version"]
    assert new["content_updated_at"] == old["content_updated_at"]
    assert after.headers["ETag"] != before.headers["ETag"]
    assert client.get(path(key), headers={"If-None-Match": before.headers["ETag"]}).status_code == 200
    assert client.get(path(key), headers={"If-None-Match": after.headers["ETag"]}).status_code == 304


def test_head_matches_get(upstream, mirror, client):
    key = add_company(upstream)
    sync(mirror)
    get, head = client.get(path(key)), client.head(path(key))
    assert head.status_code == 200 and head.get_data() == b""
    assert head.headers["ETag"] == get.headers["ETag"]
    assert head.headers["Content-Length"] == get.headers["Content-Length"]
    assert client.head(path(key), headers={"If-None-Match": get.headers["ETag"]}).status_code == 304
    assert response_signature(client.head(path("unknown"))) == response_signature(client.head(path("unknown2")))


def test_404_is_identical_for_unknown_churned_not_live_and_switched_off(upstream, mirror, client):
    churned = add_company(upstream, status="churned")
    not_live = add_company(upstream, storefront_live=False)
    switched_off = add_company(upstream)
    set_settings(upstream, switched_off, channels={"pricing": False})
    control = add_company(upstream)
    sync(mirror)
    assert client.get(path(control)).status_code == 200
    answers = [client.get(path(key)) for key in ("no-such-company", churned, not_live, switched_off)]
    assert answers[0].status_code == 404
    assert answers[0].get_data(as_text=True) == NOT_FOUND_BODY
    assert answers[0].headers["Access-Control-Allow-Origin"] == "*"
    assert len({response_signature(a) for a in answers}) == 1
    # The pricing switch closes pricing.json only: the company's JSON-LD stays up.
    assert client.get(f"/companies/{switched_off}.jsonld").status_code == 200
