"""The spelling list (`search_words`, migration 0007), kept by each run in its own transaction.

A run notes the names, brands and category names of the public products it
writes (`note_product`); when it finishes (mirror/sync/rebuild.py) their
words go into the list, and a full run also removes the words no public
product holds any more. So a misspelling is only ever corrected to a word a
public product has had; the catalog search checks each candidate against
the public products again when it reads (mirror/read/words.py), so a word
whose last product went away between full runs is never offered.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from sqlalchemy import delete, not_
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from mirror.fulltext import held_by_a_public_product
from mirror.models import WORD_LENGTH, SearchWord
from mirror.sync.runstate import RunState

# A word of the list: letters only (model numbers and sizes are matched otherwise), 3 letters and more.
WORD = re.compile(rf"[^\W\d_]{{3,{WORD_LENGTH}}}")
INSERT_BATCH = 500


def words_of(texts: Iterable[str | None]) -> set[str]:
    """The list's words of some texts (lower case)."""
    return {word for text in texts if text for word in WORD.findall(text.lower())}


def note_product(run: RunState, values: dict) -> None:
    """Note a written product's texts, when it is public (its company's state is checked when the words are read)."""
    if values.get("published") is True and (values.get("price_cents") or 0) > 0:
        texts = run.catalog_texts
        texts.add(values["name"])
        texts.add(values.get("brand"))
        texts.add(values["category_name"])


def refresh(session: Session, run: RunState) -> None:
    """Add the words of the products this run wrote; a full run then drops the words no public product holds."""
    add_words(session, words_of(run.catalog_texts))
    if run.mode == "full":
        session.execute(delete(SearchWord).where(not_(held_by_a_public_product(_dialect(session), SearchWord.word))))


def add_words(session: Session, words: set[str]) -> None:
    """Insert the words the list does not hold yet."""
    ordered = sorted(words)
    insert = postgresql.insert if _dialect(session) == "postgresql" else sqlite.insert
    for start in range(0, len(ordered), INSERT_BATCH):
        rows = [{"word": word} for word in ordered[start : start + INSERT_BATCH]]
        session.execute(insert(SearchWord).on_conflict_do_nothing(index_elements=["word"]), rows)


def _dialect(session: Session) -> str:
    return session.get_bind().dialect.name
