"""The business feed, `GET /v1/businesses` (issue 3, endpoint 5; docs/contracts/surfaces.md "Business feed").

Every test drives the real demo upstream over HTTP, runs the real sync and
reads the feed through the app.
"""

from __future__ import annotations

from math import ceil

import pytest
from sqlalchemy import event, update
from sqlalchemy.orm import Session

from demo.catalog import MISSING
from mirror.catalog.records import normalise_phone, normalise_url
from mirror.store import db as mirror_db
from mirror.store.db import autocommit_rows
from mirror.store.models import Company
from mirror.store.state import FEED_CLOCK_MS, get_int, read_state

# Keys whose byte order differs from any case-insensitive or punctuation-blind
# collation: '-' < '.' < digits < upper case < '_' < lower case < '~'.
TRICKY_KEYS = ("zeta", "Zeta", "_under", "apple", "Apple", "0zero", "-dash", "~tilde", "a.b", "a-b", "AB", "aB")
ADDRESS = {
    "line1": "12 Main St",
    "line2": "Suite 4",
    "city": "St. Louis",
    "state": "MO",
    "postal_code": "63103-1234",
    "country": "US",
    "latitude": 38.627,
    "longitude": -90.1994,
}
ALL_ON = dict.fromkeys(("jsonld", "mcp", "webmcp", "feed", "pricing", "quote"), True)


def company_fields(**overrides) -> dict:
    """Upstream fields of a company that is complete and public."""
    fields = {
        "name": "Gateway Heating & Air",
        "status": "active",
        "storefront_live": True,
        "phone": "(314) 555-0142",
        "website": "gateway-hvac.example",
        "address": dict(ADDRESS),
        "settings": {"currency": "USD", "channels": dict(ALL_ON)},
    }
    fields.update(overrides)
    return fields


def add_company(upstream, key: str, products: int = 0, **overrides) -> str:
    upstream.catalog.add_company(plugin_key=key, products=products, **company_fields(**overrides))
    return key


def sync(mirror, **kwargs):
    result = mirror.sync(**kwargs)
    assert result.status == "success", result.error
    return result


def get_feed(client, **params) -> dict:
    response = client.get("/v1/businesses", query_string=params)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    return response.get_json()


def walk(client, page_size: int, **params) -> tuple[list[str], list[dict]]:
    """Every page of one walk: the ids in order and the page envelopes."""
    first = get_feed(client, page=1, page_size=page_size, **params)
    pages = [first] + [
        get_feed(client, page=n, page_size=page_size, **params) for n in range(2, first["total_pages"] + 1)
    ]
    return [b["id"] for p in pages for b in p["businesses"]], pages


def ids(payload: dict) -> list[str]:
    return [b["id"] for b in payload["businesses"]]


def feed_ids(client) -> list[str]:
    return ids(get_feed(client, page_size=500))


@pytest.fixture
def world(upstream, mirror):
    """The seeded (messy) catalog plus a dozen complete companies with tricky keys, synced."""
    for key in TRICKY_KEYS:
        add_company(upstream, key, name=f"Company {key}")
    sync(mirror)
    return upstream


# --- eligibility ---------------------------------------------------------------------


def _eligible_upstream(record: dict) -> bool:
    """An oracle written from the issue's rule, applied to the raw upstream record."""
    address = record.get("address") or {}
    channels = (record.get("settings") or {}).get("channels") or {}
    try:
        coordinates = abs(float(address["latitude"])) <= 90 and abs(float(address["longitude"])) <= 180
    except (KeyError, TypeError, ValueError):
        coordinates = False
    return bool(
        record.get("status") == "active"
        and record.get("storefront_live") is True
        and channels.get("quote", True) is not False
        and channels.get("feed", True) is not False
        and all(str(address.get(k) or "").strip() for k in ("line1", "city", "state", "postal_code", "country"))
        and coordinates
        and normalise_phone(record.get("phone"))
        and normalise_url(record.get("website"), bare_host_ok=True)
    )


def test_the_feed_lists_exactly_the_eligible_companies_of_a_messy_catalog(client, world):
    expected = sorted(k for k in world.catalog.company_keys() if _eligible_upstream(world.catalog.get_company(k)))
    assert set(TRICKY_KEYS) <= set(expected)
    assert len(expected) < len(world.catalog.company_keys())  # the seeded mess leaves some out
    assert feed_ids(client) == expected


NO_COORDINATES = {k: v for k, v in ADDRESS.items() if k not in ("latitude", "longitude")}


@pytest.mark.parametrize(
    "broken, fixed",
    [
        ({"address": NO_COORDINATES}, {"address": ADDRESS}),
        ({"address": {**ADDRESS, "latitude": 138.8}}, {"address": ADDRESS}),
        ({"address": MISSING}, {"address": ADDRESS}),
        ({"address": {**ADDRESS, "line1": "  "}}, {"address": ADDRESS}),
        ({"website": MISSING}, {"website": "https://gateway-hvac.example/"}),
        ({"website": "javascript:alert(1)"}, {"website": "gateway-hvac.example"}),
        ({"phone": MISSING}, {"phone": "314-555-0142"}),
        ({"phone": "+44 20 7946 0958"}, {"phone": "+1 314 555 0142"}),
    ],
    ids=[
        "no-coordinates",
        "latitude-out-of-range",
        "no-address",
        "blank-line1",
        "no-website",
        "bad-website",
        "no-phone",
        "foreign-phone",
    ],
)
def test_incomplete_contact_data_is_left_out_and_comes_back_after_the_upstream_fix(
    client, mirror, world, broken, fixed
):
    key = add_company(world, "incomplete-co")
    world.catalog.touch_company(key, **broken)
    sync(mirror)
    assert key not in feed_ids(client)
    token = get_feed(client)["changes_token"]

    world.catalog.touch_company(key, **fixed)
    sync(mirror)
    assert key in feed_ids(client)
    assert ids(get_feed(client, changes_token=token)) == [key]  # it joined: a change since the token


@pytest.mark.parametrize(
    "overrides",
    [{"storefront_live": False}, {"status": "churned"}, {"storefront_live": MISSING}],
    ids=["storefront-off", "churned", "live-flag-missing"],
)
def test_companies_that_are_not_public_are_left_out(client, mirror, world, overrides):
    add_company(world, "hidden-co")
    world.catalog.touch_company("hidden-co", **overrides)
    sync(mirror)
    assert "hidden-co" not in feed_ids(client)


@pytest.mark.parametrize(
    "overrides",
    [{"storefront_live": False}, {"status": "churned"}],
    ids=["storefront-off", "churned"],
)
def test_a_feed_business_that_stops_being_public_leaves_every_feed_read_in_the_same_sync(mirror, world, overrides):
    # The provider's reads (mirror/read/businesses.py, prices.py) trust `in_feed` alone: the sync must clear it
    # in the commit that makes the company non-public, or a private company would still be found.
    from mirror.read.businesses import find_feed_company, search_feed_businesses

    add_company(world, "leaving-co")
    sync(mirror)
    with mirror.WriterSession() as session:
        assert find_feed_company(session, "leaving-co") is not None
        found = search_feed_businesses(session, query="Gateway Heating", limit=100).matches
        assert "leaving-co" in {m.company.plugin_key for m in found}
    world.catalog.touch_company("leaving-co", **overrides)
    sync(mirror)
    with mirror.WriterSession() as session:
        row = session.get(Company, "leaving-co")
        assert row is not None and row.is_public is False and row.in_feed is False
        assert find_feed_company(session, "leaving-co") is None
        found = search_feed_businesses(session, query="Gateway Heating", limit=100).matches
        assert "leaving-co" not in {m.company.plugin_key for m in found}


@pytest.mark.parametrize(
    "switch, listed",
    [("quote", False), ("feed", False), ("jsonld", True), ("mcp", True), ("webmcp", True), ("pricing", True)],
)
def test_the_quote_and_feed_switches_take_a_company_out_and_no_other_switch_does(client, mirror, world, switch, listed):
    add_company(world, "switchy", settings={"channels": {**ALL_ON, switch: False}})
    sync(mirror)
    assert ("switchy" in feed_ids(client)) is listed
    world.catalog.touch_company("switchy", settings={"channels": ALL_ON})
    sync(mirror)
    assert "switchy" in feed_ids(client)


# --- the record ------------------------------------------------------------------------


def _record(client, key: str) -> dict:
    matches = [b for b in get_feed(client, page_size=500)["businesses"] if b["id"] == key]
    assert len(matches) == 1
    return matches[0]


def test_record_shape(client, mirror, world):
    add_company(
        world,
        "shape-co",
        name="Shape </script> & Sons ‮ 🔧",
        settings={
            "channels": ALL_ON,
            "systems_estimate_url": "https://shape.example/estimate?utm_source=site",
            "systems_estimate_url_verified": True,
        },
    )
    sync(mirror)
    quote_page = "http://127.0.0.1:8000/companies/shape-co/quote"
    assert _record(client, "shape-co") == {
        "id": "shape-co",
        "name": "Shape </script> & Sons ‮ 🔧",
        "address": {
            "line1": "12 Main St",
            "line2": "Suite 4",
            "locality": "St. Louis",
            "region": "MO",
            "postal_code": "63103",
            "country": "US",
            "formatted": "12 Main St, Suite 4, St. Louis, MO 63103",
        },
        "location": {"latitude": 38.627, "longitude": -90.1994},
        "phone_number": "+13145550142",
        "website_url": "https://gateway-hvac.example",
        "platform_url": "https://shape.example/estimate?utm_source=ai_interfaces",
        "service_providers": [
            {
                "provider": "contractor_commerce",
                "provider_business_id": "shape-co",
                "action_type": "request_a_quote",
                "provider_action_url": quote_page,
                "display_name": "Get Quote",
            }
        ],
    }


def test_every_record_of_the_seeded_catalog_has_the_full_shape(client, world):
    for record in get_feed(client, page_size=500)["businesses"]:
        assert list(record) == [
            "id",
            "name",
            "address",
            "location",
            "phone_number",
            "website_url",
            "platform_url",
            "service_providers",
        ]
        assert set(record["address"]) == {"line1", "line2", "locality", "region", "postal_code", "country", "formatted"}
        assert record["phone_number"].startswith("+1") and len(record["phone_number"]) == 12
        assert record["website_url"].startswith(("http://", "https://"))
        assert record["service_providers"][0]["provider_business_id"] == record["id"]
        assert record["service_providers"][0]["provider_action_url"].startswith("http://127.0.0.1:8000/companies/")


@pytest.mark.parametrize(
    "settings, expected",
    [
        (
            {
                "systems_estimate_url": "https://a.example/est?Ref=abc&zip=63103#top",
                "systems_estimate_url_verified": True,
                "concom_shop_url": "https://shop.example/a/?utm_source=concom",
            },
            "https://a.example/est?Ref=ai_interfaces&zip=63103#top",
        ),
        (
            {
                "systems_estimate_url": "https://a.example/est?ref=abc",
                "systems_estimate_url_verified": False,
                "concom_shop_url": "https://shop.example/a/?UTM_SOURCE=concom&x=1",
            },
            "https://shop.example/a/?UTM_SOURCE=ai_interfaces&x=1",
        ),
        (
            {"systems_estimate_url": "https://a.example/est?zip=63103", "systems_estimate_url_verified": True},
            "https://a.example/est?zip=63103",
        ),
        ({"systems_estimate_url": "javascript:alert(1)", "systems_estimate_url_verified": True}, None),
        ({"concom_shop_url": "ftp://files.example/quote"}, None),
        ({}, None),
    ],
    ids=[
        "verified-estimate-stamped",
        "unverified-falls-to-shop",
        "no-variable-added",
        "script-url",
        "ftp-url",
        "no-funnel",
    ],
)
def test_platform_url_is_the_stamped_funnel_else_the_quote_page(client, mirror, world, settings, expected):
    add_company(world, "funnel-co", settings={"channels": ALL_ON, **settings})
    sync(mirror)
    record = _record(client, "funnel-co")
    assert record["platform_url"] == (expected or "http://127.0.0.1:8000/companies/funnel-co/quote")
    assert record["service_providers"][0]["provider_action_url"] == "http://127.0.0.1:8000/companies/funnel-co/quote"


def test_configuration_names_the_provider_the_stamp_and_the_base_url(make_app, upstream):
    add_company(upstream, "conf-co", settings={"channels": ALL_ON, "concom_shop_url": "https://shop.example/c?ref=x"})
    app = make_app(PROVIDER_NAME="acme_quotes", REFERRER_STAMP="chatgpt", PUBLIC_BASE_URL="https://feeds.example.com")
    sync(app.extensions["mirror"])
    record = _record(app.test_client(), "conf-co")
    assert record["platform_url"] == "https://shop.example/c?ref=chatgpt"
    assert record["service_providers"][0]["provider"] == "acme_quotes"
    assert record["service_providers"][0]["provider_action_url"] == "https://feeds.example.com/companies/conf-co/quote"


# --- paging --------------------------------------------------------------------------------


def test_order_is_byte_order_of_the_key(client, world):
    listed = feed_ids(client)
    assert listed == sorted(listed, key=lambda k: k.encode())
    tricky = [k for k in listed if k in TRICKY_KEYS]
    assert tricky == ["-dash", "0zero", "AB", "Apple", "Zeta", "_under", "a-b", "a.b", "aB", "apple", "zeta", "~tilde"]


def test_pages_partition_the_feed_for_every_page_size(client, world):
    everything = feed_ids(client)
    total = len(everything)
    assert total >= 15
    for page_size in range(1, total + 2):
        listed, pages = walk(client, page_size)
        assert listed == everything, page_size  # none twice, none skipped, same order
        assert all(p["total_pages"] == ceil(total / page_size) for p in pages)
        assert all(len(p["businesses"]) == page_size for p in pages[:-1])
        assert 1 <= len(pages[-1]["businesses"]) <= page_size
        assert [p["page"] for p in pages] == list(range(1, len(pages) + 1))
        assert all(p["page_size"] == page_size and p["checksum"] is True for p in pages)


def test_a_page_is_identical_across_requests(client, world):
    first = client.get("/v1/businesses?page=2&page_size=4")
    again = client.get("/v1/businesses?page=2&page_size=4")
    assert first.status_code == again.status_code == 200
    assert first.get_data() == again.get_data()
    assert first.headers["ETag"] == again.headers["ETag"]


def test_default_paging_and_the_page_past_the_end(client, world):
    payload = get_feed(client)
    assert (payload["page"], payload["page_size"], payload["total_pages"]) == (1, 50, 1)
    past = get_feed(client, page=2)
    assert past["businesses"] == [] and past["total_pages"] == 1 and past["checksum"] is True
    assert get_feed(client, page=2147483647, page_size=1)["businesses"] == []


def test_an_empty_feed_has_no_pages(client, mirror):
    payload = get_feed(client)
    assert payload == {
        "checksum": True,
        "page": 1,
        "page_size": 50,
        "total_pages": 0,
        "changes_token": "chg_1_0",
        "businesses": [],
    }


OUT_OF_RANGE_PAGING = [
    ("page", "0"),
    ("page", "-1"),
    ("page", "abc"),
    ("page", "1.5"),
    ("page", ""),
    ("page", " 1"),
    ("page", "1e2"),
    ("page", "\uff11"),
    ("page", "1_0"),
    ("page", "2147483648"),
    ("page", "9" * 400),
    ("page_size", "0"),
    ("page_size", "501"),
    ("page_size", "x"),
    ("page_size", "-5"),
    ("page_size", "50.0"),
]


def test_out_of_range_paging_is_a_400_naming_the_parameter(client, world, subtests):
    # One synced world for every value (each a subtest of its own): the answer is read-only.
    for name, value in OUT_OF_RANGE_PAGING:
        with subtests.test(name=name, value=value):
            response = client.get("/v1/businesses", query_string={name: value})
            assert response.status_code == 400
            assert response.mimetype == "application/json"
            assert response.headers["Access-Control-Allow-Origin"] == "*"
            body = response.get_json()
            assert body["error"] == "invalid_parameter" and body["parameter"] == name
            assert name in body["message"]


def test_each_page_is_a_keyed_query_whose_cost_does_not_grow_with_the_page_number(
    app, client, mirror, world, monkeypatch
):
    statements: list[str] = []
    transactions: list[object] = []

    def capture(_conn, _cursor, statement, *_args):
        statements.append(statement)

    def one_statement(session, sql, params, **kwargs):  # the autocommit path runs below SQLAlchemy's events
        rows = autocommit_rows(session, sql, params, **kwargs)
        if rows is not None:
            statements.append(sql)
        return rows

    def begun(connection):
        transactions.append(connection)

    monkeypatch.setattr(mirror_db, "autocommit_rows", one_statement)
    event.listen(mirror.engine, "before_cursor_execute", capture)
    event.listen(mirror.engine, "begin", begun)
    try:
        client.get("/v1/businesses?page=1&page_size=3")  # builds the boundary index for this feed state
        per_page = []
        for page in (1, 2, 5, 8, 8):
            statements.clear()
            transactions.clear()
            assert get_feed(client, page=page, page_size=2)["businesses"]
            per_page.append((sum(s.lstrip().upper().startswith("SELECT") for s in statements), len(transactions)))
            assert not any("OFFSET" in s.upper() for s in statements)
    finally:
        event.remove(mirror.engine, "before_cursor_execute", capture)
        event.remove(mirror.engine, "begin", begun)
    # One statement reads the state and the page's keyed range together
    # (mirror/read/feed.py), in no transaction; a page asked again at the same state version, none.
    assert per_page == [(1, 0)] * 4 + [(0, 0)]
    index = app.extensions["business_feed_index"]
    builds = index.builds
    get_feed(client, page=3, page_size=7)
    assert index.builds == builds  # same feed state, any page size: no new key read


def test_a_new_feed_state_gets_a_new_index(client, mirror, world):
    before, _ = walk(client, 5)
    add_company(world, "~~last")  # joins at the very end: page 1 alone cannot reveal it
    sync(mirror)
    assert get_feed(client, page=1, page_size=5)["total_pages"] == ceil((len(before) + 1) / 5)
    assert walk(client, 5)[0] == before + ["~~last"]
    world.catalog.touch_company("apple", phone=MISSING)
    sync(mirror)
    assert walk(client, 3)[0] == [k for k in before if k != "apple"] + ["~~last"]


def test_the_index_heals_if_the_table_changes_behind_the_clock(client, mirror, world):
    # Only the sync should ever change membership (it moves the clock); if
    # anything else does, the page still tells the truth.
    walk(client, 4)
    with mirror.WriterSession() as session:
        session.execute(update(Company).where(Company.plugin_key == "-dash").values(in_feed=False))
        session.commit()
    sync(mirror)  # pages are answered again once a run commits (one that changes nothing, and moves no clock)
    listed, pages = walk(client, 4)
    assert "-dash" not in listed and len(listed) == len(set(listed))
    assert all(len(p["businesses"]) == 4 for p in pages[:-1])


def test_a_record_that_fails_validation_is_left_out_and_logged(client, mirror, world, caplog):
    # Eligibility and the record model check the same facts, so only a row
    # edited behind the sync's back can fail; the rest of the page is served.
    with mirror.WriterSession() as session:
        session.execute(update(Company).where(Company.plugin_key == "Apple").values(phone="555-0142"))
        session.commit()
    listed = feed_ids(client)
    assert "Apple" not in listed and "apple" in listed
    assert any("Apple" in r.getMessage() and r.levelname == "ERROR" for r in caplog.records)


# --- HTTP details ------------------------------------------------------------------------------


def test_head_etag_and_cache_control(client, mirror, world):
    response = client.get("/v1/businesses?page_size=5")
    etag = response.headers["ETag"]
    assert etag.startswith('"') and response.headers["Cache-Control"] == "public, no-cache"
    head = client.head("/v1/businesses?page_size=5")
    assert head.status_code == 200 and head.get_data() == b""
    assert head.headers["ETag"] == etag and head.headers["Access-Control-Allow-Origin"] == "*"
    revalidated = client.get("/v1/businesses?page_size=5", headers={"If-None-Match": f'"nope", W/{etag}'})
    assert revalidated.status_code == 304 and revalidated.get_data() == b""
    world.catalog.touch_company("0zero", name="Zero Renamed")
    sync(mirror)
    moved = client.get("/v1/businesses?page_size=5", headers={"If-None-Match": etag})
    assert moved.status_code == 200 and moved.headers["ETag"] != etag


# --- changes tokens ----------------------------------------------------------------------------


def _clock(mirror) -> int:
    with mirror.Session() as session:
        return get_int(read_state(session), FEED_CLOCK_MS)


def test_the_token_names_the_contract_version_and_the_feed_clock(client, mirror, world):
    assert get_feed(client)["changes_token"] == f"chg_1_{_clock(mirror)}"


def test_a_current_token_with_nothing_changed_answers_checksum_false(client, mirror, world):
    token = get_feed(client)["changes_token"]
    sync(mirror)  # a run that changes nothing
    payload = get_feed(client, changes_token=token, page_size=7)
    assert payload == {
        "checksum": False,
        "page": 1,
        "page_size": 7,
        "total_pages": 0,
        "changes_token": token,
        "businesses": [],
    }


def test_a_company_record_change_is_listed_alone(client, mirror, world):
    token = get_feed(client)["changes_token"]
    world.catalog.touch_company("Zeta", name="Zeta Comfort Pros")
    sync(mirror)
    payload = get_feed(client, changes_token=token)
    assert payload["checksum"] is True and ids(payload) == ["Zeta"]
    assert payload["businesses"][0]["name"] == "Zeta Comfort Pros"
    assert payload["businesses"][0] == _record(client, "Zeta")  # the same record the full walk serves
    assert payload["changes_token"] != token and payload["changes_token"] == get_feed(client)["changes_token"]
    assert get_feed(client, changes_token=payload["changes_token"])["checksum"] is False


def test_an_address_change_is_listed(client, mirror, world):
    token = get_feed(client)["changes_token"]
    world.catalog.touch_company("AB", address={**ADDRESS, "line2": "Suite 9"})
    world.catalog.touch_company("aB", address={**ADDRESS, "latitude": 38.7})
    sync(mirror)
    payload = get_feed(client, changes_token=token)
    assert ids(payload) == ["AB", "aB"]
    assert payload["businesses"][0]["address"]["formatted"] == "12 Main St, Suite 9, St. Louis, MO 63103"
    assert payload["businesses"][1]["location"]["latitude"] == 38.7


def test_a_catalog_only_change_is_not_listed(client, mirror, world):
    add_company(world, "catalog-co", products=5)
    sync(mirror)
    token = get_feed(client)["changes_token"]
    with mirror.Session() as session:
        version_before = session.get(Company, "catalog-co").content_version
    product = next(p for p in world.catalog.products_of("catalog-co") if p.get("published") is True and "price" in p)
    world.catalog.set_product("catalog-co", product["sku"], price="12345.00")
    sync(mirror)
    with mirror.Session() as session:
        assert session.get(Company, "catalog-co").content_version != version_before  # the sync did see it
    payload = get_feed(client, changes_token=token)
    assert payload["checksum"] is False and payload["businesses"] == [] and payload["changes_token"] == token


def test_a_change_to_a_company_outside_the_feed_is_not_listed(client, mirror, world):
    add_company(world, "outside-co", phone="call us!")
    sync(mirror)
    token = get_feed(client)["changes_token"]
    world.catalog.touch_company("outside-co", name="Still Outside")
    sync(mirror)
    assert get_feed(client, changes_token=token)["checksum"] is False


def test_changes_walks_page_like_full_walks(client, mirror, world):
    token = get_feed(client)["changes_token"]
    changed = ["~tilde", "Apple", "0zero", "a.b", "_under"]
    for key in changed:
        world.catalog.touch_company(key, name=f"{key} renamed")
    sync(mirror)
    listed, pages = walk(client, 2, changes_token=token)
    assert listed == sorted(changed)
    assert [len(p["businesses"]) for p in pages] == [2, 2, 1]
    assert all(p["total_pages"] == 3 and p["checksum"] is True for p in pages)
    assert get_feed(client, changes_token=token, page=4, page_size=2)["businesses"] == []


@pytest.mark.parametrize("departure", ["switch-off", "phone-gone", "not-live", "deleted"])
def test_a_departure_since_the_token_answers_the_full_walk(client, mirror, world, departure):
    token = get_feed(client)["changes_token"]
    world.catalog.touch_company("Apple", name="Apple Air renamed")  # a plain change, too
    if departure == "switch-off":
        world.catalog.touch_company("zeta", settings={"channels": {**ALL_ON, "feed": False}})
    elif departure == "phone-gone":
        world.catalog.touch_company("zeta", phone=MISSING)
    elif departure == "not-live":
        world.catalog.touch_company("zeta", storefront_live=False)
    else:
        world.catalog.remove_company("zeta")
    sync(mirror, full=departure == "deleted")
    payload = get_feed(client, changes_token=token, page_size=500)
    full = get_feed(client, page_size=500)
    assert payload["checksum"] is True
    assert ids(payload) == ids(full) and "zeta" not in ids(full) and "Apple" in ids(full)
    assert payload["changes_token"] == full["changes_token"] != token
    # After the departure, a token taken later is current again.
    assert get_feed(client, changes_token=full["changes_token"])["checksum"] is False


def _stale_tokens(clock: int) -> list[str]:
    return [
        f"chg_2_{clock}",
        f"chg_0_{clock}",
        f"chg_{clock}",
        "chg_123",  # other versions, legacy
        f"chg_1_{clock + 1}",
        f"chg_1_{clock + 10**9}",  # from the future
        "",
        "garbage",
        "chg_1_",
        "chg__1",
        f"chg_1_{clock}x",
        f"CHG_1_{clock}",
        f" chg_1_{clock}",
        f"chg_1_-{clock}",
        "chg_1_\u0661\u0662",
        "chg_1_" + "9" * 40,
        "chg_1_1_1",
        "\x00",
        "chg_1_12%00",
    ]


def test_stale_tokens_answer_the_full_walk(client, mirror, world):
    full = get_feed(client, page_size=500)
    clock = _clock(mirror)
    for token in _stale_tokens(clock):
        payload = get_feed(client, changes_token=token, page_size=500)
        assert payload == full, token


def test_an_old_but_valid_token_lists_every_change_since_it(client, mirror, world):
    old = get_feed(client)["changes_token"]
    world.catalog.touch_company("zeta", name="zeta one")
    sync(mirror)
    middle = get_feed(client)["changes_token"]
    world.catalog.touch_company("apple", name="apple two")
    sync(mirror)
    assert ids(get_feed(client, changes_token=old)) == ["apple", "zeta"]
    assert ids(get_feed(client, changes_token=middle)) == ["apple"]


def _heat_pump(world, key: str, sku: str, published: bool = True) -> None:
    world.catalog.set_product(
        key,
        sku,
        name="Acme 3 Ton Heat Pump",
        category={"name": "Heat Pumps", "slug": "heat-pumps", "kind": "system"},
        tier="good",
        price="8500.00",
        published=published,
        specs={"tonnage": 3},
    )


def _found(mirror, query: str, **kwargs) -> set[str]:
    from mirror.read.businesses import search_feed_businesses

    with mirror.WriterSession() as session:
        return {m.company.plugin_key for m in search_feed_businesses(session, query=query, limit=100, **kwargs).matches}


def test_the_directory_finds_what_a_business_sells_as_each_sync_leaves_its_catalog(mirror, world):
    # "Who sells heat pumps" reads the concept tags the sync keeps (mirror/sync/concepts.py), not the products:
    # they must follow every change of the catalog in the run that makes it.
    add_company(world, "pump-seller", trades=["plumbing"])  # no HVAC trade: only what it sells can find it
    sync(mirror)
    assert "pump-seller" not in _found(mirror, "heat pump")
    _heat_pump(world, "pump-seller", "HP-3T")
    sync(mirror)
    assert "pump-seller" in _found(mirror, "heat pump")
    assert "pump-seller" in _found(mirror, "heat pump", postal_code=None)
    _heat_pump(world, "pump-seller", "HP-3T", published=False)
    sync(mirror)
    assert "pump-seller" not in _found(mirror, "heat pump")
    _heat_pump(world, "pump-seller", "HP-3T")
    sync(mirror)
    world.catalog.delete_product("pump-seller", "HP-3T")
    sync(mirror)
    assert "pump-seller" not in _found(mirror, "heat pump")


def test_a_new_vocabulary_retags_every_business_in_the_next_run(mirror, world):
    from sqlalchemy import delete

    from mirror.store import state as st
    from mirror.store.models import CompanyConcept

    add_company(world, "pump-seller", trades=["plumbing"])
    _heat_pump(world, "pump-seller", "HP-3T")
    sync(mirror)
    with mirror.WriterSession() as session, session.begin():
        session.execute(delete(CompanyConcept))  # tags made by an older release's vocabulary...
        st.put(session, st.CONCEPTS_VERSION, "an-older-vocabulary")
    assert "pump-seller" not in _found(mirror, "heat pump")
    sync(mirror)  # ...a run that changes nothing of this company still tags it again
    assert "pump-seller" in _found(mirror, "heat pump")


ALONE = {"service_area": {"postal_codes": ["99501"]}}  # a ZIP no other business of the world serves


def _kind_priced(mirror, category: str = "heat pump"):
    """The first match's price_range and the spread of search_businesses' category `category`, in ALONE's ZIP."""
    from mirror.read.businesses import search_feed_businesses

    with mirror.WriterSession() as session:
        found = search_feed_businesses(session, category=category, postal_code="99501")
    return (found.matches[0].group if found.matches else None), found.spread


def _a_furnace(world, key: str, price: str) -> None:
    world.catalog.set_product(
        key,
        "FURN-80",
        name="Acme Gas Furnace 80K",
        category={"name": "Heat Pumps", "slug": "heat-pumps", "kind": "system"},  # mislisted beside the heat pumps
        tier="good",
        price=price,
        published=True,
        specs={"afue": 80},
    )


def test_a_kind_is_priced_from_the_tags_each_sync_leaves(mirror, world):
    # search_businesses asked a kind prices each business from its tag (mirror/sync/concepts.py), never from
    # its products: the tag's prices must follow every change of the catalog in the run that makes it.
    add_company(world, "pump-seller", trades=["hvac"], **ALONE)
    _heat_pump(world, "pump-seller", "HP-3T")
    _a_furnace(world, "pump-seller", "2500.00")  # cheaper, in the same category: never a heat pump's price
    sync(mirror)
    group, spread = _kind_priced(mirror)
    assert (group.category_name, group.kind, group.price_low_cents, group.offer_count) == (
        "Heat Pumps",
        "heat pump",
        850_000,
        1,
    )
    assert (spread.category_name, spread.price_low_cents, spread.business_count, spread.kind) == (
        "heat pump",
        850_000,
        1,
        True,
    )
    world.catalog.set_product(  # a dearer heat pump listed under another category
        "pump-seller",
        "HP-5T",
        name="Acme 5 Ton Heat Pump",
        category={"name": "Systems", "slug": "systems", "kind": "system"},
        tier="best",
        price="12000.00",
        published=True,
        specs={"tonnage": 5},
    )
    sync(mirror)
    group, spread = _kind_priced(mirror)
    assert (group.category_name, group.price_low_cents, group.price_high_cents, group.offer_count) == (
        "Heat Pumps",  # where the cheapest is listed
        850_000,
        1_200_000,
        2,
    )
    assert (spread.price_low_cents, spread.price_high_cents) == (850_000, 1_200_000)
    _heat_pump(world, "pump-seller", "HP-3T", published=False)
    sync(mirror)
    group, _ = _kind_priced(mirror)
    assert (group.category_name, group.price_low_cents, group.offer_count) == ("Systems", 1_200_000, 1)
    # Its own category asked by name: the whole group, furnace and all, under that name (no kind).
    group, spread = _kind_priced(mirror, "Systems")
    assert (group.kind, spread.category_name, spread.kind) == (None, "Systems", False)


def test_tags_an_older_release_wrote_without_prices_price_nothing_and_are_made_again(mirror, world):
    from sqlalchemy import update as update_rows

    from mirror.query.product_reading import rules_version
    from mirror.store import state as st
    from mirror.store.models import CompanyConcept

    add_company(world, "pump-seller", trades=["plumbing"], **ALONE)
    _heat_pump(world, "pump-seller", "HP-3T")
    sync(mirror)
    with mirror.WriterSession() as session, session.begin():
        # What the previous release's scheduler leaves while an upgrade migrates: tags without their prices,
        # under its own version (the reading's rules alone).
        session.execute(update_rows(CompanyConcept).values(price_low_cents=None, offer_count=None))
        st.put(session, st.CONCEPTS_VERSION, rules_version())
    group, spread = _kind_priced(mirror)
    assert group is None and spread is None  # found (it sells heat pumps), never priced from a tag without prices
    assert "pump-seller" in _found(mirror, "heat pump")
    sync(mirror)  # a run that changes nothing of this company still tags it again, with the prices
    group, spread = _kind_priced(mirror)
    assert (group.price_low_cents, spread.price_low_cents) == (850_000, 850_000)


def test_a_category_without_a_zip_reads_its_businesses_as_a_set_on_postgres(database_url):
    # Without a ZIP, the businesses of a category or a kind are read on the category's and the tags' indexes
    # (migration 0015) and priced from their groups and tags: never a probe or a products' subquery per business
    # (the reverted first version took 95-105 s on 10,005 businesses). A plan of the real statement, on a
    # directory big enough that a scan would cost more than the indexes.
    from sqlalchemy import create_engine, text

    engine = create_engine(database_url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.begin() as connection:
        # 5,000 businesses (keys kd-*, ZIPs 20001-25000); one in 50 sells heat pumps under its own category
        # name, one in 50 more lists "HP & Air Handler".
        connection.execute(
            text(
                "INSERT INTO companies (plugin_key, name, trades, status, storefront_live, is_public, "
                "service_postal_codes, currency, channels, upstream_updated_at, record_hash, in_feed, generation) "
                "SELECT 'kd-' || n, 'Company ' || n, '[\"hvac\"]', 'active', true, true, "
                "json_build_array((20000 + n)::text), 'USD', '{}', now(), 'h', true, 1 FROM generate_series(1, 5000) AS n"
            )
        )
        connection.execute(
            text(
                "INSERT INTO company_concepts SELECT 'kd-' || n, c, 100000 + n, 200000 + n, 2, 'Systems', 'systems' "
                "FROM generate_series(1, 5000) AS n, unnest(ARRAY['furnace', 'air-filter', 'thermostat']) AS c "
                "UNION ALL SELECT 'kd-' || n, 'heat-pump', 300000 + n, 400000, 3, 'Heat Pumps', 'heat-pumps' "
                "FROM generate_series(50, 5000, 50) AS n"
            )
        )
        connection.execute(
            text(
                "INSERT INTO offer_groups (plugin_key, category_slug, category_name, kind, currency, "
                "price_low_cents, price_high_cents, offer_count) "
                "SELECT 'kd-' || n, 'group-' || (n % 40), 'Group ' || (n % 40), 'system', 'USD', 1000, 2000, 1 "
                "FROM generate_series(1, 5000) AS n "
                "UNION ALL SELECT 'kd-' || n, 'hp-air-handler', 'HP & Air Handler', 'system', 'USD', 500000, 600000, 4 "
                "FROM generate_series(25, 5000, 50) AS n"
            )
        )
        connection.execute(text("ANALYZE companies; ANALYZE company_concepts; ANALYZE offer_groups"))
    try:
        _plan_and_answers(engine)
    finally:  # this test's rows and statistics gone: later tests' plans read their own (the reset only DELETEs)
        with engine.begin() as connection:
            connection.execute(text("DELETE FROM offer_groups; DELETE FROM company_concepts; DELETE FROM companies"))
            connection.execute(text("ANALYZE companies; ANALYZE company_concepts; ANALYZE offer_groups"))
        engine.dispose()


def _plan_and_answers(engine) -> None:
    """The no-ZIP kind search's plan and answers over the 5,000 businesses of the test above."""
    from mirror.read import businesses
    from mirror.store.db import _compiled_for_postgres

    shape, params = businesses._shape_and_values(None, None, "heat pump")
    sql, defaults = _compiled_for_postgres(businesses._statements(shape))  # the statement the search sends
    with engine.connect() as connection:
        cursor = connection.connection.dbapi_connection.cursor()
        cursor.execute("EXPLAIN " + sql, {**defaults, **params, "limit": 10}, prepare=False)
        plan = "\n".join(line for (line,) in cursor.fetchall())
    assert "ix_company_concepts_concept" in plan, plan  # the kind's businesses, on its index
    assert "products" not in plan, plan  # priced from the tags
    with Session(engine) as session:
        found = businesses.search_feed_businesses(session, category="heat pump")
        by_name = businesses.search_feed_businesses(session, category="HP & Air Handler")
    assert found.total == 100 and found.spread.business_count == 100
    assert (found.spread.category_name, found.spread.price_low_cents, found.spread.price_high_cents) == (
        "heat pump",
        300_050,
        400_000,
    )
    # "HP & Air Handler" names a kind too: the 100 listing that category, priced from it, and the 100 selling
    # heat pumps under another name, priced from their tags.
    assert by_name.total == 200 and by_name.spread.business_count == 200
    assert (by_name.spread.category_name, by_name.spread.price_low_cents, by_name.spread.price_high_cents) == (
        "heat pump",
        300_050,
        600_000,
    )


def test_the_directory_filters_the_served_zip_inside_its_statement(mirror, world):
    add_company(world, "near-co", service_area={"postal_codes": ["63376"]}, trades=["plumbing"])
    add_company(world, "far-co", service_area={"postal_codes": ["90210"]}, trades=["plumbing"])
    sync(mirror)
    assert {"near-co", "far-co"} <= _found(mirror, "plumber")
    near = _found(mirror, "plumber near 63376")
    assert "near-co" in near and "far-co" not in near
    assert "far-co" in _found(mirror, "plumber", postal_code="90210") - _found(mirror, "plumber", postal_code="63376")


def test_the_directory_reads_the_served_zip_and_the_tags_by_index_on_postgres(postgres_url):
    # The worst directory question must not read every business (docs/search.md): its ZIP is found on the GIN
    # index of migration 0009 and each candidate's tags by key. A plan of the real statement, on a catalog big
    # enough that a scan would cost more than the index.
    from sqlalchemy import create_engine, text

    from mirror.read import businesses

    engine = create_engine(postgres_url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.begin() as connection:
        connection.execute(  # 5,000 businesses, each serving its own ZIP (co-1: 10000, co-43: 10042)
            text(
                "INSERT INTO companies (plugin_key, name, trades, status, storefront_live, is_public, "
                "service_postal_codes, currency, channels, upstream_updated_at, record_hash, in_feed, generation) "
                "SELECT 'co-' || n, 'Company ' || n, '[\"plumbing\"]', 'active', true, true, "
                "json_build_array((9999 + n)::text), 'USD', '{}', now(), 'h', true, 1 FROM generate_series(1, 5000) AS n"
            )
        )
        connection.execute(text("ANALYZE companies"))
    from sqlalchemy.orm import Session

    from mirror.query import understand
    from mirror.store.db import _compiled_for_postgres

    question = "plumber near 10042"
    shape, params = businesses._shape_and_values(understand(question), "10042", None)
    sql, defaults = _compiled_for_postgres(businesses._statements(shape))  # the statement the search sends
    with engine.connect() as connection:
        cursor = connection.connection.dbapi_connection.cursor()
        cursor.execute("EXPLAIN " + sql, {**defaults, **params, "limit": 10}, prepare=False)
        plan = "\n".join(line for (line,) in cursor.fetchall())
    with Session(engine) as session:
        found = businesses.search_feed_businesses(session, query=question)
    assert [m.company.plugin_key for m in found.matches] == ["co-43"]
    assert "ix_companies_service_postal_codes" in plan, plan
    assert "Seq Scan" not in plan, plan  # the ZIP on its index; tags, groups and the page's rows by key
    engine.dispose()
