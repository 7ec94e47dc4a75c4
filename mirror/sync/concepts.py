"""The kinds of product each company sells (`company_concepts`, migration 0009), tagged by the run that touched it.

A company sells a concept when one of its public products is one: the kinds
the sync read for it and stored with it (`products.kinds`,
mirror/query/product_reading.py, mirror/sync/facts.py), the same the catalog
search matches a question against. The business directory then asks "who
sells heat pumps" of this table instead of matching every product of every
business per question (5.5 s on 3,000 businesses for one question of four
trades).

When a run finishes (mirror/sync/rebuild.py), the companies whose catalog or
record it changed are tagged again, in the run's transaction, after their
products' kinds: one statement per batch (the distinct kinds of the batch's
public products). Each tag carries the prices of the company's public
products of that kind (range, count, the category of the cheapest; migration
0015): search_businesses asked "heat pump" prices a business that lists them
under "HP & Air Handler" from its tag, one row, never from its products. The
reading rules' version is stored beside the tags, with the tags' own shape: a
release that changes what a product is read as, or what a tag holds, retags
every company in its first run (after reading every product again).
"""

from __future__ import annotations

from sqlalchemy import delete, func, insert, literal_column, select
from sqlalchemy.dialects.postgresql import aggregate_order_by
from sqlalchemy.orm import Session

from mirror.catalog.public_products import any_public_product
from mirror.query.product_reading import rules_version
from mirror.store import state as st
from mirror.store.models import Company, CompanyConcept, Product
from mirror.sync.bulk import batches, keys_in, keys_in_set

BATCH = 2000  # companies per tagging statement
# What a tag holds, beside the reading's rules: a new shape retags every company (an older release's scheduler,
# still running while an upgrade migrates, writes tags without their prices).
TAG_SHAPE = "prices"


def vocabulary_version() -> str:
    """The version of the rules the tags follow: the products' reading's (it changes exactly when a tag could),
    and the tags' shape."""
    return f"{rules_version()}:{TAG_SHAPE}"


def refresh(session: Session, keys: list[str]) -> None:
    """Tag the companies `keys` again; every company when the reading's rules changed since the tags were made.

    A run that touched half the companies or more (a first sync, a full one
    after a long outage) tags them all in one statement; a smaller one reads
    just its companies' products.
    """
    stale = st.read_state(session).get(st.CONCEPTS_VERSION) != vocabulary_version()
    if stale or 2 * len(keys) >= (session.scalar(select(func.count()).select_from(Company)) or 1):
        tag_all(session)
        return
    for chunk in batches(keys, BATCH):
        session.execute(delete(CompanyConcept).where(keys_in(CompanyConcept.plugin_key, chunk)))
        session.execute(_tagging(chunk))


def tag_all(session: Session) -> None:
    """Tag every company again, in one statement, and record the version the tags follow (a migration adding
    to what a tag holds calls this in its own transaction)."""
    st.put(session, st.CONCEPTS_VERSION, vocabulary_version())
    session.execute(delete(CompanyConcept))
    session.execute(_tagging(None))


def _tagging(keys: list[str] | None):
    """INSERT a tag for every kind a public product of the companies `keys` (None: of all) is, with the prices
    of those products: their range, their count, and the category of the cheapest (then by SKU)."""
    mine = (any_public_product(),) if keys is None else (keys_in_set(Product.plugin_key, keys), any_public_product())
    kind = func.unnest(Product.kinds).label("concept")
    each = select(
        Product.plugin_key, kind, Product.price_cents, Product.category_name, Product.category_slug, Product.sku
    ).where(*mine)
    each = each.subquery("each")
    cheapest = (each.c.price_cents, each.c.sku)
    tags = select(
        each.c.plugin_key,
        each.c.concept,
        func.min(each.c.price_cents),
        func.max(each.c.price_cents),
        func.count(),
        func.array_agg(aggregate_order_by(each.c.category_name, *cheapest))[literal_column("1")],
        func.array_agg(aggregate_order_by(each.c.category_slug, *cheapest))[literal_column("1")],
    ).group_by(each.c.plugin_key, each.c.concept)
    columns = ("plugin_key", "concept", "price_low_cents", "price_high_cents", "offer_count", "category_name")
    return insert(CompanyConcept).from_select([*columns, "category_slug"], tags)
