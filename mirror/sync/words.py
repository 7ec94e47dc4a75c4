"""Each company's spelling list (`company_words`, migration 0009), made again by the run that touched its catalog.

When a run finishes (mirror/sync/rebuild.py), every company whose record
changed, or whose products it added, removed, or changed in what a list reads
(`list_inputs`: their texts, whether they are public), gets its list made exactly the
words of its public products again (mirror/catalog/public_products.py: a company turning
private empties its list), in the run's transaction. A word no product holds
any more goes with the product, and a company the run did not touch keeps a
list that was exact when the run that last touched it committed. Reading the
touched companies' products costs what the rebuild of their offer groups
already costs; a question's spelling lookup then reads only the searched
company's own words (mirror/read/words.py).
"""

from __future__ import annotations

import re
from functools import lru_cache

from sqlalchemy import delete, select, tuple_
from sqlalchemy.orm import Session

from mirror.catalog.public_products import any_public_product, is_public_product
from mirror.store import state as st
from mirror.store.models import WORD_LENGTH, Company, CompanyWord, Product
from mirror.sync.bulk import batches, insert_rows, keys_in

# A word of the list: ASCII letters only, as the query step's tokenizer reads a question's words
# (mirror/query/text.py; model numbers and sizes are matched otherwise), 3 letters and more.
# The plain class also reads 200,000 distinct names in about 0.3 s, against 0.8 s for a Unicode one.
WORD = re.compile(rf"[a-z]{{3,{WORD_LENGTH}}}")
LIST_VERSION = f"1:{WORD.pattern}"  # change it with the rule: the next run makes every company's list again


# The product columns a list is made of; with whether the product is public (its company aside), what a run
# compares to know that a written product leaves its company's list as it was (a repricing does).
TEXTS = ("name", "brand", "category_name")
LIST_INPUTS = (*TEXTS, "published", "price_cents")  # the columns `list_inputs` reads


def list_inputs(product) -> tuple:
    """What a product gives its company's list (a row, or anything with the LIST_INPUTS columns):
    equal for two versions of it, the list stays the same."""
    return (*(getattr(product, column) for column in TEXTS), is_public_product(product, company_public=True))


@lru_cache(maxsize=16384)  # a catalog repeats its brands and category names, catalogs repeat product names
def words_of(text: str) -> frozenset[str]:
    """The list's words of a text (lower case)."""
    return frozenset(WORD.findall(text.lower()))


def refresh(session: Session, keys: list[str]) -> None:
    """Make the lists of the companies `keys` exactly the words of their public products (of every company
    when the lists were made by another rule, or not by this release's sync: the stored LIST_VERSION differs)."""
    if st.read_state(session).get(st.WORDS_VERSION) != LIST_VERSION:
        keys = list(session.scalars(select(Company.plugin_key).order_by(Company.plugin_key)))
        st.put(session, st.WORDS_VERSION, LIST_VERSION)
    for some in batches(keys):  # companies per read
        _refresh_some(session, some)


def _refresh_some(session: Session, keys: list[str]) -> None:
    texts = select(Product.plugin_key, *(getattr(Product, column) for column in TEXTS)).distinct()
    # Each company's words as one set (unions of the texts' cached word sets): (company, word) pairs are made
    # only for the words that come or go, not for every word of every product.
    wanted: dict[str, set[str]] = {}
    for row in session.execute(texts.where(keys_in(Product.plugin_key, keys), any_public_product())):
        mine = wanted.setdefault(row.plugin_key, set())
        for text in (getattr(row, column) for column in TEXTS):
            if text:
                mine |= words_of(text)
    listed = select(CompanyWord.plugin_key, CompanyWord.word).where(keys_in(CompanyWord.plugin_key, keys))
    held: dict[str, set[str]] = {}
    for row in session.execute(listed):
        held.setdefault(row.plugin_key, set()).add(row.word)
    gone = sorted((key, word) for key, words in held.items() for word in words - wanted.get(key, set()))
    pair = tuple_(CompanyWord.plugin_key, CompanyWord.word)
    for some in batches(gone):  # (company, word) pairs per delete
        session.execute(delete(CompanyWord).where(pair.in_(some)))
    new = sorted((key, word) for key, words in wanted.items() for word in words - held.get(key, set()))
    insert_rows(session, CompanyWord, [{"plugin_key": key, "word": word} for key, word in new])
