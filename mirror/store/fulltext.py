"""The database's own full-text index: its objects, and queries over it.

Migration 0003 builds the index (read its docstring for the documents; 0004
computes the same products vector for less, its docstring says how): a
weighted, generated `search_vector` tsvector per table under a GIN index,
written by the database inside the statement that writes the row, so the
index commits with the sync.

Queries are built here from terms: a term is one whitespace-separated chunk
of the query, split into its letters-and-digits parts (`ML17XP1-036` ->
`ml17xp1`, `036`). A term matches when all its parts match (each by prefix
from three characters on) or, for a multi-part term, when its compact form
(`ml17xp1036`) prefixes an indexed compact model number. The index stems
with the Snowball English rules and keeps stop words, so plural and singular
meet.

The query step (mirror/query) adds phrases: what a concept or a size is
called in a catalog, as adjacent words (`heat <-> pump`), restricted to
where a product says what it is (its name, model numbers and category:
`CONCEPT_WEIGHTS`), each name kept outside the longer names of other
concepts (`& !(...)`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import (
    ColumnElement,
    Integer,
    String,
    bindparam,
    cast,
    func,
    literal_column,
    select,
)

TS_CONFIG = "mirror_search"
VECTOR_COLUMN = "search_vector"
TRIGRAM_INDEX = "ix_company_words_trigram"  # migration 0009: the GiST index on company_words (plugin_key, word)
POSTAL_CODES_INDEX = "ix_companies_service_postal_codes"  # migration 0009: GIN on the ZIPs a business serves
# Migration 0007's one spelling list of every catalog, unused since 0009 and kept for the previous release's
# workers during an upgrade; a later release drops them.
RETIRED = frozenset({"search_words", "ix_search_words_trigram"})
MAX_TERMS = 8
PREFIX_FROM = 3  # shorter words match whole only ("13" is not "130")
_WORD_RE = re.compile(r"[^\W_]+")


def words(text_value: str) -> list[str]:
    """The lower-case letters-and-digits words of a text (how the index splits it)."""
    return _WORD_RE.findall(text_value.lower())


@dataclass(frozen=True)
class Term:
    """One query chunk: its words, all of which must match, or its compact model form."""

    parts: tuple[str, ...]
    compact: str  # the chunk without separators, as compact model numbers are indexed
    # Its words match whole (with their inflections, as the stemmer reads them), never as prefixes: a word the
    # spelling step corrected a typo to is a complete word of the catalog or the vocabulary. As a prefix, a
    # common word costs the index every product of the mirror holding a word it begins ("pump:*": 66,000 of
    # 300,000, 16 ms for a 20-product company), and finds longer words nobody meant ("tank" in "tankless").
    whole: bool = False

    @classmethod
    def of(cls, chunk_words: list[str], *, whole: bool = False) -> Term:
        """A term from a chunk's words; a lone letter beside others (`tudi's`, `XC25-A`)
        is left to the compact form rather than required as a word."""
        parts = [w for w in chunk_words if not (len(w) == 1 and w.isalpha())] or chunk_words
        return cls(parts=tuple(parts), compact="".join(chunk_words), whole=whole)


def is_search_index_object(name: str | None, type_: str) -> bool:
    """True for the index's objects, which live outside the ORM metadata.

    Alembic's autogenerate (and `db check`) must not propose dropping them:
    the generated `search_vector` columns and their GIN indexes, the
    spelling lists' trigram index and the served ZIPs' GIN index.
    """
    if not name:
        return False
    if name in RETIRED:
        return True
    if type_ == "column":
        return name == VECTOR_COLUMN
    if type_ == "index":
        return name.endswith(f"_{VECTOR_COLUMN}") or name in (TRIGRAM_INDEX, POSTAL_CODES_INDEX)
    return False


# --- tsquery text ------------------------------------------------------------------


def _word(word: str, weights: str = "", *, prefix: bool = True) -> str:
    if prefix and stem_at_least(word) >= PREFIX_FROM:
        return f"{word}:*{weights}"
    return f"{word}:{weights}" if weights else word


# The English stemmer's first step drops these endings when what is left holds a vowel (Snowball's
# step 1, which applies however short the word): "oing" is searched as the stem "o".
_ENDINGS = ("ingly", "edly", "ing", "ed", "es", "ly", "s")
_VOWELS = frozenset("aeiouy")


def stem_at_least(word: str) -> int:
    """A lower bound of the length of `word`'s stem as the search configuration stems it.

    A prefix query (`word:*`) applies to the stem, not to the typed word: a
    stem of one or two letters ("oing" → "o") would match most of a catalog
    (on 100,000 products, 150 ms of ranking for one unknown word). So a word is
    a prefix only when even its shortest stem keeps PREFIX_FROM letters; else
    it matches whole, like a short word.
    """
    for ending in _ENDINGS:
        rest = word[: -len(ending)]
        if word.endswith(ending) and _VOWELS & set(rest):
            return len(rest)
    return len(word)


def term_query(term: Term, weights: str = "", *, compact: bool = True) -> str:
    """to_tsquery text for one term (`weights` such as "A" restricts the fields;
    `compact` also matches the term's compact model form)."""
    every = " & ".join(_word(part, weights, prefix=not term.whole) for part in term.parts)
    if term.compact == term.parts[0] or not compact:
        return f"({every})"
    return f"({_word(term.compact, weights, prefix=not term.whole)} | ({every}))"


def tsquery(query_text: str | None, name: str, *, per_call: bool = False) -> ColumnElement:
    """`(SELECT to_tsquery('mirror_search', :name))` bound to `query_text` (None: given at execution).

    As a scalar subquery, the query text is parsed once per execution (an
    InitPlan). A bare to_tsquery() of a parameter is only STABLE, so under
    a prepared statement's generic plan Postgres parses it again for every
    row it tests and ranks: about a quarter of a per-company search's
    database time (320 against 235 us a call, measured).

    `per_call`: the statement is planned for its values on every execution
    (mirror.store.db.planned_per_call), so the bare call is folded into the
    constant query at planning, and the planner sees what it matches: behind
    an InitPlan it guessed a few thousand rows for a word in nearly every
    product, and built a bitmap of all 355,000 of them (140 ms) where reading
    the company's products until the limit took 1 ms.
    """
    parsed = func.to_tsquery(literal_column(f"'{TS_CONFIG}'::regconfig"), _bound(name, query_text))
    return parsed if per_call else select(parsed).scalar_subquery()


def vector(table: str, *, indexed: bool = True) -> ColumnElement:
    """A table's generated tsvector column (`indexed=False`: as an expression no index holds, so a condition on
    it is tested row by row on the rows other conditions find)."""
    column = literal_column(f"{table}.{VECTOR_COLUMN}")
    return column if indexed else func.coalesce(column, literal_column("''::tsvector"))


def matches(
    table: str, query_text: str | None, name: str, *, per_call: bool = False, indexed: bool = True
) -> ColumnElement[bool]:
    """`table.search_vector @@ to_tsquery(...)` (`per_call`: see `tsquery`; `indexed`: see `vector`)."""
    return vector(table, indexed=indexed).op("@@")(tsquery(query_text, name, per_call=per_call))


# --- phrases: what a concept or a size is called in a catalog ---------------------
#
# A phrase is a tuple of index words (mirror/query: ("air", "conditioner"));
# a word ending in "*" matches by prefix ("16x25x*"). A concept's match is a
# tuple of members, each with the names that find it and the longer names
# that must not hold them (mirror.query.concepts.MemberMatch).


# Where a product says what it is: its name and model numbers, its category (and SKU), never its description.
CONCEPT_WEIGHTS = "AC"


def _lexeme(word: str, weights: str) -> str:
    if word.endswith("*"):
        return f"{word[:-1]}:*{weights}"
    return f"{word}:{weights}" if weights else word


def phrase(words: tuple[str, ...], weights: str = "") -> str:
    """to_tsquery text of one phrase: adjacent words (`<->`), restricted to `weights` if any."""
    return " <-> ".join(_lexeme(word, weights) for word in words)


def any_phrase(phrases, weights: str = "") -> str:
    """to_tsquery text matching any of the phrases."""
    return "(" + " | ".join(f"({phrase(p, weights)})" for p in phrases) + ")"


def concept_query(members, weights: str = "") -> str:
    """to_tsquery text of a concept: any member's names, none inside a longer name that is not the member."""
    parts = []
    for member in members:
        text = any_phrase(member.names, weights)
        for longer in member.not_within:
            text += f" & !({phrase(longer, weights)})"
        parts.append(f"({text})")
    return " | ".join(parts)


# --- shared -----------------------------------------------------------------------


def _bound(name: str, value: str | None):
    # A text parameter, with its value now or (None) from the execution's parameters.
    return bindparam(name, value, type_=String) if value is not None else bindparam(name, type_=String)


def normalised_model(value: ColumnElement) -> ColumnElement:
    """A model number as the index's compact form: lower case, separators removed."""
    return func.regexp_replace(func.lower(value), "[^[:alnum:]]+", "", "g")


def as_int(condition: ColumnElement[bool]) -> ColumnElement[int]:
    """A condition as 0/1, for sums of matched terms."""
    return cast(condition, Integer)
