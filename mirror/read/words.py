"""One company's words, as the query step's `Lexicon` (mirror/query/spelling.py): one statement per lookup.

A company's spelling list (`company_words`, migration 0009; kept by
mirror/sync/words.py) holds the distinct words of its public products'
names, brands and categories. One statement answers, for some words at once:

- which of them (and of the pieces a run-together word splits into) the
  company holds: primary-key lookups;
- which of the company's words are nearest each of them: the GiST index on
  (plugin_key, word)'s distance order
  (`WHERE plugin_key = :k ORDER BY word <-> 'furnance' LIMIT n`).

Every part is bounded by an index and a LIMIT, and the query step caps the
words it looks up (mirror/query/spelling.py, `MAX_LOOKED_UP`): a lookup costs
the same on a catalog of 20 products and of 100,000.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from sqlalchemy import String, bindparam, func, literal, select, union_all
from sqlalchemy.orm import Session

from mirror.query.spelling import SIMILAR_PER_WORD, LexiconAnswer
from mirror.store.db import rows_by_name, statement_rows
from mirror.store.models import CompanyWord

WORDS = CompanyWord.__table__
HELD = ""  # the `asked` column of a row that answers "held": no asked word's index is empty


class CatalogLexicon:
    """The words of one company's public products, read in the caller's session."""

    def __init__(self, session: Session, plugin_key: str):
        self.session = session
        self.plugin_key = plugin_key

    def lookup(self, words: Sequence[str], pieces: Sequence[str]) -> LexiconAnswer:
        """Which of `words` and `pieces` the company holds, and its words nearest each of `words`."""
        asked = [w for w in dict.fromkeys(words) if w.isalpha() and len(w) >= 3]
        held = sorted({w for w in (*words, *pieces) if w.isalpha()})
        params = {"plugin_key": self.plugin_key, "held": " ".join(held)}
        params.update({f"word_{i}": word for i, word in enumerate(asked)})
        statement = _statement(len(asked))
        rows = rows_by_name(statement, statement_rows(self.session, statement, params))
        known = frozenset(row.word for row in rows if row.asked == HELD)
        similar: dict[str, list[str]] = {}
        for row in rows:
            if row.asked != HELD:
                similar.setdefault(asked[int(row.asked)], []).append(row.word)
        return LexiconAnswer(known=known, similar={w: tuple(found) for w, found in similar.items()})


@lru_cache(maxsize=16)
def _statement(asked: int):
    """Held words (`asked` HELD), then each asked word's nearest (`asked` its index), each in `word`.

    Prepared (one plan per number of words asked): whatever the words and the company, each part reads
    the company's list on an index by its key (the primary key, the trigram index's distance order), so a
    plan made for some values serves all. Planned on every call it cost about 0.6 ms of a 2.5 ms lookup.
    """
    mine = WORDS.c.plugin_key == bindparam("plugin_key", type_=String)
    wanted = func.string_to_array(bindparam("held", type_=String), literal(" "))
    held = select(literal(HELD).label("asked"), WORDS.c.word).where(mine, WORDS.c.word == func.any(wanted))
    return union_all(held, *(_nearest(i, mine) for i in range(asked)))


def _nearest(i: int, mine):
    """The company's words nearest asked word `i`, best first (at most SIMILAR_PER_WORD)."""
    distance = WORDS.c.word.op("<->")(bindparam(f"word_{i}", type_=String))
    candidates = select(WORDS.c.word).where(mine).order_by(distance).limit(SIMILAR_PER_WORD).subquery(f"near_{i}")
    return select(literal(str(i)).label("asked"), candidates.c.word)
