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
public products). The reading rules' version is stored beside the tags: a
release that changes what a product is read as retags every company in its
first run (after reading every product again).
"""

from __future__ import annotations

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from mirror.catalog.public_products import any_public_product
from mirror.query.product_reading import rules_version
from mirror.store import state as st
from mirror.store.models import Company, CompanyConcept, Product
from mirror.sync.bulk import batches, insert_rows, keys_in, keys_in_set

BATCH = 2000  # companies per tagging statement


def vocabulary_version() -> str:
    """The version of the rules the tags follow: the products' reading's (it changes exactly when a tag could)."""
    return rules_version()


def refresh(session: Session, keys: list[str]) -> None:
    """Tag the companies `keys` again; every company when the reading's rules changed since the tags were made.

    A run that touched half the companies or more (a first sync, a full one
    after a long outage) tags them all in one statement; a smaller one reads
    just its companies' products.
    """
    stale = st.read_state(session).get(st.CONCEPTS_VERSION) != vocabulary_version()
    if stale:
        st.put(session, st.CONCEPTS_VERSION, vocabulary_version())
    if stale or 2 * len(keys) >= (session.scalar(select(func.count()).select_from(Company)) or 1):
        session.execute(delete(CompanyConcept))
        _insert(session, _tags(session, None))
        return
    for chunk in batches(keys, BATCH):
        session.execute(delete(CompanyConcept).where(keys_in(CompanyConcept.plugin_key, chunk)))
        _insert(session, _tags(session, chunk))


def _insert(session: Session, tags: list[tuple[str, str]]) -> None:
    insert_rows(session, CompanyConcept, [{"plugin_key": key, "concept": concept} for key, concept in tags])


def _tags(session: Session, keys: list[str] | None) -> list[tuple[str, str]]:
    """(company, concept) for every kind a public product of the companies `keys` (None: of all) is."""
    mine = (any_public_product(),) if keys is None else (keys_in_set(Product.plugin_key, keys), any_public_product())
    kind = func.unnest(Product.kinds).label("concept")
    statement = select(Product.plugin_key, kind).where(*mine).distinct()
    return sorted((row.plugin_key, row.concept) for row in session.execute(statement))
