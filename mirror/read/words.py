"""The catalog's words, as the query step's `Lexicon` (mirror/query/spelling.py): one statement per lookup.

The spelling list (`search_words`, migration 0007; kept by mirror/sync/words.py)
answers two questions about some words at once:

- which of them (and of the pieces a run-together word splits into) it holds;
- which of its words are nearest to each of them: on Postgres the pg_trgm
  GiST index's distance order (`word <-> 'furnance'`), on SQLite the FTS5
  trigram table's rank for the OR of the word's trigrams.

Every word it returns is still held by a public product (checked on the
full-text index in the same statement), so a word whose last product was
unpublished since the last full run is never offered.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache

from sqlalchemy import String, bindparam, column, func, literal, literal_column, select, table, text, union_all
from sqlalchemy.orm import Session

from mirror import fulltext as ft
from mirror.db import statement_rows
from mirror.models import SearchWord
from mirror.query.spelling import SIMILAR_PER_WORD, LexiconAnswer

WORDS = SearchWord.__table__
KNOWN = ""  # the first column of a row that answers "held": no asked word has it (words have letters)


class CatalogLexicon:
    """The spelling list, read in the caller's session."""

    def __init__(self, session: Session):
        self.session = session

    def lookup(self, words: Sequence[str], pieces: Sequence[str]) -> LexiconAnswer:
        """Which of `words` and `pieces` the catalogs hold, and their words nearest each of `words`."""
        asked = [w for w in dict.fromkeys(words) if w.isalpha() and len(w) >= 3]
        held = sorted({w for w in (*words, *pieces) if w.isalpha()})
        dialect = self.session.get_bind().dialect.name
        params = {"held": " ".join(held) if dialect == "postgresql" else json.dumps(held)}
        for i, word in enumerate(asked):
            params[f"word_{i}"] = word if dialect == "postgresql" else ft.fts_trigram_query(word)
        rows = statement_rows(self.session, _statement(dialect, len(asked)), params)
        known = frozenset(row[1] for row in rows if row[0] == KNOWN)
        similar: dict[str, list[str]] = {}
        for asked_index, word in rows:
            if asked_index != KNOWN:
                similar.setdefault(asked[int(asked_index)], []).append(word)
        return LexiconAnswer(known=known, similar={w: tuple(found) for w, found in similar.items()})


@lru_cache(maxsize=16)
def _statement(dialect: str, asked: int):
    """Held words (first column KNOWN), then each asked word's nearest (first column its index)."""
    word = WORDS.c.word
    held_by_public = ft.held_by_a_public_product(dialect, word)
    if dialect == "postgresql":
        wanted = func.string_to_array(bindparam("held", type_=String), literal(" "))
        held = select(literal(KNOWN), word).where(word == func.any(wanted), held_by_public)
    else:
        listed = select(literal_column("value")).select_from(func.json_each(bindparam("held", type_=String)))
        held = select(literal(KNOWN), word).where(word.in_(listed), held_by_public)
    parts = [held]
    for i in range(asked):
        parts.append(_nearest(dialect, i))
    return union_all(*parts)


def _nearest(dialect: str, i: int):
    """The words nearest asked word `i`, best first, each still held by a public product."""
    if dialect == "postgresql":
        distance = WORDS.c.word.op("<->")(bindparam(f"word_{i}", type_=String))
        candidates = select(WORDS.c.word).order_by(distance).limit(SIMILAR_PER_WORD).subquery(f"near_{i}")
    else:
        fts = table(ft.FTS_TABLES["search_words"], column("word"), column("rank"))
        candidates = (
            select(fts.c.word)
            .where(text(f"{fts.name} MATCH :word_{i}").bindparams(bindparam(f"word_{i}", type_=String)))
            .order_by(fts.c.rank)
            .limit(SIMILAR_PER_WORD)
            .subquery(f"near_{i}")
        )
    word = candidates.c.word
    return select(literal(str(i)), word).where(ft.held_by_a_public_product(dialect, word))
