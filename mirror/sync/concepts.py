"""The kinds of product each company sells (`company_concepts`, migration 0009), tagged by the run that touched it.

A company sells a concept when one of its public products is one, by the
match the catalog search makes (a product's name, model numbers, category
and SKU against the concept's names, none inside a longer name of another
concept: mirror/query/concepts.py `member_match`, mirror/store/fulltext.py). The
business directory then asks "who sells heat pumps" of this table instead of
matching every product of every business per question (5.5 s on 3,000
businesses for one question of four trades).

When a run finishes (mirror/sync/rebuild.py), the companies whose catalog or
record it changed are tagged again, in the run's transaction: one statement
per batch (every concept against the batch's products, about 0.4 s for
60,000 products). The
vocabulary's version is stored beside the tags: a release that changes what a
concept is called retags every company in its first run.
"""

from __future__ import annotations

import hashlib
from functools import cache

from sqlalchemy import String, column, delete, func, literal_column, select, values
from sqlalchemy.orm import Session

from mirror.catalog.public_products import any_public_product
from mirror.query.concepts import CONCEPTS, MemberMatch, member_match
from mirror.store import fulltext as ft
from mirror.store import state as st
from mirror.store.models import Company, CompanyConcept, Product
from mirror.sync.bulk import batches, insert_rows, keys_in, keys_in_set

BATCH = 2000  # companies per tagging statement


@cache
def _members() -> tuple[MemberMatch, ...]:
    return tuple(member_match(concept.slug) for concept in CONCEPTS if concept.names)


@cache
def vocabulary_version() -> str:
    """A digest of how every concept is matched: it changes exactly when a tag could."""
    spelled = "\n".join(f"{m.slug}={ft.pg_concept_query((m,), ft.CONCEPT_WEIGHTS)}" for m in _members())
    return hashlib.md5(spelled.encode(), usedforsecurity=False).hexdigest()[:16]


def refresh(session: Session, keys: list[str]) -> None:
    """Tag the companies `keys` again; every company when the vocabulary changed since the tags were made.

    A run that touched half the companies or more (a first sync, a full one
    after a long outage) tags them all in one statement that lets the
    full-text index find each concept's products (0.4 s for 60,000
    products); a smaller one reads just its companies' products (14 ms for
    one company of 20).
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
    """(company, concept) for every concept a public product of the companies `keys` (None: of all) is."""
    mine = (any_public_product(),) if keys is None else (keys_in_set(Product.plugin_key, keys), any_public_product())
    concepts = values(column("slug", String), column("query", String), name="concepts").data(
        [(m.slug, ft.pg_concept_query((m,), ft.CONCEPT_WEIGHTS)) for m in _members()]
    )
    # Each query parsed once, before the join (parsed in the join condition, it was parsed again for
    # every product the index returned: 1.2 s against 0.4 s for 60,000 products).
    parsed = (
        select(
            concepts.c.slug,
            func.to_tsquery(literal_column(f"'{ft.TS_CONFIG}'::regconfig"), concepts.c.query).label("query"),
        )
        .cte("parsed")
        .prefix_with("MATERIALIZED")
    )
    statement = (
        select(Product.plugin_key, parsed.c.slug)
        .distinct()
        .join(parsed, ft.pg_vector("products").op("@@")(parsed.c.query))
        .where(*mine)
    )
    return sorted(tuple(row) for row in session.execute(statement))
