"""The documents a sync renders once per change (mirror/render/documents.py): stored, served as bytes, never stale.

Every test drives real syncs from the demo upstream into Postgres and the
real app: a stored document filled in at any moment is byte for byte what the
serialiser writes for the view at that moment; a run renders exactly the
companies whose documents are not current; a failed run leaves the previous
bytes; rows of another format are never served.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from datetime import UTC, datetime, timedelta

from jinja2 import ChoiceLoader, DictLoader
from markupsafe import escape
from sqlalchemy import select, text
from sqlalchemy.exc import DBAPIError

from feeds.pages import PAGE_SLOTS, init_page_documents, page_context
from mirror.read.company import load_company_snapshot, load_company_snapshots
from mirror.render.documents import (
    FORMAT_VERSION,
    JSON_SLOTS,
    JSONLD_DOCUMENT,
    NOT_STORED,
    PRICING_DOCUMENT,
    SLOT,
    DocumentSet,
    Timing,
    json_marked,
    publish,
    slot_marks,
    view_timing,
)
from mirror.render.schema_org import company_graph, script_safe_json
from mirror.store.models import Base, RenderedDocument
from mirror.values.jsontext import dumps
from tests.mirror.render.test_render_cache import cache, round_trips
from tests.mirror_helpers import postgres_statements
from tests.surface_helpers import FILTERS, HEAT_PUMP, add_company, set_product, set_settings, sync
from tests.test_payloads_stable import GOLDEN
from web.responses import strong_etag

# What a request's session sends around its reads (not a read of any table).
TRANSACTION_COMMAND = re.compile(r"\s*(BEGIN|COMMIT|ROLLBACK|SET\b)", re.IGNORECASE)
# The text a contractor may send, all of it data: quotes, markup, a JSON-looking name, non-ASCII, control characters.
HOSTILE_NAME = 'Ridgeline "fresh" </script><b>&amp; \u00e9t\u00e9 \u2014 {"freshness_state":"stale"} \x01\x02'


def serialised(view, settings, app) -> dict[str, bytes]:
    """Each document as its serialiser writes it for `view`, with no template in between (the definition): the
    pages with the text of the view's timing where the stored ones have slots."""
    timing = tuple(str(slot(view_timing(view))) for slot in PAGE_SLOTS)
    return {
        PRICING_DOCUMENT.kind: dumps(view.pricing_document()).encode("utf-8"),
        JSONLD_DOCUMENT.kind: script_safe_json(company_graph(view, settings)).encode("utf-8"),
        **{
            page: app.jinja_env.get_template(page)
            .render(page_context(view, settings, timing, app.jinja_env))
            .encode("utf-8")
            for page in ("pricing.html", "quote.html")
        },
    }


def documents(mirror) -> dict:
    """The app's stored documents by kind: pricing.json and the JSON-LD, and the hosted pages feeds registers."""
    return {document.kind: document for document in mirror.documents}


def offer(upstream, key: str, sku: str, name: str, category: dict, price: str, tier: str | None = None) -> None:
    """One product of `key` upstream, in `category` at `price`."""
    set_product(upstream, key, sku, name=name, category=category, tier=tier, price=price)


NOW = datetime(2026, 12, 7, 16, 0, tzinfo=UTC)


def in_sku_order(snapshot):
    """The snapshot with its categories in slug order, each one's options in SKU order (a statement's order is its
    plan's; the view sorts both)."""
    groups = tuple(
        group._replace(options=sorted(group.options, key=lambda o: o["sku"]) if group.options is not None else None)
        for group in sorted(snapshot.groups, key=lambda group: group.category_slug)
    )
    return snapshot.company, snapshot.last_success_at, groups


def stored_rows(mirror) -> dict[tuple[str, str], tuple]:
    """(company, kind) -> (body, generation, xmin) of every stored document."""
    with mirror.Session() as session:
        rows = session.execute(
            text("SELECT plugin_key, kind, body, generation, xmin::text FROM rendered_documents")
        ).all()
    return {(row[0], row[1]): tuple(row[2:]) for row in rows}


def test_a_stored_document_filled_in_is_the_serialisers_bytes_at_every_moment(upstream, mirror, app):
    # No funnel of its own: it has a quote page. The raw control characters of its name are left out: HTML keeps
    # them as they are, so a page holding the slot mark is not stored (the next test).
    key = add_company(upstream, name=HOSTILE_NAME.replace("\x01", "").replace("\x02", ""))
    odd = {"name": "Odd <b>", "slug": "odd", "kind": "accessory"}
    offer(upstream, key, "ODD-1", 'Odd "stale" \u2028 product', odd, "12.5")
    sync(mirror)
    synced = datetime(2026, 12, 7, 15, 0, 0, 123456, tzinfo=UTC)
    moments = (Timing(None, "unavailable"), Timing(synced, "fresh"), Timing(synced + timedelta(days=3), "stale"))
    rows = stored_rows(mirror)
    with mirror.Session() as session:
        view = load_company_snapshot(session, key, options=True).view(mirror.settings)
    for timing in moments:
        at = view.model_copy(
            update={"last_synced_at": timing.last_synced_at, "freshness_state": timing.freshness_state}
        )
        expected = serialised(at, mirror.settings, app)
        assert sorted(documents(mirror)) == sorted(expected)
        for document in mirror.documents:
            body, _generation, _xmin = rows[(key, document.kind)]
            assert document.stored(body).fill(timing) == expected[document.kind], (document.kind, timing)
            assert document.render(at, mirror.settings) == expected[document.kind]


def test_a_page_whose_text_holds_the_slot_mark_is_served_live(upstream, mirror, app, client):
    """JSON escapes every control character, HTML keeps them: a page of a company whose name holds the slot mark is
    not stored (NOT_STORED, and the company's documents count as current), and every request renders it live."""
    key = add_company(upstream, name=HOSTILE_NAME)
    sync(mirror)
    rows = stored_rows(mirror)
    assert rows[(key, "pricing.html")][0] == rows[(key, "quote.html")][0] == NOT_STORED
    assert rows[(key, "pricing.json")][0].count(SLOT) == 2  # JSON escaped the name's: its two slots are the timing
    page = client.get(f"/companies/{key}/pricing")
    assert page.status_code == 200 and str(escape(HOSTILE_NAME)).encode() in page.get_data()
    assert cache(app).views_built == 1  # rendered live from the view
    sync(mirror)  # nothing changed: nothing rendered again
    assert stored_rows(mirror) == rows


def test_a_company_has_the_documents_it_serves(upstream, mirror, app, client):
    """The quote page of a company with its own funnel (a redirect is served) and the documents of a switched-off
    channel are not stored; a page a company serves is, and a cold request reads only its row."""
    funnel, closed, plain = add_company(upstream), add_company(upstream), add_company(upstream)
    set_settings(upstream, funnel, systems_estimate_url="https://quotes.example/q", systems_estimate_url_verified=True)
    set_settings(upstream, closed, channels={"pricing": False})
    sync(mirror)
    rows = stored_rows(mirror)
    assert rows[(funnel, "quote.html")][0] == NOT_STORED and rows[(funnel, "pricing.html")][0] != NOT_STORED
    assert rows[(closed, "pricing.html")][0] == rows[(closed, "pricing.json")][0] == NOT_STORED  # its channel is off
    assert rows[(closed, "quote.html")][0] != NOT_STORED and rows[(closed, "jsonld")][0] != NOT_STORED
    assert client.get(f"/companies/{funnel}/quote").status_code == 302
    assert client.get(f"/companies/{closed}/pricing").status_code == 404
    for path in (f"/companies/{plain}/pricing", f"/companies/{plain}/quote"):
        cache(app).clear()
        read, built = cache(app).documents_read, cache(app).views_built
        response = client.get(path)
        assert response.status_code == 200 and b"Prices last confirmed <time datetime=" in response.get_data()
        assert cache(app).documents_read == read + 1 and cache(app).views_built == built
    sync(mirror)  # nothing changed: nothing rendered again
    assert stored_rows(mirror) == rows


def test_an_edited_template_makes_every_stored_page_stale(make_app, upstream):
    """The pages' version is a digest of the app's templates: a release that edits one renders every page again
    at its first run, and serves no page of the old templates meanwhile."""
    first = make_app()
    key = add_company(upstream)
    sync(first.extensions["mirror"])
    edited = make_app()
    footer = DictLoader({"_footer.html": "<footer>edited</footer>"})
    edited.jinja_env.loader = ChoiceLoader([footer, edited.jinja_env.loader])
    # Declared again with the edited templates, as the release that edits them declares them at start-up.
    edited.extensions["mirror"].documents = edited.extensions["render_cache"].document_set = DocumentSet()
    init_page_documents(edited)
    mirror, client = edited.extensions["mirror"], edited.test_client()
    assert mirror.documents.format(mirror.settings) != first.extensions["mirror"].documents.format(mirror.settings)
    assert b"<footer>edited</footer>" in client.get(f"/companies/{key}/pricing").get_data()  # live, not the row
    sync(mirror)
    with mirror.Session() as session:
        assert set(session.scalars(select(RenderedDocument.format))) == {mirror.documents.format(mirror.settings)}


def test_a_run_reads_many_companies_as_one_statement_reads_each(upstream, mirror):
    """publish() reads its companies' snapshots together (`load_company_snapshots`): each is the single read's."""
    keys = [add_company(upstream) for _ in range(3)]
    offer(upstream, keys[1], "ONLY-1", "Only here", {"name": "Odd", "slug": "odd", "kind": "accessory"}, "5")
    sync(mirror)
    with mirror.Session() as session:
        for options in (True, False):
            many = load_company_snapshots(session, [*keys, "no-such-company", "not a key!"], options=options)
            assert sorted(many) == sorted(keys)
            for key in keys:
                one = load_company_snapshot(session, key, options=options)
                # json_agg lists a category's options in the order its plan reads them; the view sorts them.
                assert in_sku_order(many[key]) == in_sku_order(one)
                assert many[key].view(mirror.settings, NOW) == one.view(mirror.settings, NOW)


def slotted_json(document: dict):
    """`document` as pricing.json's serialiser writes it, with its timing fields as slots."""
    return json_marked(document, slot_marks(JSON_SLOTS)).slotted(JSON_SLOTS)


def test_slots_are_found_by_a_token_no_text_can_know():
    """A contractor's text equal to a timing value, or to its JSON, is left alone; JSON never holds a raw slot mark."""
    document = {"name": '"fresh"', "note": "fresh", "last_synced_at": None, "freshness_state": "fresh"}
    template = slotted_json(document)
    assert template.text.count(SLOT) == 2
    filled = json.loads(template.fill(Timing(datetime(2026, 1, 2, tzinfo=UTC), "stale")))
    assert filled == {**document, "last_synced_at": "2026-01-02T00:00:00Z", "freshness_state": "stale"}
    plain = {"name": "a\x01b"}  # the slot mark in a contractor's text is escaped by JSON, never a slot
    assert SLOT not in slotted_json(plain).text
    assert slotted_json(plain).fill(Timing(None, "fresh")) == dumps(plain).encode()


def test_a_cold_request_serves_the_stored_bytes_with_an_etag_of_exactly_them(upstream, mirror, app, client):
    key = add_company(upstream)
    sync(mirror)
    for path in (f"/companies/{key}/pricing.json", f"/companies/{key}.jsonld", f"/companies/{key}/pricing"):
        cache(app).clear()
        read, built = cache(app).documents_read, cache(app).views_built
        response = client.get(path)
        assert response.status_code == 200
        assert cache(app).documents_read == read + 1 and cache(app).views_built == built  # no view was built
        assert response.headers["ETag"] == strong_etag(response.get_data())
        again = client.get(path)
        assert again.get_data() == response.get_data() and cache(app).documents_read == read + 1  # held in memory


def test_a_cold_request_reads_the_rendered_row_and_no_catalog_table(upstream, mirror, app, client):
    """A document's request is the gate (in memory), one primary-key read of its stored row, the bytes: no table
    the sync mirrors or derives is named, on every path that serves a stored document."""
    key = add_company(upstream)
    sync(mirror)
    catalog_tables = set(Base.metadata.tables) - {RenderedDocument.__tablename__}
    for path in (f"/companies/{key}/pricing.json", f"/companies/{key}.jsonld", f"/companies/{key}/pricing"):
        client.get(path)  # the pool's connection opened (its set-up statements are the driver's, once)
        cache(app).clear()
        with round_trips(mirror) as seen:
            assert client.get(path).status_code == 200
        reads = [sql for sql in seen if not TRANSACTION_COMMAND.match(sql)]
        assert len(reads) == 1, reads
        named = set(re.findall(r"\b[a-z_]+\b", reads[0].lower()))
        assert RenderedDocument.__tablename__ in named and not named & catalog_tables, reads[0]


def _server_compresses_with_lz4(session) -> bool:
    """Whether the server was built with lz4 (it refuses a column of that method otherwise)."""
    try:
        with session.begin_nested():
            session.execute(text("CREATE TEMP TABLE lz4_probe (body text COMPRESSION lz4)"))
    except DBAPIError:
        return False
    return True


def test_stored_bodies_are_compressed_with_lz4_where_the_server_has_it(upstream, mirror):
    """Migration 0019: lz4 stores a body about three times as fast as pglz and reads it faster; a server without it
    keeps pglz (the embedded one), and the documents are stored all the same."""
    sync(mirror)
    with mirror.Session() as session:
        methods = session.scalars(text("SELECT DISTINCT pg_column_compression(body) FROM rendered_documents")).all()
        expected = "lz4" if _server_compresses_with_lz4(session) else "pglz"
    assert expected in methods and set(methods) <= {expected, None}  # None: a body too small to be compressed


def test_a_run_renders_exactly_the_companies_it_changed(upstream, mirror):
    changed, untouched = add_company(upstream), add_company(upstream)
    sync(mirror)
    before = stored_rows(mirror)
    kinds = sorted(documents(mirror))
    assert {(key, kind) for key in (changed, untouched) for kind in kinds} <= set(before)

    offer(upstream, changed, "FLT-4", "Filter 4 inch", FILTERS, "31.00")
    sync(mirror)
    after = stored_rows(mirror)
    for kind in kinds:
        assert after[(untouched, kind)] == before[(untouched, kind)]  # not even rewritten (same row version)
        assert after[(changed, kind)][2] != before[(changed, kind)][2]
    assert b"31" in PRICING_DOCUMENT.stored(after[(changed, "pricing.json")][0]).fill(Timing(None, "fresh"))
    assert set(after) == set(before)

    upstream.catalog.remove_company(changed)
    assert mirror.sync(full=True).status == "success"
    assert not [k for k in stored_rows(mirror) if k[0] == changed]  # removed with its company


def test_a_failed_run_serves_the_previous_bytes(upstream, mirror, app, client):
    key = add_company(upstream)
    sync(mirror)
    paths = (f"/companies/{key}/pricing.json", f"/companies/{key}.jsonld", f"/companies/{key}/pricing")
    before = {path: client.get(path).get_data() for path in paths}
    rows = stored_rows(mirror)
    offer(upstream, key, "HP-GOOD", "Heat pump, good", HEAT_PUMP, "7777", tier="good")

    def publish_then_fail(session):
        publish(session, mirror.settings, mirror.documents)  # the new bytes are written in the run's transaction...
        raise RuntimeError("the run fails after rendering")  # ...and rolled back with it

    assert mirror.sync(publish=publish_then_fail).status == "failed"
    assert stored_rows(mirror) == rows
    cache(app).clear()
    for path, body in before.items():
        assert client.get(path).get_data() == body
    sync(mirror)
    assert b"7777" in client.get(f"/companies/{key}/pricing.json").get_data()


def test_rows_of_another_format_are_never_served_and_the_next_run_renders_them(make_app, upstream):
    first = make_app()
    key = add_company(upstream)
    sync(first.extensions["mirror"])
    moved = make_app(PUBLIC_BASE_URL="https://mirror.example")  # the same database, another public address
    mirror, client = moved.extensions["mirror"], moved.test_client()
    assert mirror.documents.format(mirror.settings) != first.extensions["mirror"].documents.format(
        first.extensions["mirror"].settings
    )

    live = client.get(f"/companies/{key}/pricing.json")
    assert b"https://mirror.example/companies/" in live.get_data()
    assert cache(moved).documents_read == 0 and cache(moved).views_built == 1  # rendered live, not from the old row
    me, seen = threading.get_ident(), []
    with postgres_statements(lambda sql: threading.get_ident() == me and seen.append(sql)):
        assert client.get(f"/companies/{key}/pricing.json").get_data() == live.get_data()
    assert seen == []  # that no row serves is held until the state moves: not looked for on every request

    sync(mirror)  # nothing changed upstream: the run renders every row of the old format again
    with mirror.Session() as session:
        formats = set(session.scalars(select(RenderedDocument.format)))
    assert formats == {mirror.documents.format(mirror.settings)}
    cache(moved).clear()
    stored = client.get(f"/companies/{key}/pricing.json")
    assert cache(moved).documents_read == 1
    assert json.loads(stored.get_data())["quote_url"] == json.loads(live.get_data())["quote_url"]
    assert json.loads(stored.get_data())["quote_url"].startswith("https://mirror.example/")


def test_the_format_version_moves_with_the_published_documents():
    """A change to the bytes of pricing.json, the JSON-LD or a hosted page (the golden payloads,
    tests/test_payloads_stable.py) must bump FORMAT_VERSION, or every stored row would keep serving the old bytes
    until each company changed. (An edited template moves the pages' version by itself: feeds.pages.templates_version.)"""
    golden = json.loads(GOLDEN.read_text())
    stored = sorted(
        (name, body)
        for name, body in golden.items()
        if name.endswith(("/pricing.json", ".jsonld", "/pricing", "/quote"))
    )
    assert len(stored) == 16
    digest = hashlib.sha256(json.dumps(stored).encode()).hexdigest()[:16]
    recorded = {2: "dc9e800bea2ab6a3"}  # FORMAT_VERSION: the digest of the golden documents it was set for
    assert recorded.get(FORMAT_VERSION) == digest, f"bump FORMAT_VERSION and record {digest} for it here"
