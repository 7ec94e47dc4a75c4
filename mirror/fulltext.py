"""The database's own full-text index: its objects, and queries over it.

Migration 0003 builds the index (read its docstring for the documents; 0004
computes the same products vector for less, its docstring says how):
Postgres keeps a weighted, generated `search_vector` tsvector per table under
a GIN index; SQLite keeps FTS5 tables (`<table>_fts`, rowid = the source
row's rowid) in step with triggers. Both are written by the database inside
the statement that writes the row, so the index commits with the sync.

Queries are built here from terms: a term is one whitespace-separated chunk
of the query, split into its letters-and-digits parts (`ML17XP1-036` ->
`ml17xp1`, `036`). A term matches when all its parts match (each by prefix
from three characters on) or, for a multi-part term, when its compact form
(`ml17xp1036`) prefixes an indexed compact model number. Both databases stem
with the Porter/Snowball English rules and keep stop words, so plural and
singular meet and the two backends agree.

The query step (mirror/query) adds phrases: what a concept or a size is
called in a catalog, as adjacent words (`heat <-> pump`, `"heat pump"`),
restricted to where a product says what it is (its name, model numbers and
category: `CONCEPT_WEIGHTS`, `CONCEPT_COLUMNS`), each name kept outside the
longer names of other concepts (`& !(...)`, `NOT`).
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
    text,
)

TS_CONFIG = "mirror_search"
VECTOR_COLUMN = "search_vector"
FTS_TABLES = {
    "products": "products_fts",
    "companies": "companies_fts",
    "offer_groups": "offer_groups_fts",
    "company_words": "company_words_fts",  # migration 0009: the companies' spelling lists' trigram table
}
TRIGRAM_INDEX = "ix_company_words_trigram"  # migration 0009: the GiST index on company_words (plugin_key, word)
POSTAL_CODES_INDEX = "ix_companies_service_postal_codes"  # migration 0009: GIN on the ZIPs a business serves
# Migration 0007's one spelling list of every catalog, unused since 0009 and kept for the previous release's
# workers during an upgrade; a later release drops them.
RETIRED = frozenset({"search_words", "search_words_fts", "ix_search_words_trigram"})
MAX_TERMS = 8
PREFIX_FROM = 3  # shorter words match whole only ("13" is not "130")
# Words that carry no product meaning in questions such as "what do air
# filters cost?"; dropped unless nothing else is left.
STOP_WORDS = frozenset(
    {
        "a",
        "an",
        "and",
        "any",
        "are",
        "can",
        "cost",
        "costs",
        "do",
        "does",
        "for",
        "have",
        "how",
        "i",
        "in",
        "installed",
        "is",
        "it",
        "me",
        "much",
        "my",
        "of",
        "on",
        "or",
        "price",
        "prices",
        "show",
        "the",
        "to",
        "what",
        "which",
        "with",
        "you",
        "your",
    }
)
_WORD_RE = re.compile(r"[^\W_]+")
# The separators SQLite's trigger removes from model numbers (it has no
# regexp_replace; migration 0003); Postgres removes every non-alphanumeric.
_SQLITE_MODEL_SEPARATORS = ("-", " ", "/", ".", "_", "+")


def words(text_value: str) -> list[str]:
    """The lower-case letters-and-digits words of a text (how both indexes split it)."""
    return _WORD_RE.findall(text_value.lower())


@dataclass(frozen=True)
class Term:
    """One query chunk: its words, all of which must match, or its compact model form."""

    parts: tuple[str, ...]
    compact: str  # the chunk without separators, as compact model numbers are indexed

    @classmethod
    def of(cls, chunk_words: list[str]) -> Term:
        """A term from a chunk's words; a lone letter beside others (`tudi's`, `XC25-A`)
        is left to the compact form rather than required as a word."""
        parts = [w for w in chunk_words if not (len(w) == 1 and w.isalpha())] or chunk_words
        return cls(parts=tuple(parts), compact="".join(chunk_words))


def search_terms(query: str) -> list[Term]:
    """The distinct terms of a query, stop words dropped unless nothing else is left."""
    chunks = [Term.of(found) for found in map(words, query.split()) if found]
    meaningful = [t for t in chunks if not (len(t.parts) == 1 and t.parts[0] in STOP_WORDS)] or chunks
    return list(dict.fromkeys(meaningful))[:MAX_TERMS]


def is_search_index_object(name: str | None, type_: str) -> bool:
    """True for the index's objects, which live outside the ORM metadata.

    Alembic's autogenerate (and `db check`) must not propose dropping them:
    the generated `search_vector` columns and their GIN indexes, the
    spelling lists' trigram index and the served ZIPs' GIN index, on Postgres; the FTS5 tables and their
    shadow tables on SQLite.
    """
    if not name:
        return False
    if name in RETIRED or any(name.startswith(f"{retired}_") for retired in RETIRED if type_ == "table"):
        return True
    if type_ == "column":
        return name == VECTOR_COLUMN
    if type_ == "index":
        return name.endswith(f"_{VECTOR_COLUMN}") or name in (TRIGRAM_INDEX, POSTAL_CODES_INDEX)
    if type_ == "table":
        return any(name == fts or name.startswith(f"{fts}_") for fts in FTS_TABLES.values())
    return False


# --- Postgres: tsquery text ------------------------------------------------------


def _pg_word(word: str, weights: str = "") -> str:
    return f"{word}:*{weights}" if len(word) >= PREFIX_FROM else (f"{word}:{weights}" if weights else word)


def pg_term_query(term: Term, weights: str = "", *, compact: bool = True) -> str:
    """to_tsquery text for one term (`weights` such as "A" restricts the fields;
    `compact` also matches the term's compact model form)."""
    every = " & ".join(_pg_word(part, weights) for part in term.parts)
    if term.compact == term.parts[0] or not compact:
        return f"({every})"
    return f"({_pg_word(term.compact, weights)} | ({every}))"


def pg_any_query(terms: list[Term]) -> str:
    """to_tsquery text matching a row that matches any term."""
    return " | ".join(pg_term_query(term) for term in terms)


def pg_tsquery(query_text: str | None, name: str) -> ColumnElement:
    """`(SELECT to_tsquery('mirror_search', :name))` bound to `query_text` (None: given at execution).

    As a scalar subquery, the query text is parsed once per execution (an
    InitPlan). A bare to_tsquery() of a parameter is only STABLE, so under
    a prepared statement's generic plan Postgres parses it again for every
    row it tests and ranks: about a quarter of a per-company search's
    database time (320 against 235 us a call, measured). A custom plan
    folds it either way; the GIN index takes the InitPlan's value as well.
    """
    parsed = func.to_tsquery(literal_column(f"'{TS_CONFIG}'::regconfig"), _bound(name, query_text))
    return select(parsed).scalar_subquery()


def pg_vector(table: str) -> ColumnElement:
    """A table's generated tsvector column."""
    return literal_column(f"{table}.{VECTOR_COLUMN}")


def pg_matches(table: str, query_text: str | None, name: str) -> ColumnElement[bool]:
    """`table.search_vector @@ to_tsquery(...)`."""
    return pg_vector(table).op("@@")(pg_tsquery(query_text, name))


# --- SQLite: FTS5 MATCH text ------------------------------------------------------


def _fts_word(word: str) -> str:
    # Words are letters and digits only, so quoting needs no escaping.
    return f'"{word}"*' if len(word) >= PREFIX_FROM else f'"{word}"'


def fts_term_query(term: Term, compact_column: str | None = "models_compact") -> str:
    """FTS5 MATCH text for one term (its compact form is looked up in `compact_column`, if any)."""
    every = " AND ".join(_fts_word(part) for part in term.parts)
    if term.compact == term.parts[0] or compact_column is None:
        return f"({every})"
    return f"({compact_column} : {_fts_word(term.compact)} OR ({every}))"


def fts_any_query(terms: list[Term]) -> str:
    """FTS5 MATCH text matching a row that matches any term."""
    return " OR ".join(fts_term_query(term) for term in terms)


def fts_within(plugin_key: str, expression: str) -> str:
    """`expression` narrowed, inside the index, to one company's rows.

    The `company_key` column holds the plugin key; its words as a phrase let FTS5
    intersect posting lists instead of returning every company's matches.
    The caller still filters on the key itself (a phrase is not an equality).
    """
    key_words = words(plugin_key)
    if not key_words:
        return expression
    return f'company_key : "{" ".join(key_words)}" AND ({expression})'


def fts_rowids(fts_table: str, match: str | None, name: str):
    """SELECT rowid FROM <fts_table> WHERE <fts_table> MATCH :name (None: given at execution)."""
    return (
        select(literal_column("rowid"))
        .select_from(text(fts_table))
        .where(text(f"{fts_table} MATCH :{name}").bindparams(_bound(name, match)))
    )


def fts_hits(fts_table: str, match: str | None, weights: tuple[float, ...], name: str):
    """(rowid, score) of the rows matching, score = bm25 with per-column weights (lower is better)."""
    weight_list = ", ".join(repr(float(w)) for w in weights)
    return (
        select(
            literal_column("rowid").label("rowid"), literal_column(f"bm25({fts_table}, {weight_list})").label("score")
        )
        .select_from(text(fts_table))
        .where(text(f"{fts_table} MATCH :{name}").bindparams(_bound(name, match)))
    )


# --- phrases: what a concept or a size is called in a catalog ---------------------
#
# A phrase is a tuple of index words (mirror/query: ("air", "conditioner"));
# a word ending in "*" matches by prefix ("16x25x*"). A concept's match is a
# tuple of members, each with the names that find it and the longer names
# that must not hold them (mirror.query.concepts.MemberMatch).


# Where a product says what it is: its name and model numbers, its category (and SKU), never its description.
CONCEPT_WEIGHTS = "AC"
CONCEPT_COLUMNS = "{name models category sku}"


def _pg_lexeme(word: str, weights: str) -> str:
    if word.endswith("*"):
        return f"{word[:-1]}:*{weights}"
    return f"{word}:{weights}" if weights else word


def pg_phrase(words: tuple[str, ...], weights: str = "") -> str:
    """to_tsquery text of one phrase: adjacent words (`<->`), restricted to `weights` if any."""
    return " <-> ".join(_pg_lexeme(word, weights) for word in words)


def pg_any_phrase(phrases, weights: str = "") -> str:
    """to_tsquery text matching any of the phrases."""
    return "(" + " | ".join(f"({pg_phrase(p, weights)})" for p in phrases) + ")"


def pg_concept_query(members, weights: str = "") -> str:
    """to_tsquery text of a concept: any member's names, none inside a longer name that is not the member."""
    parts = []
    for member in members:
        text = pg_any_phrase(member.names, weights)
        for longer in member.not_within:
            text += f" & !({pg_phrase(longer, weights)})"
        parts.append(f"({text})")
    return " | ".join(parts)


def fts_phrase(words: tuple[str, ...]) -> str:
    """FTS5 text of one phrase (a final `*` word matches by prefix)."""
    if words and words[-1].endswith("*"):
        return f'"{" ".join((*words[:-1], words[-1][:-1]))}"*'
    return f'"{" ".join(words)}"'


def fts_any_phrase(phrases, columns: str | None = None) -> str:
    """FTS5 text matching any of the phrases, in `columns` (such as "{name category}") if given."""
    text = "(" + " OR ".join(fts_phrase(p) for p in phrases) + ")"
    return f"({columns} : {text})" if columns else text


def fts_concept_query(members, columns: str | None = None) -> str:
    """FTS5 text of a concept (see pg_concept_query), in `columns` if given."""
    parts = []
    for member in members:
        text = fts_any_phrase(member.names, columns)
        if member.not_within:
            text = f"({text} NOT {fts_any_phrase(member.not_within, columns)})"
        parts.append(text)
    return "(" + " OR ".join(parts) + ")"


def fts_trigram_query(word: str) -> str:
    """FTS5 text matching the words that share a trigram with `word` (the trigram tokenizer)."""
    grams = dict.fromkeys(word[i : i + 3] for i in range(len(word) - 2))
    return " OR ".join(f'"{gram}"' for gram in grams)


# --- shared -----------------------------------------------------------------------


def _bound(name: str, value: str | None):
    # A text parameter, with its value now or (None) from the execution's parameters.
    return bindparam(name, value, type_=String) if value is not None else bindparam(name, type_=String)


def normalised_model(value: ColumnElement, dialect: str) -> ColumnElement:
    """A model number as the index's compact form: lower case, separators removed."""
    if dialect == "postgresql":
        return func.regexp_replace(func.lower(value), "[^[:alnum:]]+", "", "g")
    for separator in _SQLITE_MODEL_SEPARATORS:
        value = func.replace(value, separator, "")
    return func.lower(value)


def as_int(condition: ColumnElement[bool]) -> ColumnElement[int]:
    """A condition as 0/1, for sums of matched terms."""
    return cast(condition, Integer)
