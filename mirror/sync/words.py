"""The spelling list (`search_words`, migration 0007), kept by each run in its own transaction.

A run notes the names, brands and category names of published, priced
products (`note_product`): an incremental run those it writes, a full run
every one it walks. When it finishes (mirror/sync/rebuild.py), an
incremental run adds their words to the list; a full run makes the list
exactly their words, so a word no product holds any more goes. Between full
runs a word may outlive its product: the catalog search only ever offers a
word the searched company's public products hold, checked when it reads
(mirror/read/words.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from sqlalchemy import delete, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from mirror.models import WORD_LENGTH, SearchWord
from mirror.sync.runstate import RunState

# A word of the list: ASCII letters only, as the query step's tokenizer reads a question's words
# (mirror/query/text.py; model numbers and sizes are matched otherwise), 3 letters and more.
# The plain class also reads 200,000 distinct names in about 0.3 s, against 0.8 s for a Unicode one.
WORD = re.compile(rf"[a-z]{{3,{WORD_LENGTH}}}")
BATCH = 500


def words_of(texts: Iterable[str | None]) -> set[str]:
    """The list's words of some texts (lower case)."""
    return {word for text in texts if text for word in WORD.findall(text.lower())}


def note_product(run: RunState, values: dict) -> None:
    """Note a product's texts when it is published and priced (its company's state is checked when read)."""
    if values.get("published") is True and (values.get("price_cents") or 0) > 0:
        texts = run.catalog_texts
        texts.add(values["name"])
        texts.add(values.get("brand"))
        texts.add(values["category_name"])


def refresh(session: Session, run: RunState) -> None:
    """Add the words of the products this run wrote; a full run makes the list the words of all it walked."""
    words = words_of(run.catalog_texts)
    if run.mode == "full":
        held = set(session.scalars(select(SearchWord.word)))
        gone = sorted(held - words)
        for start in range(0, len(gone), BATCH):
            session.execute(delete(SearchWord).where(SearchWord.word.in_(gone[start : start + BATCH])))
        words -= held
    add_words(session, words)


def add_words(session: Session, words: set[str]) -> None:
    """Insert the words the list does not hold yet."""
    ordered = sorted(words)
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    for start in range(0, len(ordered), BATCH):
        rows = [{"word": word} for word in ordered[start : start + BATCH]]
        session.execute(insert(SearchWord).on_conflict_do_nothing(index_elements=["word"]), rows)
