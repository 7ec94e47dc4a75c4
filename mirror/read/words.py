"""One company's words, as the query step's `Lexicon` (mirror/query/spelling.py): one statement per lookup.

The spelling list (`search_words`, migration 0007; kept by mirror/sync/words.py)
holds the distinct words of the catalogs' product names, brands and
categories. One statement answers, for some words at once:

- which of them (and of the pieces a run-together word splits into) the
  company's public products hold;
- which words of the list are nearest each of them: on Postgres the pg_trgm
  GiST index's distance order (`word <-> 'furnance'`), on SQLite the FTS5
  trigram table's rank for the OR of the word's trigrams; of those, the ones
  the company's public products hold.

Only the searched company's public products count (checked on the full-text
index in the same statement): a correction is a word that can find something
here, never one of another catalog, nor one whose product was unpublished
since the last full run.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache

from sqlalchemy import (
    String,
    bindparam,
    column,
    exists,
    func,
    literal,
    literal_column,
    select,
    table,
    text,
    type_coerce,
    union_all,
)
from sqlalchemy.orm import Session

from mirror import fulltext as ft
from mirror.catalog import public_products_filter
from mirror.db import statement_rows
from mirror.models import Product, SearchWord
from mirror.query.spelling import SIMILAR_PER_WORD, LexiconAnswer

WORDS = SearchWord.__table__
HELD = ""  # the first column of a row that answers "held": no asked word's index is empty
HOLDING_COLUMNS = "{name brand category}"  # where the list's words come from (products_fts columns)


class CatalogLexicon:
    """The words of one company's public products, read in the caller's session."""

    def __init__(self, session: Session, plugin_key: str):
        self.session = session
        self.plugin_key = plugin_key

    def lookup(self, words: Sequence[str], pieces: Sequence[str]) -> LexiconAnswer:
        """Which of `words` and `pieces` the company holds, and its words nearest each of `words`."""
        asked = [w for w in dict.fromkeys(words) if w.isalpha() and len(w) >= 3]
        held = sorted({w for w in (*words, *pieces) if w.isalpha()})
        dialect = self.session.get_bind().dialect.name
        params = {"plugin_key": self.plugin_key}
        if dialect == "postgresql":
            params["held"] = " ".join(held)
            params.update({f"word_{i}": word for i, word in enumerate(asked)})
        else:
            params["held"] = json.dumps(held)
            params.update({f"word_{i}": ft.fts_trigram_query(word) for i, word in enumerate(asked)})
            # The company's rows of products_fts, then the word in its name, brand or category (fts_within).
            before, after = ft.fts_within(self.plugin_key, f'{HOLDING_COLUMNS} : "\0"').split("\0")
            params["within_before"], params["within_after"] = before, after
        rows = statement_rows(self.session, _statement(dialect, len(asked)), params)
        known = frozenset(row[1] for row in rows if row[0] == HELD)
        similar: dict[str, list[str]] = {}
        for index, word in rows:
            if index != HELD:
                similar.setdefault(asked[int(index)], []).append(word)
        return LexiconAnswer(known=known, similar={w: tuple(found) for w, found in similar.items()})


@lru_cache(maxsize=16)
def _statement(dialect: str, asked: int):
    """Held words (first column HELD), then each asked word's nearest (first column its index)."""
    held_here = _held_by_the_company(dialect)
    if dialect == "postgresql":
        wanted = func.string_to_array(bindparam("held", type_=String), literal(" "))
        held = select(literal(HELD), WORDS.c.word).where(WORDS.c.word == func.any(wanted), held_here(WORDS.c.word))
    else:
        listed = select(literal_column("value")).select_from(func.json_each(bindparam("held", type_=String)))
        held = select(literal(HELD), WORDS.c.word).where(WORDS.c.word.in_(listed), held_here(WORDS.c.word))
    return union_all(held, *(_nearest(dialect, i, held_here) for i in range(asked)))


def _held_by_the_company(dialect: str):
    """word -> EXISTS a public product of :plugin_key holding it in its name, brand or category."""
    public = public_products_filter(bindparam("plugin_key", type_=String))
    if dialect == "postgresql":
        # The company's vectors once (a few rows to a few thousand), then each word against them: a
        # common word's posting list over every catalog is far larger than one company's rows.
        mine = (
            select(ft.pg_vector("products").label("vector"))
            .select_from(Product.__table__)
            .where(public)
            .cte("mine")
            .prefix_with("MATERIALIZED")
        )

        def held(word):
            lexeme = func.to_tsquery(
                literal_column(f"'{ft.TS_CONFIG}'::regconfig"), type_coerce(word, String).concat(":ABC")
            )
            return exists().where(mine.c.vector.op("@@")(lexeme))

        return held
    fts = table(ft.FTS_TABLES["products"], column("rowid"))

    def held(word):
        match = (
            bindparam("within_before", type_=String)
            .concat(type_coerce(word, String))
            .concat(bindparam("within_after", type_=String))
        )
        rows = select(fts.c.rowid).where(literal_column(fts.name).op("MATCH")(match)).correlate_except(fts)
        return exists().where(literal_column("products.rowid").in_(rows), public)

    return held


def _nearest(dialect: str, i: int, held_here):
    """The words nearest asked word `i`, best first, that the company holds."""
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
    return select(literal(str(i)), candidates.c.word).where(held_here(candidates.c.word))
