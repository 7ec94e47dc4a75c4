"""The demo upstream honours docs/contracts/upstream.md over real HTTP, and its faults fire as asked."""

from __future__ import annotations

import json
import re
import threading

import pytest
import requests

from demo.api import decode_cursor
from demo.catalog import MONEY_RE, iso_utc, product_is_valid
from demo.server import DemoCatalog, start_in_thread

TOKEN = "demo-token"
BASE_TIME = "2026-08-01T00:00:00Z"


class FakeClock:
    """A clock the test moves by hand (the catalog stamps and serves by it)."""

    def __init__(self, now: float = 1_790_000_000.0):  # 2026-09-21
        self.now = now

    def __call__(self) -> float:
        return self.now


def make_catalog(**overrides) -> DemoCatalog:
    options = {"companies": 12, "products": 25, "seed": 11, "base_time": BASE_TIME}
    return DemoCatalog(**{**options, **overrides})


@pytest.fixture(scope="module")
def shared_server():
    with start_in_thread(make_catalog()) as upstream:
        yield upstream


@pytest.fixture
def shared(shared_server):
    """A read-only upstream: tests using it must not change the catalog."""
    yield shared_server
    shared_server.faults.clear()  # a failed test must not leave a fault armed for the next


@pytest.fixture
def upstream():
    """A fresh upstream per test, on a hand-moved clock, free to mutate."""
    clock = FakeClock()
    with start_in_thread(make_catalog(clock=clock)) as server:
        server.clock = clock
        yield server


def get(upstream, path: str, token: str = TOKEN, timeout: float = 5, **params) -> requests.Response:
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    return requests.get(upstream.url + path, params=params, headers=headers, timeout=timeout)


def walk(upstream, path: str, **params) -> tuple[list, list]:
    """Every record of a list walk, and each page's body."""
    records, pages, cursor = [], [], None
    while True:
        body = get(upstream, path, **params, **({"cursor": cursor} if cursor else {})).json()
        pages.append(body)
        records.extend(body["data"])
        cursor = body["next_cursor"]
        if cursor is None:
            return records, pages


def position(record: dict) -> tuple:
    return (record["updated_at"], record["plugin_key"], record.get("sku", ""))


# --- paging ---------------------------------------------------------------------------


def test_small_pages_partition_the_walk_exactly(shared):
    stats = shared.catalog.stats()
    small, pages = walk(shared, "/v1/products", limit=7)
    big, _ = walk(shared, "/v1/products", limit=500)
    keys = [(r["plugin_key"], r["sku"]) for r in small]
    assert len(keys) == len(set(keys)) == stats["products"] + stats["tombstones"]
    assert small == big
    assert all(len(page["data"]) <= 7 for page in pages)
    assert all(len(page["data"]) == 7 for page in pages[:-1])
    assert [position(r) for r in small] == sorted(position(r) for r in small)


def test_companies_come_in_updated_at_then_key_order(shared):
    records, pages = walk(shared, "/v1/companies", limit=5)
    assert len(records) == 12 == len({r["plugin_key"] for r in records})
    assert [position(r) for r in records] == sorted(position(r) for r in records)
    assert all(re.fullmatch(r"[0-9A-Za-z]{40}", r["plugin_key"]) for r in records)
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", p["server_time"]) for p in pages)


def test_limit_defaults_to_100_and_out_of_range_is_400(shared):
    assert len(get(shared, "/v1/products").json()["data"]) == 100
    assert len(get(shared, "/v1/products", limit=500).json()["data"]) == 300 + shared.catalog.stats()["tombstones"]
    assert len(get(shared, "/v1/products", limit=1).json()["data"]) == 1
    for bad in ("0", "501", "abc", "-1", "1.5", ""):
        response = get(shared, "/v1/products", limit=bad)
        assert response.status_code == 400, bad
        assert response.json()["error"] == "bad_request"


def test_updated_since_is_inclusive_and_accepts_any_utc_spelling(shared):
    everything, _ = walk(shared, "/v1/products", limit=500)
    pivot = everything[len(everything) // 2]["updated_at"]
    expected = [r for r in everything if r["updated_at"] >= pivot]
    since_z, _ = walk(shared, "/v1/products", updated_since=pivot, limit=9)
    since_offset, _ = walk(shared, "/v1/products", updated_since=pivot.replace("Z", "+00:00"), limit=9)
    assert since_z == since_offset == expected
    assert any(r["updated_at"] == pivot for r in since_z)


def test_malformed_updated_since_and_cursors_are_400(shared):
    assert get(shared, "/v1/products", updated_since="yesterday").status_code == 400
    assert get(shared, "/v1/products", updated_since="2026-09-01T00:00:00").status_code == 400  # no offset
    assert get(shared, "/v1/products", cursor="not-a-cursor").status_code == 400
    cursor = get(shared, "/v1/products", limit=2).json()["next_cursor"]
    assert get(shared, "/v1/companies", cursor=cursor).status_code == 400  # another list's cursor
    assert get(shared, "/v1/products", cursor=cursor, updated_since=BASE_TIME).status_code == 400
    assert get(shared, "/v1/products", cursor=cursor, limit=3).status_code == 200  # limit may vary


def test_wrong_or_missing_token_is_401(shared):
    assert get(shared, "/v1/companies", token="nope").status_code == 401
    response = requests.get(shared.url + "/v1/companies", timeout=5)
    assert response.status_code == 401
    assert response.json() == {"error": "unauthorized", "message": "missing or wrong bearer token"}
    admin = requests.get(shared.url + "/_demo/stats", timeout=5)
    assert admin.status_code == 401


def test_unknown_plugin_key_is_404(shared):
    response = get(shared, "/v1/companies/" + "x" * 40 + "/products")
    assert response.status_code == 404
    assert response.json()["error"] == "not_found"


# --- tombstones and per-company lists -------------------------------------------------


def test_tombstones_appear_on_products_and_incremental_company_walks_only(upstream):
    key = upstream.catalog.company_keys()[0]
    sku = upstream.catalog.products_of(key)[0]["sku"]
    upstream.clock.now += 10
    upstream.catalog.delete_product(key, sku)
    tombstone = {"plugin_key": key, "sku": sku, "deleted": True, "updated_at": iso_utc(upstream.clock.now)}
    everything, _ = walk(upstream, "/v1/products", limit=500)
    assert tombstone in everything
    full_catalog, _ = walk(upstream, f"/v1/companies/{key}/products", limit=500)
    assert all(not r.get("deleted") for r in full_catalog)
    assert len(full_catalog) == 24 and sku not in {r["sku"] for r in full_catalog}
    changes, _ = walk(upstream, f"/v1/companies/{key}/products", updated_since=BASE_TIME, limit=3)
    assert tombstone in changes


def test_per_company_walk_is_that_company_in_sku_order(shared):
    key = shared.catalog.company_keys()[3]
    records, pages = walk(shared, f"/v1/companies/{key}/products", limit=4)
    assert {r["plugin_key"] for r in records} == {key}
    assert len(records) == 25 == len({r["sku"] for r in records})
    assert [position(r) for r in records] == sorted(position(r) for r in records)
    assert pages[-1]["next_cursor"] is None and len(pages) == 7


# --- changes -------------------------------------------------------------------------


def test_mutation_is_seen_by_an_incremental_walk_from_the_watermark(upstream):
    first = get(upstream, "/v1/products", limit=500).json()
    watermark = first["server_time"]
    upstream.clock.now += 30
    changed = set(upstream.catalog.mutate(0.1, seed=5))
    assert 25 <= len(changed) <= 31  # 10% of the ~300 products with a valid price
    incremental, _ = walk(upstream, "/v1/products", updated_since=watermark, limit=8)
    seen = {(r["plugin_key"], r["sku"]): r for r in incremental}
    assert set(seen) == changed
    before = {(r["plugin_key"], r["sku"]): r for r in first["data"]}
    repriced = [k for k in changed if k in before and seen[k]["price"] != before[k]["price"]]
    assert repriced and all(MONEY_RE.match(seen[k]["price"]) for k in changed)


def test_a_record_changed_mid_walk_comes_again_on_a_later_page(upstream):
    page = get(upstream, "/v1/products", limit=10).json()
    victim = page["data"][0]
    upstream.clock.now += 5
    upstream.catalog.set_product(victim["plugin_key"], victim["sku"], price="1.23")
    rest, _ = walk_from(upstream, "/v1/products", page["next_cursor"], limit=10)
    again = [r for r in rest if (r["plugin_key"], r["sku"]) == (victim["plugin_key"], victim["sku"])]
    assert [r["price"] for r in again] == ["1.23"]
    assert rest[-1] == again[0]  # the newest stamp sorts last
    total = upstream.catalog.stats()
    assert len(page["data"]) + len(rest) == total["products"] + total["tombstones"] + 1


def walk_from(upstream, path: str, cursor: str, **params) -> tuple[list, list]:
    records, pages = [], []
    while cursor:
        body = get(upstream, path, cursor=cursor, **params).json()
        pages.append(body)
        records.extend(body["data"])
        cursor = body["next_cursor"]
    return records, pages


def test_expired_cursor_is_410_when_a_ttl_is_set(upstream):
    upstream.cursor_ttl_seconds = 60
    cursor = get(upstream, "/v1/companies", limit=2).json()["next_cursor"]
    assert get(upstream, "/v1/companies", limit=2, cursor=cursor).status_code == 200
    upstream.clock.now += 61
    response = get(upstream, "/v1/companies", limit=2, cursor=cursor)
    assert (response.status_code, response.json()) == (410, {"error": "cursor_expired"})


def test_removed_company_is_404_and_leaves_every_list(upstream):
    key = upstream.catalog.company_keys()[2]
    upstream.catalog.remove_company(key)
    assert get(upstream, f"/v1/companies/{key}/products").status_code == 404
    companies, _ = walk(upstream, "/v1/companies", limit=500)
    products, _ = walk(upstream, "/v1/products", limit=500)
    assert key not in {r["plugin_key"] for r in companies + products}


def test_admin_api_changes_what_the_list_api_serves(upstream):
    headers = {"Authorization": f"Bearer {TOKEN}"}
    key = upstream.catalog.company_keys()[1]
    upstream.clock.now += 5
    since = iso_utc(upstream.clock.now)
    patched = requests.patch(
        f"{upstream.url}/_demo/companies/{key}",
        headers=headers,
        timeout=5,
        json={"name": "Renamed Heating & Air", "_unset": ["phone"]},
    ).json()
    assert patched["name"] == "Renamed Heating & Air" and "phone" not in patched
    added = requests.post(
        f"{upstream.url}/_demo/companies", headers=headers, timeout=5, json={"products": 3, "status": "churned"}
    )
    assert added.status_code == 201
    new_key = added.json()["plugin_key"]
    changes, _ = walk(upstream, "/v1/companies", updated_since=since)
    assert {r["plugin_key"] for r in changes} == {key, new_key}
    assert len(walk(upstream, f"/v1/companies/{new_key}/products")[0]) == 3
    upstream.clock.now += 5
    mutated = requests.post(
        f"{upstream.url}/_demo/mutate", headers=headers, timeout=5, json={"fraction": 0.02, "seed": 1}
    ).json()
    repriced, _ = walk(upstream, "/v1/products", updated_since=iso_utc(upstream.clock.now))
    assert mutated["changed_count"] == len(mutated["changed"]) == len(repriced) > 0
    assert sorted(mutated["changed"]) == sorted([r["plugin_key"], r["sku"]] for r in repriced)
    assert all(entry.path.startswith("/v1/") for entry in upstream.requests)  # admin calls unlogged


# --- data ------------------------------------------------------------------------------


def test_same_seed_same_catalog_and_another_seed_another(shared):
    again = start_in_thread(make_catalog())
    other = start_in_thread(make_catalog(seed=12))
    try:
        assert walk(again, "/v1/products", limit=500) == walk(shared, "/v1/products", limit=500)
        assert walk(again, "/v1/companies")[0] == walk(shared, "/v1/companies")[0]
        ours = {r["plugin_key"] for r in walk(shared, "/v1/companies")[0]}
        assert ours.isdisjoint(r["plugin_key"] for r in walk(other, "/v1/companies")[0])
    finally:
        again.stop()
        other.stop()


def test_private_fields_are_present_upstream(shared):
    company = get(shared, "/v1/companies", limit=1).json()["data"][0]
    assert isinstance(company["internal_id"], int) and "email" in company["owner"]
    products = get(shared, "/v1/products", limit=500).json()["data"]
    live = [p for p in products if not p.get("deleted")]
    assert all(MONEY_RE.match(p["cost"]) and p["dealer_notes"] for p in live)


def test_mess_is_a_small_seeded_share_and_messiness_zero_is_clean():
    messy = DemoCatalog(companies=200, products=50, seed=4, base_time=BASE_TIME)
    stats = messy.stats()
    assert 0 < stats["invalid_products"] < 0.02 * stats["products"]
    assert 0 < stats["tombstones"] < 0.03 * stats["products"]
    assert 0.8 * 200 < stats["public_companies"] < 200
    clean = DemoCatalog(companies=50, products=50, seed=4, base_time=BASE_TIME, messiness=0).stats()
    assert clean["public_companies"] == 50 and clean["tombstones"] == clean["invalid_products"] == 0
    assert clean["public_products"] == clean["products"] == 2500
    padded = DemoCatalog(companies=3, products=2, empty_companies=4, seed=4).stats()
    assert (padded["companies"], padded["products"]) == (7, 6)


def test_products_look_like_an_hvac_and_plumbing_catalog(shared):
    products = [p for p in walk(shared, "/v1/products", limit=500)[0] if not p.get("deleted")]
    valid = [p for p in products if product_is_valid(p)]
    assert all(isinstance(p["price"], str) for p in valid)
    slugs = {p["category"]["slug"] for p in valid}
    assert {"central-ac", "hp-air-handler", "air-filters"} <= slugs
    systems = [p for p in valid if p["category"]["kind"] == "system"]
    assert {p["tier"] for p in systems} >= {"good", "better", "best"}
    assert all(p["tier"] is None for p in valid if p["category"]["kind"] == "accessory")


# --- faults ------------------------------------------------------------------------------


@pytest.mark.parametrize("status", [500, 502, 503])
def test_status_fault_answers_that_status_once(shared, status):
    shared.faults.add("status", status=status, path="/v1/companies")
    assert get(shared, "/v1/companies").status_code == status
    assert get(shared, "/v1/companies").status_code == 200


@pytest.mark.parametrize(
    "kind, status, body",
    [
        ("rate_limit", 429, {"error": "rate_limited"}),
        ("cursor_expired", 410, {"error": "cursor_expired"}),
        ("unauthorized", 401, {"error": "unauthorized"}),
        ("bad_request", 400, {"error": "bad_request"}),
    ],
)
def test_canned_error_faults(shared, kind, status, body):
    shared.faults.add(kind, retry_after=7)
    response = get(shared, "/v1/products")
    assert (response.status_code, response.json()) == (status, body)
    assert (response.headers.get("Retry-After") == "7") == (kind == "rate_limit")


def test_slow_fault_makes_the_client_time_out(shared):
    shared.faults.add("slow", seconds=3)
    with pytest.raises(requests.Timeout):
        get(shared, "/v1/companies", timeout=0.3)
    assert get(shared, "/v1/companies").status_code == 200


def test_truncated_and_not_json_faults_send_bodies_that_do_not_parse(shared):
    shared.faults.add("truncated", keep=0.5)
    shared.faults.add("not_json", nth=3)  # counts from when it was added: the 3rd request
    truncated = get(shared, "/v1/products")
    full = get(shared, "/v1/products").text
    assert truncated.status_code == 200 and full.startswith(truncated.text)
    assert len(truncated.content) == len(full.encode()) // 2
    not_json = get(shared, "/v1/products")
    assert not_json.headers["Content-Type"].startswith("text/html")
    for response in (truncated, not_json):
        with pytest.raises(json.JSONDecodeError):
            json.loads(response.text)


def test_short_body_and_reset_faults_break_the_connection(shared):
    shared.faults.add("short_body")
    with pytest.raises(requests.exceptions.ChunkedEncodingError):
        get(shared, "/v1/products")
    shared.faults.add("reset")
    with pytest.raises(requests.ConnectionError):
        get(shared, "/v1/products")
    assert shared.requests[-1].status is None and shared.requests[-1].fault == "reset"
    assert get(shared, "/v1/products").status_code == 200


def _next_position(page: dict) -> tuple:
    """Where a product page's cursor resumes (it also carries the second it was issued in, which may tick)."""
    return decode_cursor(page["next_cursor"], "products", None, 2)[0]


def test_malformed_records_are_added_to_the_real_page(shared):
    clean = get(shared, "/v1/products", limit=5).json()
    shared.faults.add("malformed_records")
    dirty = get(shared, "/v1/products", limit=5).json()
    assert dirty["data"][:5] == clean["data"] and _next_position(dirty) == _next_position(clean)
    assert len(dirty["data"]) > 5 and not any(product_is_valid(r) for r in dirty["data"][5:])
    shared.faults.add("malformed_records", records=[{"sku": 1}])
    assert get(shared, "/v1/products", limit=5).json()["data"][5:] == [{"sku": 1}]


def test_faults_match_by_path_and_request_number(shared):
    shared.requests.clear()
    shared.faults.add("status", status=503, path="/v1/products", exact=True, nth=2, times=2)
    statuses = []
    for path in ("/v1/products", "/v1/companies", "/v1/products", "/v1/products", "/v1/products"):
        statuses.append(get(shared, path, limit=1).status_code)
    assert statuses == [200, 200, 503, 503, 200]
    assert shared.faults.pending() == []
    assert shared.requests.count == 5
    assert [entry.fault for entry in shared.requests] == [None, None, "status", "status", None]
    assert shared.requests[0].query == {"limit": "1"}
    assert shared.requests[0].headers["Accept"] == "application/json"


def test_faults_and_request_log_over_the_admin_api(shared):
    headers = {"Authorization": f"Bearer {TOKEN}"}
    url = shared.url + "/_demo/faults"
    added = requests.post(
        url,
        headers=headers,
        timeout=5,
        json=[{"kind": "status", "status": 502}, {"kind": "rate_limit", "retry_after": 2}],
    )
    assert added.status_code == 201 and len(added.json()["added"]) == 2
    assert [get(shared, "/v1/companies").status_code for _ in range(3)] == [502, 429, 200]
    bad = requests.post(url, headers=headers, json={"kind": "explode"}, timeout=5)
    assert bad.status_code == 400 and "unknown fault kind" in bad.json()["message"]
    log = requests.get(shared.url + "/_demo/requests", headers=headers, timeout=5).json()
    assert [entry["status"] for entry in log["requests"][-3:]] == [502, 429, 200]


def test_stop_cuts_a_slow_fault_short():
    server = start_in_thread(companies=1, products=1)
    server.faults.add("slow", seconds=30)
    outcome = {}
    caller = threading.Thread(
        target=lambda: outcome.update(status=get(server, "/v1/companies", timeout=10).status_code)
    )
    caller.start()
    while not len(server.requests):  # the request has reached the fault
        caller.join(0.01)
    server.stop()
    caller.join(timeout=5)
    assert not caller.is_alive() and outcome == {"status": 200}


# --- the docs' example companies (demo/examples.py) -------------------------------------


def _walk_all(upstream, path: str) -> list[dict]:
    records, cursor = [], None
    while True:
        params = {"limit": 500, **({"cursor": cursor} if cursor else {})}
        body = get(upstream, path, **params).json()
        records += body["data"]
        cursor = body.get("next_cursor")
        if not cursor:
            return records


def test_examples_are_served_beside_unchanged_seeded_companies():
    """examples=True adds exactly the docs' companies; every seeded record stays byte-identical."""
    from demo.examples import EXAMPLE_KEYS, TUDI_KEY

    plain, extended = make_catalog(), make_catalog(examples=True)
    assert extended.company_keys() == plain.company_keys() + list(EXAMPLE_KEYS.values())
    for key in plain.company_keys():
        assert extended.get_company(key) == plain.get_company(key)
        assert extended.products_of(key, include_tombstones=True) == plain.products_of(key, include_tombstones=True)
    with start_in_thread(extended) as upstream:
        companies = {c["plugin_key"]: c for c in _walk_all(upstream, "/v1/companies")}
        tudi = companies[TUDI_KEY]
        products = _walk_all(upstream, f"/v1/companies/{TUDI_KEY}/products")
    assert set(EXAMPLE_KEYS.values()) <= set(companies)
    assert tudi["name"] == "Tudi Mechanical Systems" and tudi["trades"] == ["hvac"]
    assert "63376" in tudi["service_area"]["postal_codes"]
    assert tudi["settings"]["price_description"] == "Fully-installed price. Includes installation and permits."
    assert tudi["settings"]["systems_estimate_url_verified"] is True
    by_category: dict[str, dict] = {}
    for product in products:
        assert product_is_valid(product) and product["published"] is True
        by_category.setdefault(product["category"]["name"], {}).setdefault(product["tier"], []).append(
            float(product["price"])
        )
    hp = by_category["HP & Air Handler"]
    assert (min(hp["good"]), min(hp["better"]), min(hp["best"])) == (8500.0, 10200.0, 12750.0)
    assert min(min(v) for v in hp.values()) == 8500.0 and max(max(v) for v in hp.values()) == 15200.0
    furnace = by_category["A/C & Gas Furnace"]
    assert (min(furnace["good"]), min(furnace["better"]), min(furnace["best"])) == (11006, 14074, 26540)
    assert max(max(v) for v in furnace.values()) == 29644
    assert sorted(by_category["Air Filters"][None]) == [60.05, 112.40, 186.04]
    assert "Lennox" in {p["brand"] for p in products}


def test_examples_cover_every_case_the_docs_show():
    """Storefront only, no funnel, churned and a switched-off channel, each with its fixed key."""
    from demo.examples import EXAMPLE_KEYS

    catalog = DemoCatalog(companies=0, products=0, examples=True)
    records = {name: catalog.get_company(key) for name, key in EXAMPLE_KEYS.items()}
    assert all(len(key) == 40 and key.isalnum() for key in EXAMPLE_KEYS.values())
    storefront = records["storefront_only"]["settings"]
    assert storefront["systems_estimate_url_verified"] is False and storefront["concom_shop_url"].startswith("https://")
    assert not {"systems_estimate_url", "concom_shop_url"} & set(records["no_funnel"]["settings"])
    assert records["churned"]["status"] == "churned"
    assert records["channel_off"]["settings"]["channels"]["mcp"] is False
    assert catalog.stats()["companies"] == 5 and catalog.stats()["public_companies"] == 4


# --- stand-ins for the contractors' own sites (demo/sites.py) --------------------------------


def test_stand_ins_serve_the_demo_contractors_sites_on_the_upstream_port():
    from demo.examples import STOREFRONT_ONLY_KEY, TUDI_KEY

    with start_in_thread(companies=3, products=10, seed=5, examples=True, stand_ins=True) as upstream:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        companies = requests.get(f"{upstream.url}/v1/companies?limit=500", headers=headers, timeout=10).json()["data"]
        by_key = {company["plugin_key"]: company for company in companies}
        sites = f"{upstream.url}/sites/"
        tudi = by_key[TUDI_KEY]
        assert tudi["website"] == f"{sites}www.tudimechanical.example/"
        assert tudi["settings"]["systems_estimate_url"] == f"{sites}www.tudimechanical.example/estimate?ref=site"
        shop = by_key[STOREFRONT_ONLY_KEY]["settings"]["concom_shop_url"]
        assert shop == f"{sites}shop.example/gatewayplumbing/?utm_source=concom"
        # The stored records are not changed: only what is served names the stand-ins.
        assert upstream.catalog.get_company(TUDI_KEY)["website"] == "https://www.tudimechanical.example/"
        # Every .example URL of every record served is on the stand-ins; nothing else (garbage stays garbage).
        for company in companies:
            for url in (company.get("website"), *(company.get("settings") or {}).values()):
                assert not (isinstance(url, str) and ".example/" in url and not url.startswith(sites)), url
        products = requests.get(f"{upstream.url}/v1/companies/{TUDI_KEY}/products", headers=headers, timeout=10).json()[
            "data"
        ]
        assert {p["image_url"].rsplit("/", 2)[0] for p in products} >= {f"{sites}images.catalog.example"}

        page = requests.get(
            tudi["settings"]["systems_estimate_url"].replace("ref=site", "ref=ai_interfaces"), timeout=10
        )
        assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
        assert "Stand-in for www.tudimechanical.example/estimate" in page.text and "ref=ai_interfaces" in page.text
        picture = requests.get(products[0]["image_url"], timeout=10)
        assert picture.status_code == 200 and picture.headers["Content-Type"] == "image/svg+xml"
        assert picture.text.startswith("<svg") and 'width="400" height="300"' in picture.text
        hostile = requests.get(f"{sites}x.example/<script>alert(1)</script>?a=<b>", timeout=10)
        assert "<script>" not in hostile.text and "<b>" not in hostile.text  # what the visitor sent is escaped


def test_without_stand_ins_records_are_served_as_stored_and_sites_is_no_route():
    from demo.examples import TUDI_KEY

    with start_in_thread(companies=0, products=0, seed=5, examples=True) as upstream:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        companies = requests.get(f"{upstream.url}/v1/companies", headers=headers, timeout=10).json()["data"]
        tudi = next(company for company in companies if company["plugin_key"] == TUDI_KEY)
        assert tudi["settings"]["systems_estimate_url"] == "https://www.tudimechanical.example/estimate?ref=site"
        assert requests.get(f"{upstream.url}/sites/www.tudimechanical.example/", timeout=10).status_code == 401
