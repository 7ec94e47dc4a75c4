"""The sync's properties (issue 2, section 3), each proven through a real demo
upstream over HTTP, with faults injected by that upstream."""

from __future__ import annotations

import re
import threading
import time

import pytest
from sqlalchemy import event, func, inspect, select, text

from mirror.store.lock import SyncBusy
from mirror.store.models import Company, Product, SyncRun
from mirror.store.state import (
    LAST_SUCCESS_AT,
    ROWS_SINCE_ANALYZE,
    STATE_VERSION,
    WATERMARK_PRODUCTS,
    get_int,
    read_state,
)
from mirror.sync import rebuild as sync_rebuild
from mirror.sync.apply import SeenProducts
from tests.mirror_helpers import (
    a_product,
    assert_offer_groups_in_step,
    fresh_mirror,
    public_content,
    public_key,
    quick_client,
    snapshot,
)


def _sync(mirror, upstream, **kwargs):
    client_kwargs = kwargs.pop("client_kwargs", {})
    return mirror.sync(client=quick_client(upstream, **client_kwargs), **kwargs)


def _reference_content(upstream, database_url: str) -> dict:
    """What a clean full sync of the upstream's current state gives, on a second database."""
    reference = fresh_mirror(database_url, upstream.url)
    assert _sync(reference, upstream, full=True).status == "success"
    content = public_content(reference)
    reference.dispose()
    return content


def _held_product(mirror, key: str, sku: str):
    with mirror.Session() as session:
        return session.get(Product, (key, sku))


# --- basics ----------------------------------------------------------------------


def test_first_sync_mirrors_every_valid_record(mirror, upstream):
    result = _sync(mirror, upstream)
    assert result.status == "success", result.error
    stats = upstream.catalog.stats()
    with mirror.Session() as session:
        assert session.scalar(select(func.count()).select_from(Company)) == stats["companies"]
        assert session.scalar(select(func.count()).select_from(Product)) == stats["valid_products"]
    assert result.counts.invalid_records == stats["invalid_products"]
    assert_offer_groups_in_step(mirror)


def test_incremental_run_converges_to_a_clean_full_sync(mirror, upstream, other_database_url):
    _sync(mirror, upstream)
    upstream.catalog.mutate(0.2, seed=3, company_fraction=0.3)
    key = public_key(upstream)
    doomed = a_product(upstream, key)["sku"]
    upstream.catalog.delete_product(key, doomed)
    upstream.catalog.add_company(products=5)
    assert _sync(mirror, upstream).status == "success"
    assert _held_product(mirror, key, doomed) is None
    assert public_content(mirror) == _reference_content(upstream, other_database_url)
    assert_offer_groups_in_step(mirror)


# --- all at once or not at all ---------------------------------------------------


def test_readers_see_the_old_state_until_the_run_commits(mirror, upstream):
    _sync(mirror, upstream)
    before = snapshot(mirror)
    upstream.catalog.mutate(0.5, seed=11, company_fraction=0.5)
    # Pause the run in the middle of its product walk, with half the pages applied.
    upstream.faults.add("slow", seconds=1.5, path="/v1/products", nth=3)
    runner = threading.Thread(target=lambda: _sync(mirror, upstream))
    runner.start()
    deadline = time.time() + 10
    while not upstream.faults.fired and time.time() < deadline:
        time.sleep(0.02)
    assert upstream.faults.fired, "the run never reached the paused page"
    during = snapshot(mirror)
    runner.join(30)
    after = snapshot(mirror)
    assert during == before
    assert after != before
    assert_offer_groups_in_step(mirror)


@pytest.mark.parametrize(
    "fault",
    [
        {"kind": "status", "status": 503, "times": None},
        {"kind": "unauthorized"},
        {"kind": "bad_request"},
        {"kind": "cursor_expired", "times": None},
        {"kind": "slow", "seconds": 3, "times": None},
        {"kind": "reset", "times": None},
        {"kind": "truncated", "times": None},
        {"kind": "not_json", "times": None},
    ],
    ids=lambda f: f["kind"],
)
def test_a_failed_run_changes_nothing_and_the_next_run_catches_up(mirror, upstream, other_database_url, fault):
    _sync(mirror, upstream)
    before = snapshot(mirror)
    upstream.catalog.mutate(0.3, seed=5, company_fraction=0.3)
    upstream.faults.add(path="/v1/products", nth=2, **fault)
    failed = _sync(mirror, upstream, client_kwargs={"max_retries": 2, "max_cursor_restarts": 2, "timeout": (1.0, 1.0)})
    assert failed.status == "failed"
    assert upstream.faults.fired
    assert snapshot(mirror) == before  # no row, watermark or last_synced_at moved
    with mirror.Session() as session:
        run = session.get(SyncRun, failed.run_id)
        assert run.status == "failed" and run.error
    upstream.faults.clear()
    assert _sync(mirror, upstream).status == "success"
    assert public_content(mirror) == _reference_content(upstream, other_database_url)


def test_a_crash_between_pages_changes_nothing(mirror, upstream):
    _sync(mirror, upstream)
    before = snapshot(mirror)
    upstream.catalog.mutate(0.3, seed=9, company_fraction=0.3)
    pages = []

    def crash_on_second_page(stage, _n):
        pages.append(stage)
        if len(pages) == 2:
            raise RuntimeError("the process died here")

    result = _sync(mirror, upstream, progress=crash_on_second_page)
    assert result.status == "failed" and "died" in result.error
    assert snapshot(mirror) == before


def test_a_failing_bulk_write_fails_the_run_and_changes_nothing(mirror, upstream, monkeypatch):
    """A batch's bulk insert fails in the database; on Postgres its COPY runs on the writer thread
    while the next batch is parsed, and its error still fails the run."""
    import mirror.sync.bulk as bulk_module

    before = snapshot(mirror)  # empty: this first run inserts every product in bulk
    threads = []
    copy_rows = bulk_module._copy_rows

    def duplicate_a_product(driver, table_name, table, rows):
        threads.append(threading.current_thread().name)
        if table_name == "products":
            rows = rows + rows[:1]  # a genuine error of the database: the primary key, at the COPY's end
        copy_rows(driver, table_name, table, rows)

    monkeypatch.setattr(bulk_module, "_copy_rows", duplicate_a_product)
    result = _sync(mirror, upstream, full=True)
    assert result.status == "failed"
    assert "UniqueViolation" in result.error
    assert set(threads) == {"sync-copy"}
    assert snapshot(mirror) == before
    monkeypatch.undo()
    assert _sync(mirror, upstream, full=True).status == "success"
    assert_offer_groups_in_step(mirror)


# --- transient trouble is retried ------------------------------------------------


@pytest.mark.parametrize(
    "fault",
    [
        {"kind": "status", "status": 500, "times": 2},
        {"kind": "status", "status": 502},
        {"kind": "reset"},
        {"kind": "truncated"},
        {"kind": "short_body"},
        {"kind": "not_json"},
        {"kind": "slow", "seconds": 2.5},
        {"kind": "cursor_expired"},
    ],
    ids=lambda f: f["kind"] + str(f.get("status", "")),
)
def test_transient_failures_are_retried_and_the_run_succeeds(mirror, upstream, other_database_url, fault):
    upstream.faults.add(path="/v1/companies", nth=2, **fault)
    result = _sync(mirror, upstream, client_kwargs={"timeout": (1.0, 1.0)})
    assert result.status == "success", result.error
    assert upstream.faults.fired
    assert public_content(mirror) == _reference_content(upstream, other_database_url)


def test_429_waits_as_told(mirror, upstream):
    slept = []
    upstream.faults.add("rate_limit", retry_after=7, path="/v1/companies", nth=1)
    result = mirror.sync(client=quick_client(upstream, sleep=slept.append))
    assert result.status == "success"
    assert 7 in slept


def test_retries_are_bounded(mirror, upstream):
    upstream.faults.add("status", status=500, path="/v1/companies", nth=1, times=None)
    result = _sync(mirror, upstream, client_kwargs={"max_retries": 3})
    assert result.status == "failed"
    assert upstream.requests.count == 4  # the first try and three retries


def test_401_stops_the_run_at_once(mirror, upstream):
    upstream.faults.add("unauthorized", path="/v1/companies", nth=1, times=None)
    result = _sync(mirror, upstream)
    assert result.status == "failed" and "401" in result.error
    assert upstream.requests.count == 1


# --- idempotence -----------------------------------------------------------------


def test_rerunning_changes_nothing_and_rewrites_no_row(mirror, upstream):
    _sync(mirror, upstream)
    before = snapshot(mirror, include_bookkeeping=False)
    again = _sync(mirror, upstream)
    assert again.counts.companies_written == again.counts.products_written == 0
    assert snapshot(mirror, include_bookkeeping=False) == before
    full = _sync(mirror, upstream, full=True)  # the same pages, all of them
    assert full.counts.companies_written == full.counts.products_written == 0
    assert full.counts.products_removed == full.counts.companies_removed == 0
    assert snapshot(mirror, include_bookkeeping=False) == before


def test_overlap_rereads_are_harmless(make_app, upstream):
    mirror = make_app(SYNC_OVERLAP_SECONDS="3600").extensions["mirror"]
    _sync(mirror, upstream)
    upstream.catalog.mutate(0.1, seed=2)
    _sync(mirror, upstream)
    before = snapshot(mirror, include_bookkeeping=False)
    rerun = _sync(mirror, upstream)
    assert rerun.counts.products_seen > 0  # the overlap re-read recent changes
    assert rerun.counts.products_written == 0
    assert snapshot(mirror, include_bookkeeping=False) == before


# --- cost follows the changes ----------------------------------------------------


def test_incremental_cost_grows_with_changes_not_mirror_size(database_url, other_database_url):
    from demo.server import start_in_thread

    costs = []
    for size, url in ((6, database_url), (30, other_database_url)):
        upstream = start_in_thread(companies=size, products=20, seed=4, messiness=0)
        try:
            mirror = fresh_mirror(url, upstream.url)
            _sync(mirror, upstream, client_kwargs={"page_limit": 50})
            for key in upstream.catalog.company_keys()[:3]:
                upstream.catalog.set_product(key, a_product(upstream, key)["sku"], price="123.45")
            upstream.requests.clear()
            result = _sync(mirror, upstream, client_kwargs={"page_limit": 50})
            costs.append(
                (
                    upstream.requests.count,
                    result.counts.products_seen,
                    result.counts.products_written,
                    result.counts.offer_groups_rebuilt > 0,
                )
            )
            mirror.dispose()
        finally:
            upstream.stop()
    small, big = costs
    assert small[:3] == big[:3] == (2, 3, 3)


# --- records ---------------------------------------------------------------------


def test_an_invalid_record_never_erases_what_is_held(mirror, upstream):
    _sync(mirror, upstream)
    key = public_key(upstream)
    product = a_product(upstream, key)
    held = _held_product(mirror, key, product["sku"])
    upstream.catalog.set_product(key, product["sku"], price="abc")
    incremental = _sync(mirror, upstream)
    assert incremental.status == "success" and incremental.counts.invalid_records >= 1
    assert _held_product(mirror, key, product["sku"]).price_cents == held.price_cents
    full = _sync(mirror, upstream, full=True)
    assert full.status == "success"
    assert _held_product(mirror, key, product["sku"]).price_cents == held.price_cents


def test_malformed_records_in_a_page_are_skipped_and_counted(mirror, upstream, other_database_url):
    upstream.faults.add("malformed_records", path="/v1/companies", nth=1)
    result = _sync(mirror, upstream)
    assert result.status == "success"
    assert result.counts.invalid_records >= 3
    assert public_content(mirror) == _reference_content(upstream, other_database_url)


def test_a_company_new_to_the_mirror_gets_its_whole_catalog(mirror, upstream):
    _sync(mirror, upstream)
    old = "2020-01-01T00:00:00Z"
    added = upstream.catalog.add_company(products=6)
    for product in upstream.catalog.products_of(added["plugin_key"]):
        upstream.catalog.set_product(added["plugin_key"], product["sku"], updated_at=old)
    _sync(mirror, upstream)
    with mirror.Session() as session:
        count = session.scalar(
            select(func.count()).select_from(Product).where(Product.plugin_key == added["plugin_key"])
        )
    assert count == len([p for p in upstream.catalog.products_of(added["plugin_key"]) if "price" in p]) > 0


def test_products_of_unknown_companies_are_skipped_and_counted(mirror, upstream):
    _sync(mirror, upstream)
    added = upstream.catalog.add_company(products=2)
    key = added["plugin_key"]
    # The company record predates the watermark, so only its products show up.
    upstream.catalog.touch_company(key, updated_at="2020-01-01T00:00:00Z")
    for product in upstream.catalog.products_of(key):
        upstream.catalog.set_product(key, product["sku"], name="fresh")
    result = _sync(mirror, upstream)
    assert result.counts.orphan_products == 2
    with mirror.Session() as session:
        assert session.get(Company, key) is None


def test_full_sync_removes_what_upstream_no_longer_has(mirror, upstream):
    _sync(mirror, upstream)
    gone = upstream.catalog.company_keys()[0]
    upstream.catalog.remove_company(gone)
    assert _sync(mirror, upstream).counts.companies_removed == 0  # an incremental run cannot know
    result = _sync(mirror, upstream, full=True)
    assert result.counts.companies_removed == 1
    with mirror.Session() as session:
        assert session.get(Company, gone) is None
        assert session.scalar(select(func.count()).select_from(Product).where(Product.plugin_key == gone)) == 0


def _hold_a_stray_product(mirror, key: str) -> str:
    """A product the mirror holds and the upstream never lists again (as if its tombstone were missed): a copy
    of one of the company's rows under a new SKU."""
    stray = f"STRAY-{key[:8]}"
    columns = [c.name for c in Product.__table__.columns if not c.computed and c.name != "sku"]
    listed = ", ".join(columns)
    with mirror.writer_engine.begin() as connection:
        connection.execute(
            text(
                f"INSERT INTO products (sku, {listed}) SELECT :stray, {listed} FROM products"
                " WHERE plugin_key = :key ORDER BY sku LIMIT 1"
            ),
            {"stray": stray, "key": key},
        )
    return stray


def test_a_reconciling_walk_drops_every_product_it_did_not_return(mirror, upstream):
    """The full walk, and a company's own sync for that company only (the keys they saw are kept by the
    database: SeenProducts)."""
    _sync(mirror, upstream)
    first, second = upstream.catalog.company_keys()[:2]
    strays = {key: _hold_a_stray_product(mirror, key) for key in (first, second)}
    assert _sync(mirror, upstream).counts.products_removed == 0  # an incremental run cannot know
    result = _sync(mirror, upstream, company_key=first)
    assert result.status == "success" and result.counts.products_removed == 1
    assert _held_product(mirror, first, strays[first]) is None
    assert _held_product(mirror, second, strays[second]) is not None
    result = _sync(mirror, upstream, full=True)
    assert result.status == "success" and result.counts.products_removed == 1
    assert _held_product(mirror, second, strays[second]) is None
    stats = upstream.catalog.stats()
    with mirror.Session() as session:
        assert session.scalar(select(func.count()).select_from(Product)) == stats["valid_products"]
    assert_offer_groups_in_step(mirror)


def test_single_company_sync_touches_only_that_company(mirror, upstream):
    _sync(mirror, upstream)
    first, second = upstream.catalog.company_keys()[:2]
    for key in (first, second):
        upstream.catalog.set_product(key, a_product(upstream, key)["sku"], price="77.00")
    before = snapshot(mirror)
    result = _sync(mirror, upstream, company_key=first)
    assert result.status == "success"
    after = snapshot(mirror)
    moving = {STATE_VERSION, ROWS_SINCE_ANALYZE}  # with every commit; with every row written
    assert {k: v for k, v in after["state"].items() if k not in moving} == {
        k: v for k, v in before["state"].items() if k not in moving
    }  # no watermark moved
    assert len(after["products"]) == len(before["products"])
    changed = {a["plugin_key"] for a, b in zip(after["products"], before["products"]) if a != b}
    assert changed == {first}


# --- one sync at a time ------------------------------------------------------------


def test_a_second_sync_is_refused_while_one_runs(mirror, upstream):
    upstream.faults.add("slow", seconds=1.5, path="/v1/companies", nth=1)
    runner = threading.Thread(target=lambda: _sync(mirror, upstream))
    runner.start()
    time.sleep(0.5)
    with pytest.raises(SyncBusy):
        _sync(mirror, upstream)
    runner.join(20)


def test_watermarks_move_only_with_a_successful_run(mirror, upstream):
    _sync(mirror, upstream)
    first = snapshot(mirror)["state"]
    upstream.faults.add("status", status=500, path="/v1/products", nth=1, times=None)
    _sync(mirror, upstream, client_kwargs={"max_retries": 1})
    assert snapshot(mirror)["state"] == first
    upstream.faults.clear()
    time.sleep(1.1)
    _sync(mirror, upstream)
    second = snapshot(mirror)["state"]
    assert second[LAST_SUCCESS_AT] > first[LAST_SUCCESS_AT]
    assert second[WATERMARK_PRODUCTS] > first[WATERMARK_PRODUCTS]


def test_no_private_field_reaches_the_database(mirror, upstream):
    key = public_key(upstream)
    canary = "CANARY-7f3a"
    upstream.catalog.touch_company(key, internal_id=987654321, owner={"name": canary, "email": f"{canary}@x.example"})
    sku = a_product(upstream, key)["sku"]
    upstream.catalog.set_product(key, sku, cost="4242.42", dealer_notes=canary)
    _sync(mirror, upstream)
    columns = {
        c["name"]
        for table in inspect(mirror.engine).get_table_names()
        for c in inspect(mirror.engine).get_columns(table)
    }
    assert not columns & {"internal_id", "owner", "cost", "dealer_notes"}
    dump = repr(snapshot(mirror))
    assert canary not in dump and "987654321" not in dump and "424242" not in dump


def test_an_incremental_rebuild_of_some_categories_equals_a_whole_one(mirror, upstream):
    """Only the groups a run wrote products into are summarised again; the rest are kept as stored."""
    from mirror.store.models import OfferGroup

    _sync(mirror, upstream)
    key = public_key(upstream)
    products = [p for p in upstream.catalog.products_of(key) if p.get("published") is True and "price" in p]
    moved, joined, hidden, cheap = products[:4]
    other = next(p for p in products if p["category"]["slug"] != joined["category"]["slug"])
    upstream.catalog.set_product(
        key, moved["sku"], category={"name": "Brand-new Things", "slug": "brand-new", "kind": "system"}
    )
    upstream.catalog.set_product(key, joined["sku"], category=other["category"])
    upstream.catalog.set_product(key, hidden["sku"], published=False)
    upstream.catalog.set_product(key, cheap["sku"], price="0.50")
    upstream.catalog.set_product(
        key,
        "zz-New-SKU",
        name="A new one",
        category=cheap["category"],
        price="0.50",
        published=True,
        image_url="https://images.example/a.jpg",
    )

    def groups(session):
        return {(g.plugin_key, g.category_slug): g.price_low_cents for g in session.scalars(select(OfferGroup))}

    with mirror.Session() as session:
        before = groups(session)
    result = _sync(mirror, upstream)
    assert result.status == "success" and result.counts.products_written == 5
    assert_offer_groups_in_step(mirror)  # equal to build_offer_groups over the stored products
    with mirror.Session() as session:
        after = groups(session)
    assert (key, "brand-new") in after and after[(key, cheap["category"]["slug"])] == 50
    assert {k: v for k, v in after.items() if k[0] != key} == {k: v for k, v in before.items() if k[0] != key}


def test_the_content_version_is_the_stable_hash_of_the_pricing_content():
    """mirror.catalog.offers.content_version hashes with orjson: the same bytes, so the same version, as
    stable_hash's json.dumps for every string (control characters, quotes, non-ASCII, line separators)
    and integer, and stable_hash itself for what orjson refuses."""
    from mirror.catalog.offers import content_version, stable_hash

    names = ["Plain", 'Quote " and \\ backslash', "tab\tnew\nline\r\x00\x1f\x7f", "é € 中 😀", "\u2028\u2029\ufeff"]
    for name in names:
        groups = [
            {
                "plugin_key": "k",
                "category_slug": name,
                "category_name": name,
                "price_low_cents": 10**15,
                "image_url": None,
            },
            {"plugin_key": "k", "category_slug": "b", "category_name": "B", "price_low_cents": -1, "image_url": name},
        ]
        content = {
            "currency": "USD",
            "price_description": name,
            "groups": [{k: v for k, v in g.items() if k != "plugin_key"} for g in groups],
        }
        assert content_version("USD", name, groups) == stable_hash(content, 16)
    huge = [{"plugin_key": "k", "category_slug": "x", "price_low_cents": 2**70}]
    assert content_version("USD", None, huge) == stable_hash(
        {"currency": "USD", "price_description": None, "groups": [{"category_slug": "x", "price_low_cents": 2**70}]}, 16
    )


def test_a_groups_image_is_the_cheapest_products_by_sku_then_url_in_code_point_order(mirror, upstream):
    """The summary's image (mirror.catalog.offers, both spellings): the least (price, SKU, URL) of the products with
    an image; equal prices fall to the SKU compared by code point ("B" before "a"), products without an
    image (none or empty) never count, and prices compare as numbers (900 before 1000)."""
    from mirror.store.models import OfferGroup

    key = public_key(upstream)
    category = {"name": "Image Test", "slug": "image-test", "kind": "accessory"}
    products = {  # sku: (price, image_url)
        "a-cheap": ("9.00", "https://images.example/a-cheap.jpg"),
        "B-cheap": ("9.00", "https://images.example/B-cheap.jpg"),
        "0-no-image": ("1.00", None),
        "1-empty-image": ("1.00", ""),
        "ten": ("10.00", "https://images.example/ten.jpg"),
    }
    for sku, (price, image) in products.items():
        upstream.catalog.set_product(
            key, sku, name=sku, category=category, price=price, published=True, image_url=image
        )
    assert _sync(mirror, upstream).status == "success"

    def image():
        with mirror.Session() as session:
            return session.get(OfferGroup, (key, "image-test")).image_url

    assert image() == "https://images.example/B-cheap.jpg"
    assert_offer_groups_in_step(mirror)
    upstream.catalog.set_product(key, "B-cheap", price="10.00")  # now a-cheap is alone at 9.00
    upstream.catalog.set_product(key, "ten", price="0.90")  # 90 cents: cheaper as a number, not as text
    assert _sync(mirror, upstream).status == "success"
    assert image() == "https://images.example/ten.jpg"
    assert_offer_groups_in_step(mirror)


def test_only_the_groups_that_changed_are_written_and_versioned(mirror, upstream):
    """A product written (a rename: the group's summary stays) rewrites its own group alone, for its
    options digest (what the page and pricing.json list moved), with the content version and the
    generation; a price that moves the group's summary does the same; no other group is written."""
    from mirror.store.models import OfferGroup

    _sync(mirror, upstream)
    key = public_key(upstream)
    product = a_product(upstream, key)
    slug = product["category"]["slug"]

    def state():
        with mirror.Session() as session:
            company = session.get(Company, key)
            groups = {
                (g.plugin_key, g.category_slug): (g.price_low_cents, g.offer_count, g.options_digest)
                for g in session.scalars(select(OfferGroup))
            }
            return company.content_version, company.generation, groups

    version, generation, groups = state()
    upstream.catalog.set_product(key, product["sku"], name=product["name"] + " (renamed)")
    renamed = _sync(mirror, upstream)
    assert renamed.counts.products_written == 1 and renamed.counts.offer_groups_rebuilt == 1
    renamed_version, renamed_generation, renamed_groups = state()
    assert renamed_version != version and renamed_generation > generation
    assert renamed_groups[(key, slug)][:2] == groups[(key, slug)][:2]  # the summary as it was
    assert renamed_groups[(key, slug)][2] != groups[(key, slug)][2]  # the options digest moved
    assert {k: v for k, v in renamed_groups.items() if k != (key, slug)} == {
        k: v for k, v in groups.items() if k != (key, slug)
    }
    assert _held_product(mirror, key, product["sku"]).name.endswith("(renamed)")
    assert_offer_groups_in_step(mirror)

    upstream.catalog.set_product(key, product["sku"], price="0.01")
    repriced = _sync(mirror, upstream)
    assert repriced.counts.products_written == 1 and repriced.counts.offer_groups_rebuilt == 1
    new_version, _, new_groups = state()
    assert new_version not in (version, renamed_version) and new_groups[(key, slug)][0] == 1
    assert {k: v for k, v in new_groups.items() if k != (key, slug)} == {
        k: v for k, v in groups.items() if k != (key, slug)
    }
    assert_offer_groups_in_step(mirror)

    for item in upstream.catalog.products_of(key):  # the whole category leaves: its group is deleted
        if item.get("category", {}).get("slug") == slug:
            upstream.catalog.set_product(key, item["sku"], published=False)
    emptied = _sync(mirror, upstream)
    assert emptied.counts.products_written > 0 and emptied.counts.offer_groups_rebuilt == 0
    last_version, _, last_groups = state()
    assert (key, slug) not in last_groups and last_version not in (version, renamed_version, new_version)
    assert {k: v for k, v in last_groups.items() if k != (key, slug)} == {
        k: v for k, v in groups.items() if k != (key, slug)
    }
    assert_offer_groups_in_step(mirror)


def test_summarising_some_categories_reads_only_their_products(mirror, upstream):
    """The offer-group summary of (company, category) pairs finds the pairs' products by index: its cost
    follows the categories a run touched, not the number of products held (migration 0005)."""
    from mirror.catalog.offers import changed_offer_groups_query

    _sync(mirror, upstream)
    key = public_key(upstream)
    pairs = sorted({(key, p["category"]["slug"]) for p in upstream.catalog.products_of(key) if "category" in p})[:2]
    compiled = changed_offer_groups_query([], pairs).compile(
        dialect=mirror.engine.dialect, compile_kwargs={"render_postcompile": True}
    )
    params = compiled.params
    with mirror.engine.connect() as connection:
        connection = connection.execution_options(isolation_level="AUTOCOMMIT")
        # The table and statistics of this test's own rows: the per-test reset empties the tables by DELETE,
        # which leaves earlier tests' dead rows and counts behind, and those can make the key's primary index
        # look as cheap as the pairs' (VACUUM runs outside a transaction).
        connection.exec_driver_sql("VACUUM ANALYZE products")
        # The demo catalog is small enough for a scan to be cheapest:
        # rule scans out, and see whether the index can answer at all.
        connection.exec_driver_sql("SET enable_seqscan = off")
        plan = [row[0] for row in connection.exec_driver_sql(f"EXPLAIN {compiled}", params)]
        on_products = set(connection.exec_driver_sql("SELECT indexname FROM pg_indexes WHERE tablename = 'products'"))
    # The indexes the products are read by: of every index the plan names (an index scan on its own line, a
    # bitmap heap scan on its child's "Bitmap Index Scan on ..."), those of the products table (a bitmap scan
    # of the companies' key may sit beside them, depending on the server's version and statistics).
    named = {found.group(1) for found in map(_PLAN_INDEX.search, plan) if found}
    used = named & {row[0] for row in on_products}
    assert used == {"ix_products_plugin_key_category_slug"} and not any("Seq Scan on products" in p for p in plan), plan


_PLAN_INDEX = re.compile(r"(?:Index Scan using|Index Only Scan using|Bitmap Index Scan on) (\w+)")


def test_repriced_products_are_updated_in_place(mirror, upstream):
    """Migrations 0006 and 0018: pages keep room, so a repriced product's new version stays on its page (the
    table does not grow with every run)."""
    _sync(mirror, upstream)
    key = public_key(upstream)
    skus = [p["sku"] for p in upstream.catalog.products_of(key) if p.get("published") is True and "price" in p]
    place = text("SELECT sku, (ctid::text::point)[0] FROM products WHERE plugin_key = :key")

    def places():
        with mirror.engine.connect() as connection:
            return dict(connection.execute(place, {"key": key}).all())

    before = places()
    skus = [sku for sku in skus if sku in before]  # some demo records are invalid, so never held
    assert len(skus) >= 10
    for sku in skus:
        upstream.catalog.set_product(key, sku, price="4321.00")
    result = _sync(mirror, upstream)
    assert result.status == "success" and result.counts.products_written == len(skus)
    after = places()
    kept = [sku for sku in skus if after[sku] == before[sku]]
    assert len(kept) >= len(skus) / 2, (len(kept), len(skus))  # room for a new version on most pages
    assert_offer_groups_in_step(mirror)


def test_small_runs_add_up_to_an_analyze(mirror, upstream, monkeypatch):
    """Where autovacuum is off or behind, the statistics still follow the catalog: the rows of the runs since
    the last ANALYZE are counted, and the run that brings them to the threshold analyzes."""
    monkeypatch.setattr(sync_rebuild, "ANALYZE_AFTER_ROWS", 10**9)
    first = _sync(mirror, upstream)

    def pending() -> int:
        with mirror.Session() as session:
            return get_int(read_state(session), ROWS_SINCE_ANALYZE)

    counts = first.counts
    assert pending() == counts.products_written + counts.companies_written > 0
    key = public_key(upstream)
    skus = [p["sku"] for p in upstream.catalog.products_of(key) if p.get("published") is True and "price" in p][:3]
    monkeypatch.setattr(sync_rebuild, "ANALYZE_AFTER_ROWS", pending() + len(skus))
    for sku in skus:
        upstream.catalog.set_product(key, sku, price="4321.00")
    statements: list[str] = []

    def capture(_conn, _cursor, statement, *_args):
        statements.append(statement)

    event.listen(mirror.writer_engine, "before_cursor_execute", capture)
    try:
        assert _sync(mirror, upstream).counts.products_written == len(skus)
    finally:
        event.remove(mirror.writer_engine, "before_cursor_execute", capture)
    assert "ANALYZE companies, products, offer_groups" in statements
    assert pending() == 0


@pytest.mark.parametrize("threshold", [1, 10**9], ids=["large-run", "small-run"])
def test_a_large_run_leaves_the_planner_statistics_current(mirror, upstream, monkeypatch, threshold):
    # Without statistics the planner took a company's 20 products for ~440 and
    # answered its searches from the whole full-text index (mirror/sync/rebuild.py).
    monkeypatch.setattr(sync_rebuild, "ANALYZE_AFTER_ROWS", threshold)
    statements: list[str] = []

    def capture(_conn, _cursor, statement, *_args):
        statements.append(statement)

    event.listen(mirror.writer_engine, "before_cursor_execute", capture)
    try:
        assert mirror.sync(full=True).status == "success"
    finally:
        event.remove(mirror.writer_engine, "before_cursor_execute", capture)
    # The catalog's tables (a reconciling walk also sizes its own temporary table of the keys it saw).
    analysed = [s for s in statements if s.lstrip().upper().startswith("ANALYZE") and SeenProducts.TABLE not in s]
    if threshold > 1:
        assert analysed == []  # a small run adds its rows to the count (below)
        return
    assert analysed == ["ANALYZE companies, products, offer_groups"]
    with mirror.engine.connect() as connection:
        found = connection.execute(
            text("SELECT n_distinct FROM pg_stats WHERE tablename = 'products' AND attname = 'plugin_key'")
        ).all()
    assert len(found) == 1  # committed with the run
