"""GET /companies/<key>.jsonld: the exact graph, the validator, extruct, and the gate."""

from __future__ import annotations

import json
from decimal import Decimal

from demo.catalog import MISSING
from mirror.store.models import Company
from tests.surface_helpers import (
    BASE_URL,
    PRICE_DESCRIPTION,
    add_company,
    extruct_graphs,
    graph_offer_prices,
    response_signature,
    set_settings,
    sync,
    validate_structured_data,
    wrap_in_script,
)
from web.responses import NOT_FOUND_BODY


def path(key: str) -> str:
    return f"/companies/{key}.jsonld"


def expected_graph(key: str) -> dict:
    """The default test company (tests.surface_helpers), written out by hand."""
    base = f"{BASE_URL}/companies/{key}.jsonld"
    business = {"@id": base + "#business"}

    def aggregate(low, high, count, tiers=None):
        offer = {
            "@type": "AggregateOffer",
            "priceCurrency": "USD",
            "lowPrice": low,
            "highPrice": high,
            "offerCount": count,
            "seller": business,
            "description": PRICE_DESCRIPTION,
        }
        if tiers:
            offer["offers"] = [
                {"@type": "Offer", "name": name, "price": price, "priceCurrency": "USD"} for name, price in tiers
            ]
        return offer

    return {
        "@context": "https://schema.org",
        "@graph": [
            {
                "@type": ["HVACBusiness", "Plumber"],
                "@id": base + "#business",
                "name": "Ridgeline Heating & Air",
                "address": {
                    "@type": "PostalAddress",
                    "streetAddress": "12 Main St, Suite 200",
                    "addressLocality": "Wentzville",
                    "addressRegion": "MO",
                    "postalCode": "63385",
                    "addressCountry": "US",
                },
                "geo": {"@type": "GeoCoordinates", "latitude": 38.8114, "longitude": -90.8529},
                "telephone": "+16365550134",
                "url": "https://ridgeline.example",
                "areaServed": ["63376", "63385"],
            },
            {
                "@type": "Product",
                "@id": base + "#category-heat-pump-system",
                "name": "Heat Pump System",
                "image": "https://images.example/hp-good.jpg",
                "offers": aggregate(
                    "8500.00", "14200.50", 3, [("Good", "8500.00"), ("Better", "11006.00"), ("Best", "14200.50")]
                ),
            },
            {
                # No image anywhere in this category: described as the service, never with an invented image.
                "@type": "Service",
                "@id": base + "#category-water-softener",
                "name": "Water Softener",
                "provider": business,
                "offers": aggregate("2499.00", "2499.00", 1, [("Good", "2499.00")]),
            },
            {
                "@type": "Product",
                "@id": base + "#category-air-filters",
                "name": "Air Filters",
                "image": "https://images.example/flt-4.jpg",
                "offers": aggregate("24.50", "60.05", 2),
            },
        ],
    }


def test_graph_is_exactly_the_company(upstream, mirror, client):
    key = add_company(upstream)
    sync(mirror)
    response = client.get(path(key))
    assert response.status_code == 200
    assert response.mimetype == "application/ld+json"
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert response.headers["Cache-Control"] == "public, max-age=300"
    assert json.loads(response.get_data()) == expected_graph(key)


def test_document_can_be_pasted_into_a_script_tag(upstream, mirror, client):
    key = add_company(upstream)
    sync(mirror)
    body = client.get(path(key)).get_data(as_text=True)
    assert not {"<", ">", "&", "'"} & set(body)
    assert "Ridgeline Heating \\u0026 Air" in body
    assert json.loads(body)["@graph"][0]["name"] == "Ridgeline Heating & Air"


def test_absent_facts_are_omitted_never_empty(upstream, mirror, client):
    key = add_company(
        upstream,
        trades=[],
        phone=MISSING,
        website="javascript:alert(1)",
        address=MISSING,
        service_area=MISSING,
        settings={"currency": "USD", "price_description": None},
    )
    sync(mirror)
    graph = json.loads(client.get(path(key)).get_data())
    assert graph["@graph"][0] == {
        "@type": "HomeAndConstructionBusiness",
        "@id": f"{BASE_URL}/companies/{key}.jsonld#business",
        "name": "Ridgeline Heating & Air",
    }
    assert all("description" not in node["offers"] for node in graph["@graph"][1:])
    assert not list(empty_values(graph))


def empty_values(value, where="$"):
    """Every empty string, null, empty list or empty object in a JSON value."""
    if value in ("", None, [], {}):
        yield where
    elif isinstance(value, dict):
        for name, item in value.items():
            yield from empty_values(item, f"{where}.{name}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from empty_values(item, f"{where}[{index}]")


def test_business_type_follows_trades(upstream, mirror, client):
    cases = {
        ("HVAC",): "HVACBusiness",
        ("roofing", "solar"): "RoofingContractor",
        ("plumbing", "electrical"): ["Plumber", "Electrician"],
    }
    keys = {trades: add_company(upstream, trades=list(trades)) for trades in cases}
    sync(mirror)
    for trades, expected in cases.items():
        business = json.loads(client.get(path(keys[trades])).get_data())["@graph"][0]
        assert business["@type"] == expected, trades


def test_zero_validator_errors_for_every_public_company(upstream, mirror, client, synced):
    add_company(upstream)
    sync(mirror)
    with mirror.Session() as session:
        keys = session.query(Company.plugin_key).filter(Company.is_public).order_by(Company.plugin_key).all()
    bodies = []
    for (key,) in keys:
        response = client.get(path(key))
        if response.status_code == 200:  # a seeded company may have its jsonld switch off
            bodies.append(response.get_data(as_text=True))
    assert len(bodies) >= 8
    page = "".join(wrap_in_script(body) for body in bodies)  # one validator run for all
    report = validate_structured_data(page)
    assert report["errors"] == []
    node_ids = {node["@id"] for body in bodies for node in json.loads(body)["@graph"]}
    assert {node["@id"] for nodes in report["extracted"].values() for node in nodes} == node_ids
    assert report["extracted"]["Product"] and report["extracted"]["Service"]


def test_extruct_reads_back_exactly_the_published_prices(upstream, mirror, client):
    key = add_company(upstream)
    sync(mirror)
    body = client.get(path(key)).get_data(as_text=True)
    page_url = f"{BASE_URL}/somewhere"
    [graph] = extruct_graphs(wrap_in_script(body), page_url)
    assert graph == json.loads(body)

    document = json.loads(client.get(f"/companies/{key}/pricing.json").get_data(), parse_float=Decimal)
    published = {
        c["name"]: {
            "low": Decimal(c["price_low"]),
            "high": Decimal(c["price_high"]),
            "tiers": {t: Decimal(p) for t, p in (c.get("tiers") or {}).items() if p is not None},
        }
        for c in document["categories"]
    }
    assert graph_offer_prices(graph) == published
    assert graph_offer_prices(graph)["Air Filters"]["high"] == Decimal("60.05")


def test_conditional_get_and_head(upstream, mirror, client):
    key = add_company(upstream)
    sync(mirror)
    first = client.get(path(key))
    etag = first.headers["ETag"]
    assert client.get(path(key), headers={"If-None-Match": f'"a", W/{etag}'}).status_code == 304
    head = client.head(path(key))
    assert head.status_code == 200 and head.get_data() == b"" and head.headers["ETag"] == etag


def test_404_is_identical_for_unknown_churned_not_live_and_switched_off(upstream, mirror, client):
    churned = add_company(upstream, status="churned")
    not_live = add_company(upstream, storefront_live=MISSING)  # missing counts as false
    switched_off = add_company(upstream)
    set_settings(upstream, switched_off, channels={"jsonld": False})
    sync(mirror)
    answers = [client.get(path(key)) for key in ("nobody", churned, not_live, switched_off)]
    assert answers[0].status_code == 404 and answers[0].get_data(as_text=True) == NOT_FOUND_BODY
    assert len({response_signature(a) for a in answers}) == 1
    heads = [client.head(path(key)) for key in ("nobody", churned, not_live, switched_off)]
    assert len({response_signature(h) for h in heads}) == 1 and heads[0].status_code == 404
    # The jsonld switch closes only this surface.
    assert client.get(f"/companies/{switched_off}/pricing.json").status_code == 200
