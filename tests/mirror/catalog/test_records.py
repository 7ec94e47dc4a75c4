"""Normalisation and validation at the upstream boundary (docs/contracts/upstream.md, docs/contracts/surfaces.md)."""

from __future__ import annotations

import pytest

from mirror.catalog.records import (
    URL_MAX_LENGTH,
    CompanyRecord,
    InvalidRecord,
    ProductRecord,
    Tombstone,
    normalise_phone,
    normalise_postal_code,
    normalise_url,
    parse_company,
    parse_product,
)

COMPANY = {
    "plugin_key": "k1",
    "internal_id": 48213,
    "name": "Tudi Mechanical",
    "status": "active",
    "storefront_live": True,
    "updated_at": "2026-08-30T19:33:42Z",
    "owner": {"email": "jane@tudi.example"},
}
PRODUCT = {
    "plugin_key": "k1",
    "sku": "S1",
    "name": "Heat pump",
    "category": {"name": "HP & Air Handler", "slug": "hp-air-handler", "kind": "system"},
    "tier": "better",
    "price": "10200.00",
    "cost": "6120.00",
    "dealer_notes": "secret",
    "published": True,
    "updated_at": "2026-08-30T19:33:42+00:00",
}


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("(415) 555-1234", "+14155551234"),
        ("+1 314 555 0000", "+13145550000"),
        ("1-314-555-0000", "+13145550000"),
        ("415.555.1234", "+14155551234"),
        ("(015) 555-1234", None),
        ("(415) 155-1234", None),
        ("+44 20 7946 0958", None),
        ("555-1234", None),
        ("call us!", None),
        (None, None),
        (4155551234, None),
        ("", None),
    ],
)
def test_phone_is_us_e164_or_missing(raw, expected):
    assert normalise_phone(raw) == expected


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("tudi.example", "https://tudi.example"),
        ("https://tudi.example/a?b=1", "https://tudi.example/a?b=1"),
        ("http://tudi.example", "http://tudi.example"),
        ("javascript:alert(1)", None),
        ("ftp://x.example", None),
        ("not a url", None),
        ("", None),
        (None, None),
        ("https://", None),
    ],
)
def test_website_gets_a_scheme_or_is_missing(raw, expected):
    assert normalise_url(raw, bare_host_ok=True) == expected


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("63385", "63385"),
        ("63385-1234", "63385"),
        (" 633 85 ", "63385"),
        ("633851234", "63385"),
        ("6338", None),
        ("ABCDE", None),
        (None, None),
        (True, None),
    ],
)
def test_postal_codes_are_five_digit_zips(raw, expected):
    assert normalise_postal_code(raw) == expected


def test_private_fields_are_dropped_at_the_boundary():
    company = parse_company(COMPANY)
    product = parse_product(PRODUCT)
    assert isinstance(company, CompanyRecord) and isinstance(product, ProductRecord)
    dumped = repr(company.model_dump()) + repr(product.model_dump())
    for secret in ("48213", "jane@tudi.example", "6120", "secret", "internal_id", "owner", "dealer_notes", "cost"):
        assert secret not in dumped


def test_a_company_normalises_its_messy_fields():
    raw = {
        **COMPANY,
        "trades": ["HVAC", "Plumbing", "pool"],
        "phone": "(415) 555-1234",
        "website": "tudi.example",
        "address": {
            "line1": "12 Main St",
            "city": "Wentzville",
            "state": "MO",
            "postal_code": "63385-1234",
            "country": "US",
            "latitude": 138.8,
            "longitude": -90.85,
        },
        "service_area": {"postal_codes": ["63376", "63385-0001", "63376", " 63301 ", "bad"]},
        "settings": {
            "systems_estimate_url": "https://tudi.example/est?ref=site",
            "systems_estimate_url_verified": False,
            "concom_shop_url": "javascript:alert(1)",
            "channels": {"mcp": False},
        },
    }
    company = parse_company(raw)
    assert company.trades == ["hvac", "plumbing"]
    assert company.website == "https://tudi.example"
    assert company.address["postal_code"] == "63385" and company.address["latitude"] is None
    assert company.service_postal_codes == ["63301", "63376", "63385"]
    assert company.estimate_url is None  # not verified
    assert company.shop_url is None  # not http(s)
    assert company.channels == {
        "jsonld": True,
        "mcp": False,
        "webmcp": True,
        "feed": True,
        "pricing": True,
        "quote": True,
        "a2a": True,
    }
    assert company.is_public


@pytest.mark.parametrize(
    "change",
    [
        {"storefront_live": None},
        {"storefront_live": "yes"},
        {"status": "churned"},
    ],
)
def test_public_only_while_active_and_live(change):
    raw = {**COMPANY, **change}
    if change.get("storefront_live") is None and "storefront_live" in change:
        raw.pop("storefront_live")
    assert parse_company(raw).is_public is False


@pytest.mark.parametrize(
    "change",
    [
        {"price": "abc"},
        {"price": "-5"},
        {"price": "99.999"},
        {"price": 10},
        {"name": None},
        {"sku": ""},
        {"published": "yes"},
        {"updated_at": "yesterday"},
        {"updated_at": "2026-08-30T19:33:42"},
        {"category": "HVAC"},
    ],
)
def test_invalid_products_are_reported_with_their_keys(change):
    result = parse_product({**PRODUCT, **change})
    assert isinstance(result, InvalidRecord)
    if change.get("sku") != "":
        assert result.sku == "S1"


def test_prices_are_exact_cents_and_odd_tiers_count_as_none():
    product = parse_product({**PRODUCT, "price": "60.05", "tier": "premium"})
    assert product.price_cents == 6005 and product.tier is None
    accessory = parse_product({**PRODUCT, "category": {"name": "Air Filters", "kind": "accessory"}, "tier": "good"})
    assert accessory.tier is None and accessory.category_slug == "air-filters"


def test_tombstones_parse():
    stone = parse_product({"plugin_key": "k1", "sku": "S1", "deleted": True, "updated_at": "2026-08-30T19:33:42Z"})
    assert isinstance(stone, Tombstone)


# --- the required fields' verdicts (docs/contracts/upstream.md, "Required fields") -------


@pytest.mark.parametrize(
    "change, valid",
    [
        ({}, True),
        ({"updated_at": "2026-08-30T19:33:42Z"}, True),
        ({"updated_at": "2026-08-30T19:33:42.5-05:00"}, True),
        ({"updated_at": "2026-08-30T19:33:42.123456+05:30"}, True),
        ({"updated_at": "2026-13-30T19:33:42Z"}, False),
        ({"updated_at": "2026-08-30T24:00:00Z"}, False),
        ({"updated_at": "2026-08-30T19:33:42"}, False),  # no UTC offset
        ({"updated_at": "2026-08-30"}, False),
        ({"updated_at": None}, False),
        ({"price": "10200"}, True),
        ({"price": "10200.5"}, True),
        ({"price": "10200.00\n"}, False),
        ({"price": "-5"}, False),
        ({"price": "1e3"}, False),
        ({"price": 10200}, False),
        ({"price": "١٠٠"}, False),
        ({"price": "9" * 20}, False),  # more cents than the column holds
        ({"published": 1}, False),
        ({"published": "true"}, False),
        ({"published": False}, True),
        ({"plugin_key": ""}, False),
        ({"plugin_key": "k" * 128}, True),
        ({"plugin_key": "k" * 129}, False),
        ({"plugin_key": 7}, False),
        ({"sku": "s" * 255}, True),
        ({"sku": "s" * 256}, False),
        ({"name": ""}, False),
        ({"name": " "}, True),
        ({"name": None}, False),
        ({"category": "HVAC"}, False),
        ({"category": {}}, False),
        ({"category": {"name": " "}}, False),
    ],
)
def test_a_products_required_fields_decide_its_verdict(change, valid):
    parsed = parse_product({**PRODUCT, **change})
    assert isinstance(parsed, ProductRecord) is valid
    if not valid:
        field = next(iter(change)).split(".")[0]
        assert parsed.reason == f"invalid {field}"


def test_a_long_category_name_gets_a_slug_that_fits_its_column():
    name = "Heat pumps " * 40
    product = parse_product({**PRODUCT, "category": {"name": name, "kind": "system"}})
    assert 0 < len(product.category_slug) <= 255 and not product.category_slug.endswith("-")


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("http://127.0.0.1:8080/x", "http://127.0.0.1:8080/x"),  # an IP literal, as it is
        ("http://999.1.1.1/x", None),  # ends in a number: a browser reads it as an (invalid) IPv4 address
        ("http://0x7f.1/x", None),  # a browser's 127.0.0.1
        ("http://[::1]:8080/x", "http://[::1]:8080/x"),  # loopback, as 127.0.0.1 and localhost
        ("http://[::ffff:127.0.0.1]/x", "http://[::ffff:127.0.0.1]/x"),  # the same address
        ("http://[::ffff:10.0.0.1]/x", None),  # private, however it is spelled
        ("http://10.0.0.1/x", None),
        ("http://169.254.169.254/latest", None),  # link-local
        ("http://[fe80::1]/x", None),
        ("https://[2606:4700::1111]/x", "https://[2606:4700::1111]/x"),  # public unicast
        ("https://1.1.1.1/x", "https://1.1.1.1/x"),
        ("https://bücher.example/i.png", "https://bücher.example/i.png"),
        ("https://a..b/i.png", None),  # an empty label
        ("https://" + "a" * 70 + ".example/", None),  # an over-long label
    ],
)
def test_url_hosts_are_ip_literals_or_names_idna_can_encode(raw, expected):
    # Twice: the verdict on a host is cached, and must not change on the second look.
    assert normalise_url(raw) == expected
    assert normalise_url(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "http://a@b@localhost/",
        "http://user:pw@tudi.example/",
        "https://evil.example@tudi.example/",
        "https://@tudi.example/",
    ],
)
def test_a_url_with_user_information_is_refused(raw):
    # `http://a@b@localhost/` names the host localhost, though it reads as `b`.
    assert normalise_url(raw) is None
    assert normalise_url(raw, bare_host_ok=True) is None


@pytest.mark.parametrize(
    "raw",
    [
        "https://evil.example\\.tudi.example/estimate",  # a browser's host: evil.example (`\` ends the host)
        "https://tudi.example\\@evil.example/",
        "https://tudi.example/a\\b",  # a browser rewrites it to /a/b: refused rather than published changed
        "https://tu\u00addi.example/",  # soft hyphen: a browser goes to tudi.example, a reader sees another name
        "https://tu\u200bdi.example/",  # zero-width space
        "https://tu\u200ddi.example/",  # zero-width joiner
        "https://\u202etudi.example/",  # a bidi override
        "https://tu\u034fdi.example/",  # combining grapheme joiner (default-ignorable, not Cf)
        "https://tudi\ufe0f.example/",  # a variation selector
        "https://\uff54\uff55\uff44\uff49.example/",  # full-width letters: a browser's tudi.example
        "https://stra\u00dfe.example/",  # IDNA 2003 and browsers disagree on `ß`
        "https://10\u30020\u30020\u30021.example/",  # ideographic full stops are dots to IDNA
        "https://127%2E0%2E0%2E1/",  # a browser percent-decodes a host
        "https://tudi.example/" + "a" * URL_MAX_LENGTH,  # longer than any surface can carry
    ],
)
def test_a_url_whose_host_a_browser_reads_otherwise_is_refused(raw):
    assert normalise_url(raw) is None
    assert normalise_url(raw, bare_host_ok=True) is None


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("HTTPS://WWW.UPPER.EXAMPLE/", "https://www.upper.example/"),
        ("Https://img.example/a.jpg", "https://img.example/a.jpg"),
        ("HTTP://Tudi.Example:0443/Path?Q=A#Frag", "http://tudi.example:443/Path?Q=A#Frag"),  # only scheme and host
        ("https://B\u00dcCHER.example/I.png", "https://b\u00fccher.example/I.png"),
        ("https://tudi.example/p\u200bath", "https://tudi.example/p\u200bath"),  # outside the host a browser escapes it
        ("https://tudi.example/" + "a" * (URL_MAX_LENGTH - 21), "https://tudi.example/" + "a" * (URL_MAX_LENGTH - 21)),
    ],
)
def test_a_url_is_published_with_its_scheme_and_host_in_lower_case(raw, expected):
    assert len(expected) <= URL_MAX_LENGTH
    assert normalise_url(raw) == expected


def test_a_bare_website_host_is_published_in_lower_case():
    assert normalise_url("WWW.Upper.Example/Contact", bare_host_ok=True) == "https://www.upper.example/Contact"
