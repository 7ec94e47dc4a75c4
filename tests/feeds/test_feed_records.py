"""The business feed's pages are assembled from stored record bytes, and stay honest.

Each record's serialised bytes are kept with the column values they were
rendered from (feeds/business_feed.py `RecordBytes`); a page is the envelope
around those bytes, from one range read. These tests prove that a page really
is assembled from the stored bytes, that it equals a page rendered from
scratch from the ORM rows, and that a changed row (through the sync, or
behind its back) is rendered again while the others are reused.
"""

from __future__ import annotations

from math import ceil

from sqlalchemy import select, update

from feeds.business_feed import feed_record, make_token
from mirror.store import state as st
from mirror.store.models import Company
from mirror.values.jsontext import dumps
from tests.feeds.test_business_feed import sync, world  # noqa: F401  (the fixture)

PAGE = {"page": 2, "page_size": 5}


def store(app):
    return app.extensions["business_feed_records"]


def pages(app):
    return app.extensions["business_feed_pages"]


def served(client, **params) -> bytes:
    response = client.get("/v1/businesses", query_string=params)
    assert response.status_code == 200
    return response.get_data()


def rendered_from_scratch(mirror, page: int, page_size: int) -> bytes:
    """The page as the feed defines it, rendered from ORM rows with no stored bytes."""
    with mirror.Session() as session:
        clock = st.get_int(st.read_state(session), st.FEED_CLOCK_MS)
        companies = session.scalars(select(Company).where(Company.in_feed).order_by(Company.plugin_key)).all()
        shown = companies[(page - 1) * page_size : page * page_size]
        payload = {
            "checksum": True,
            "page": page,
            "page_size": page_size,
            "total_pages": ceil(len(companies) / page_size),
            "changes_token": make_token(clock),
            "businesses": [feed_record(company, mirror.settings) for company in shown],
        }
    return dumps(payload).encode("utf-8")


def test_a_page_is_assembled_from_stored_bytes_and_equals_a_fresh_rendering(app, client, mirror, world):  # noqa: F811
    first = served(client, **PAGE)
    assert first == rendered_from_scratch(mirror, **PAGE)
    renders = store(app).renders
    assert served(client, **PAGE) == first and store(app).renders == renders  # nothing rendered again
    # The bytes served are the stored ones: tamper with one and the page shows it.
    entries = store(app)._entries
    key = next(k for k in entries if f'"id":"{k}"'.encode() in first)
    row, original = entries[key]
    entries[key] = (row, b'{"stored":"bytes"}')
    pages(app).clear()  # the assembled page is kept too: make the next request assemble it again
    assert b'{"stored":"bytes"}' in served(client, **PAGE)
    entries[key] = (row, original)
    pages(app).clear()
    assert served(client, **PAGE) == first


def test_a_page_is_assembled_once_while_the_rows_it_shows_are_unchanged(app, client, mirror, world):  # noqa: F811
    first = served(client, **PAGE)
    assembled = pages(app).assembled
    assert served(client, **PAGE) == first and pages(app).assembled == assembled
    shown = [k for k in store(app)._entries if f'"id":"{k}"'.encode() in first]
    with mirror.WriterSession() as session:  # behind the sync's back: the feed clock stays as it was
        session.execute(update(Company).where(Company.plugin_key == shown[2]).values(name="Edited In Place"))
        session.commit()
    assert served(client, **PAGE) == first  # what was answered at this state version, until a run commits
    sync(mirror)  # a run that changes nothing: the state version moves, the clock does not
    again = served(client, **PAGE)
    assert b"Edited In Place" in again and pages(app).assembled == assembled + 1
    assert again == rendered_from_scratch(mirror, **PAGE)


def test_a_changed_record_alone_is_rendered_again(app, client, mirror, world):  # noqa: F811
    whole = served(client, page=1, page_size=500)
    ids = list(store(app)._entries)
    target = ids[3]
    renders = store(app).renders
    world.catalog.touch_company(target, name="Renamed Heating Co")
    sync(mirror)
    again = served(client, page=1, page_size=500)
    assert again != whole and b"Renamed Heating Co" in again
    assert store(app).renders == renders + 1
    assert again == rendered_from_scratch(mirror, 1, 500)


def test_a_row_edited_behind_the_syncs_back_is_rendered_from_what_the_table_holds(app, client, mirror, world):  # noqa: F811
    before = served(client, page=1, page_size=500)
    target = next(iter(store(app)._entries))
    with mirror.WriterSession() as session:  # the feed hash and the clock stay as they were
        session.execute(update(Company).where(Company.plugin_key == target).values(name="Edited In Place"))
        session.commit()
    sync(mirror)  # a run that changes nothing: the state version moves, the clock does not
    after = served(client, page=1, page_size=500)
    assert b"Edited In Place" in after and b"Edited In Place" not in before
    assert after == rendered_from_scratch(mirror, 1, 500)
