"""The render cache (mirror/render/cache.py): fast, and never wrong.

Every test drives the real app against a real sync from the demo upstream,
on Postgres: a reader never sees a body older than the commit its
request sees, every ETag is the hash of the exact bytes served, a sync
invalidates exactly the companies it changed, a warm request is one round
trip to the database (one statement, not even BEGIN/ROLLBACK),
and freshness turns stale with the clock even when cached.
"""

from __future__ import annotations

import json
import threading
import time
from contextlib import contextmanager
from datetime import UTC, datetime

import pytest
from sqlalchemy import text

from feeds.pages import page_context
from mirror.render.cache import MAX_DOCUMENT_KINDS, RenderCache, arguments_key
from tests.mirror_helpers import postgres_statements
from tests.surface_helpers import DEFAULT_PRODUCTS, add_company, company_fields, set_product, sync, sync_unrendered
from web.responses import strong_etag

MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json"}
SURFACES = (
    "/companies/{key}/pricing.json",
    "/companies/{key}.jsonld",
    "/companies/{key}/pricing",
    "/companies/{key}/quote",
)


def cache(app) -> RenderCache:
    return app.extensions["render_cache"]


def search(client, key: str, query: str, request_id: int = 1) -> dict:
    """tools/call search_catalog over the app's per-company MCP endpoint."""
    body = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": "search_catalog", "arguments": {"query": query}},
    }
    response = client.post(f"/companies/{key}/mcp", data=json.dumps(body), headers=MCP_HEADERS)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()["result"]


def found_skus(result: dict) -> list[str]:
    return [product["sku"] for product in result["structuredContent"]["results"]]


@contextmanager
def round_trips(mirror):
    """What this thread sends the database while the block runs.

    Every statement and transaction command psycopg sends
    (`postgres_statements`: the gate's lookup bypasses SQLAlchemy, so its
    events would miss it). Background writers (the invocation log, source
    tracking) batch their inserts off the request thread and are not counted.
    """
    seen: list[str] = []
    request_thread = threading.get_ident()

    def note(statement) -> None:
        if threading.get_ident() == request_thread:
            seen.append(str(statement))

    with postgres_statements(note):
        yield seen


def set_filter_price(upstream, key: str, price: str) -> None:
    """Add (or reprice) one accessory of the company upstream: a catalog change a sync must show."""
    set_product(
        upstream,
        key,
        sku="FLT-4",
        name="Filter 4 inch",
        category=DEFAULT_PRODUCTS[5]["category"],
        tier=None,
        price=price,
    )


def price_of(client, key: str, slug: str = "heat-pump-system") -> float:
    """A category's price_low as pricing.json shows it now."""
    categories = client.get(f"/companies/{key}/pricing.json").get_json()["categories"]
    return next(c["price_low"] for c in categories if c["slug"] == slug)


# --- never stale, never mismatched -------------------------------------------------


def test_the_first_request_after_a_sync_shows_its_change_on_every_surface(upstream, mirror, client, app):
    key = add_company(upstream)
    sync(mirror)
    before = {path: client.get(path.format(key=key)) for path in SURFACES}
    assert "Heat pump, good" in json.dumps(search(client, key, "heat pump good"))

    set_product(
        upstream,
        key,
        sku="HP-GOOD",
        name="Heat pump, good (Lennox)",
        category=DEFAULT_PRODUCTS[0]["category"],
        tier="good",
        price="7999.00",
    )
    upstream.catalog.touch_company(key, name="Ridgeline Heating & Air Conditioning")
    sync(mirror)

    for path in SURFACES[:3]:
        after = client.get(path.format(key=key))
        assert after.status_code == 200
        assert after.headers["ETag"] != before[path].headers["ETag"]
        text = after.get_data(as_text=True)
        assert "Ridgeline Heating &" in text or "Ridgeline Heating \\u0026" in text
        assert "Conditioning" in text and ("7999" in text or "7,999" in text)
    assert "Conditioning" in client.get(SURFACES[3].format(key=key)).get_data(as_text=True)
    assert found_skus(search(client, key, "lennox"))[0] == "HP-GOOD"


def test_every_etag_is_the_hash_of_the_exact_body_served(upstream, mirror, client):
    key = add_company(upstream)
    sync(mirror)
    for round_number in range(3):
        for path in SURFACES:
            for _ in range(2):  # cold, then warm
                response = client.get(path.format(key=key))
                assert response.status_code == 200
                assert response.headers["ETag"] == strong_etag(response.get_data())
        set_filter_price(upstream, key, f"{20 + round_number}.50")
        sync(mirror)


def test_304_only_for_the_tag_of_the_current_body(upstream, mirror, client):
    key = add_company(upstream)
    sync(mirror)
    old = client.get(f"/companies/{key}/pricing.json")
    assert (
        client.get(f"/companies/{key}/pricing.json", headers={"If-None-Match": old.headers["ETag"]}).status_code == 304
    )
    set_filter_price(upstream, key, "19.00")
    sync(mirror)
    fresh = client.get(f"/companies/{key}/pricing.json", headers={"If-None-Match": old.headers["ETag"]})
    assert fresh.status_code == 200 and fresh.get_json()["categories"][-1]["price_low"] == 19
    assert fresh.headers["ETag"] == strong_etag(fresh.get_data())


def test_concurrent_readers_never_go_back_in_time_while_syncs_commit(upstream, make_app):
    # Three readers on one client address spend a company budget fast: the limit is not what this test is about.
    app = make_app(RATE_LIMIT_PER_COMPANY="1000000/hour")
    mirror = app.extensions["mirror"]
    key = add_company(upstream)
    sync(mirror)
    errors: list[str] = []
    stop = threading.Event()

    def reader() -> None:
        client, seen = app.test_client(), 0.0
        while not stop.is_set():
            response = client.get(f"/companies/{key}/pricing.json")
            if response.status_code != 200:
                errors.append(f"answered {response.status_code}")
                continue
            if response.headers["ETag"] != strong_etag(response.get_data()):
                errors.append("ETag does not match the body")
            price = next(c["price_low"] for c in response.get_json()["categories"] if c["slug"] == "heat-pump-system")
            if price < seen:
                errors.append(f"went back from {seen} to {price}")
            seen = price

    threads = [threading.Thread(target=reader) for _ in range(3)]
    for thread in threads:
        thread.start()
    try:
        client = app.test_client()
        for step in range(1, 5):
            set_product(
                upstream,
                key,
                sku="HP-GOOD",
                name="Heat pump, good",
                category=DEFAULT_PRODUCTS[0]["category"],
                tier="good",
                price=f"{8500 + step}.00",
            )
            sync(mirror)
            assert price_of(client, key) == 8500 + step  # the commit is visible at once
    finally:
        stop.set()
        for thread in threads:
            thread.join(30)
    assert errors == []


# --- invalidation: exactly the companies a sync changed ---------------------------


def test_a_company_untouched_by_a_sync_keeps_its_entry(upstream, mirror, client, app):
    changed, untouched = add_company(upstream), add_company(upstream)
    sync_unrendered(mirror)
    for key in (changed, untouched):
        for path in SURFACES:
            client.get(path.format(key=key))
    entry = cache(app).peek(untouched)
    renders, built = entry.current.renders, cache(app).views_built

    # A single-company run moves nothing the other company shows.
    set_filter_price(upstream, changed, "21.00")
    assert mirror.sync(company_key=changed, publish=None).status == "success"
    for path in SURFACES:
        client.get(path.format(key=untouched))
    assert cache(app).peek(untouched) is entry and entry.current.renders == renders
    assert cache(app).views_built == built
    client.get(f"/companies/{changed}/pricing")
    assert cache(app).views_built == built + 1  # only the changed company was rebuilt

    # A whole run moves last_synced_at, which every body shows: the bodies are
    # serialised again, but the untouched company's view is not rebuilt.
    synced_before = client.get(f"/companies/{untouched}/pricing.json").get_json()["last_synced_at"]
    set_filter_price(upstream, changed, "22.00")
    sync_unrendered(mirror)
    new_tag = client.get(f"/companies/{untouched}/pricing.json").headers["ETag"]
    response = client.get(f"/companies/{untouched}/pricing.json")
    assert response.get_json()["last_synced_at"] > synced_before
    assert response.headers["ETag"] == new_tag == strong_etag(response.get_data())
    assert cache(app).peek(untouched) is entry
    assert cache(app).views_built == built + 1
    assert price_of(client, changed, "air-filters") == 22
    client.get(f"/companies/{changed}/pricing")
    assert cache(app).views_built == built + 2


def test_each_kind_of_change_invalidates(upstream, mirror, client):
    key = add_company(upstream)
    sync(mirror)
    assert found_skus(search(client, key, "ultraquiet")) == []

    # A description is catalog text only: no price, no offer group moves.
    set_product(
        upstream,
        key,
        sku="FLT-1",
        name="Filter 1 inch",
        category=DEFAULT_PRODUCTS[4]["category"],
        tier=None,
        price="60.05",
        description="UltraQuiet pleated media",
    )
    sync(mirror)
    assert found_skus(search(client, key, "ultraquiet")) == ["FLT-1"]

    # A company record change (the quote switch) changes quote_url everywhere.
    upstream.catalog.touch_company(
        key,
        settings={
            **company_fields()["settings"],
            "channels": {**company_fields()["settings"]["channels"], "quote": False},
        },
    )
    sync(mirror)
    assert client.get(f"/companies/{key}/pricing.json").get_json()["quote_url"] is None
    assert search(client, key, "ultraquiet")["structuredContent"]["quote_url"] is None

    # Removal: the uniform 404, however warm the cache was.
    upstream.catalog.remove_company(key)
    assert mirror.sync(full=True).status == "success"
    for path in SURFACES:
        assert client.get(path.format(key=key)).status_code == 404


def test_a_company_removed_and_added_again_never_gets_its_old_renderings(upstream, mirror, client, app):
    key = add_company(upstream)
    sync(mirror)
    assert found_skus(search(client, key, "reborn")) == []  # now cached
    old_generation = cache(app).peek(key).content[0]
    upstream.catalog.remove_company(key)
    assert mirror.sync(full=True).status == "success"

    # The same record and prices again; only catalog text differs, so only
    # the generation can tell the two incarnations apart.
    products = [dict(p) for p in DEFAULT_PRODUCTS]
    products[4]["description"] = "Reborn pleated media"
    add_company(upstream, products=products, plugin_key=key)
    sync(mirror)
    assert found_skus(search(client, key, "reborn")) == ["FLT-1"]
    assert cache(app).peek(key).content[0] > old_generation


# --- cost of a warm request ---------------------------------------------------------


def test_a_warm_request_asks_the_database_nothing(upstream, mirror, client):
    """The gate state and the render cache answer it (mirror/read/gate.py, mirror/render/cache.py)."""
    key = add_company(upstream)
    sync(mirror)
    requests = [lambda path=path: client.get(path.format(key=key)) for path in SURFACES]
    requests.append(lambda: search(client, key, "heat pump"))
    for send in requests:
        send()  # cold
        with round_trips(mirror) as seen:
            send()
        assert seen == [], seen


def test_a_cold_request_builds_the_view_once(upstream, mirror, client, app):
    key = add_company(upstream)
    sync(mirror)
    built = cache(app).views_built
    for path in SURFACES:
        client.get(path.format(key=key))
    search(client, key, "filter")
    assert cache(app).views_built == built + 1


def test_tools_and_json_ld_are_served_from_the_summary_the_pages_from_the_complete_view(upstream, mirror, client, app):
    """A tool's or the JSON-LD's miss never reads the options (on a 100,000-product catalog they take seconds);
    the first document that lists them reads the complete view once, which then serves every caller."""
    key = add_company(upstream)
    sync_unrendered(mirror)
    built = cache(app).views_built
    search(client, key, "heat pump")
    summary = cache(app).peek(key).base_view
    assert cache(app).views_built == built + 1
    assert not summary.with_options
    assert summary.categories and all(category.options == [] for category in summary.categories)

    page = client.get(f"/companies/{key}/pricing").get_data(as_text=True)
    assert cache(app).views_built == built + 2
    assert "Heat pump, good" in page  # the options are listed
    assert cache(app).peek(key).base_view.with_options
    for path in SURFACES:
        assert client.get(path.format(key=key)).status_code == 200
    search(client, key, "filter")
    assert cache(app).views_built == built + 2


def test_a_summary_view_is_never_published_as_a_document(upstream, mirror, app):
    """pricing.json and the hosted pages render from `view.complete()`, which refuses a summary."""
    from mirror.catalog.public_view import IncompleteView
    from mirror.read.company import load_company_snapshot

    key = add_company(upstream)
    sync(mirror)
    with mirror.Session() as session:
        summary = load_company_snapshot(session, key, options=False).view(mirror.settings)
        complete = load_company_snapshot(session, key, options=True).view(mirror.settings)
    assert complete.complete() is complete
    assert complete.pricing_document()["categories"][0]["options"]
    with pytest.raises(IncompleteView):
        summary.pricing_document()
    with pytest.raises(IncompleteView):
        page_context(summary, mirror.settings, ("", ""), app.jinja_env)


def test_the_summary_read_names_no_product():
    """Its cost does not grow with the catalog: the statement reads the company and its offer groups only."""
    from mirror.read.company import _SNAPSHOTS

    assert "products" in str(_SNAPSHOTS[True])
    assert "products" not in str(_SNAPSHOTS[False])


# --- freshness and bounds -----------------------------------------------------------


def test_freshness_turns_stale_at_the_threshold_even_when_cached(make_app, upstream):
    threshold = 4
    app = make_app(FRESHNESS_THRESHOLD_SECONDS=str(threshold))
    mirror, client = app.extensions["mirror"], app.test_client()
    key = add_company(upstream)
    sync(mirror)
    first = client.get(f"/companies/{key}/pricing.json").get_json()
    assert first["freshness_state"] == "fresh"
    search(client, key, "filter")
    client.get(f"/companies/{key}/pricing")
    built, read = cache(app).views_built, cache(app).documents_read
    synced = datetime.fromisoformat(first["last_synced_at"].replace("Z", "+00:00"))
    time.sleep(max(0.0, (synced - datetime.now(UTC)).total_seconds() + threshold + 0.3))
    response = client.get(f"/companies/{key}/pricing.json")
    assert response.get_json()["freshness_state"] == "stale"
    assert response.headers["ETag"] == strong_etag(response.get_data())
    assert search(client, key, "filter")["structuredContent"]["freshness_state"] == "stale"
    assert "prices may have changed" in client.get(f"/companies/{key}/pricing").get_data(as_text=True)
    assert cache(app).views_built == built  # the view was re-timed, not rebuilt
    assert cache(app).documents_read == read + 2  # the stored pricing.json and page read again, filled in at stale


def test_memory_is_bounded(upstream, mirror, app, client):
    keys = [add_company(upstream) for _ in range(4)]
    sync(mirror)
    small = RenderCache(mirror.settings, strong_etag, documents=mirror.documents, max_companies=2, max_results=3)
    app.extensions["render_cache"] = small
    for key in keys:
        for path in SURFACES:
            assert client.get(path.format(key=key)).status_code == 200
        search(client, key, "filter")
    assert len(small) == 2 and small.peek(keys[0]) is None and small.peek(keys[-1]) is not None
    assert small.documents_read == 4 * len(SURFACES)  # every document served from its stored row...
    assert len(small._documents) == MAX_DOCUMENT_KINDS * 2  # ...and those of two companies held
    for query in ("filter", "heat", "pump", "softener", "inch"):
        search(client, keys[-1], query)
    assert len(small.peek(keys[-1]).current._results) == 3


def test_arguments_key_is_order_independent_but_type_exact():
    assert arguments_key("search_catalog", {"query": "a", "limit": 5}) == arguments_key(
        "search_catalog", {"limit": 5, "query": "a"}
    )
    assert arguments_key("search_catalog", {"limit": 5}) != arguments_key("search_catalog", {"limit": 5.0})
    assert arguments_key("search_catalog", {"query": "x" * 5000}) is None


def test_a_connection_the_server_closed_is_replaced_without_a_ping(upstream, mirror, client):
    key = add_company(upstream)
    sync(mirror)
    assert client.get(f"/companies/{key}/pricing.json").status_code == 200
    assert mirror.engine.pool._pre_ping is False  # no ping round trip
    with mirror.writer_engine.connect() as admin:
        closed = admin.execute(
            text(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        ).scalar_one()
    assert closed >= 1
    time.sleep(0.2)  # the server's goodbye reaches the pooled sockets
    for _ in range(3):
        response = client.get(f"/companies/{key}/pricing.json")
        assert response.status_code == 200 and response.headers["ETag"] == strong_etag(response.get_data())


def test_a_view_many_requests_miss_at_once_is_built_once(upstream, mirror, app, monkeypatch):
    # A large catalog's view takes seconds to build: built by every thread that missed it at once, none
    # finished within the request deadline on a busy machine. One builds; the others wait and take it.
    key = add_company(upstream)
    sync_unrendered(mirror)
    started = threading.Barrier(4)
    # Every build takes a while: long enough for all four requests to miss the cache together.
    monkeypatch.setattr("mirror.read.company.CompanySnapshot.view", _slowed(0.3))
    built = cache(app).views_built
    statuses = []

    def ask():
        client = app.test_client()
        started.wait()
        statuses.append(client.get(f"/companies/{key}/pricing").status_code)

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert statuses == [200] * 4
    assert cache(app).views_built == built + 1


def _slowed(seconds: float):
    from mirror.read.company import CompanySnapshot

    original = CompanySnapshot.view

    def view(self, *args, **kwargs):
        time.sleep(seconds)
        return original(self, *args, **kwargs)

    return view
