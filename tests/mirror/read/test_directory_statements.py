"""The directory's search (mirror/read/businesses.py) is one statement per question, built once per shape.

A question's page of businesses, with each one's asked category and that
category's range across all the matches, is read in one autocommit statement
(no BEGIN, no ORM load, no second read for the groups or the range), and two questions of the same shape (as many concepts, trades and
keywords; a ZIP or not; a category or not) send the same SQL text with
different values, so SQLAlchemy builds and compiles it once.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from mirror.read.businesses import search_feed_businesses
from mirror.store.models import Company, OfferGroup
from tests.mirror.render.test_render_cache import round_trips
from tests.surface_helpers import sync


def _search(mirror, **asked):
    with Session(mirror.engine) as session, round_trips(mirror) as statements:
        found = search_feed_businesses(session, **asked)
    return found, statements


def _a_feed_business(mirror) -> tuple[str, str, str]:
    """(a ZIP, a trade, a category name) of a business in the feed."""
    with Session(mirror.engine) as session:
        company = session.scalars(select(Company).where(Company.in_feed).order_by(Company.plugin_key)).first()
        group = session.scalars(select(OfferGroup).where(OfferGroup.plugin_key == company.plugin_key)).first()
        return company.service_postal_codes[0], company.trades[0], group.category_name


def test_a_question_is_one_statement_with_its_page_and_categories(upstream, mirror):
    sync(mirror)
    postal_code, trade, category = _a_feed_business(mirror)
    _search(mirror, query="hvac")  # the pool's first connection says hello once: not a question's cost
    found, statements = _search(mirror, query=f"{trade} near {postal_code}", category=category.upper(), limit=3)
    assert found.total > 0 and found.matches
    assert found.spread is not None  # a category asked: its spread across every match, in the same statement
    assert len(statements) == 1, statements
    assert not any(s.strip().upper().startswith(("BEGIN", "ROLLBACK", "COMMIT")) for s in statements)
    with_group = [m for m in found.matches if m.group is not None]
    assert with_group and all(m.group.category_name == category for m in with_group)
    assert all(m.category_count >= 1 for m in found.matches)


def test_questions_of_one_shape_send_one_sql_text(upstream, mirror):
    sync(mirror)
    _search(mirror, query="hvac")  # the pool's first connection says hello once: not a question's cost
    first, first_sql = _search(mirror, query="plumbing hvac near 63301")
    second, second_sql = _search(mirror, query="roofing electrical near 63376")
    _, other_sql = _search(mirror, query="plumbing near 63301")
    assert len(first_sql) == len(second_sql) == len(other_sql) == 1
    assert first_sql == second_sql  # two trades and a ZIP: the same text, other values
    assert other_sql != first_sql  # one trade: another shape
    assert first.postal_code == "63301" and second.postal_code == "63376"
