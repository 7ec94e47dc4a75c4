"""What the vocabulary implies, derived once: the phrase table, the concept tree, and how a concept is found in a catalog.

- `PHRASES`: every phrase of the vocabulary (mirror/catalog/vocabulary.py), by
  its comparison key, with what it means (`Meaning`). Two meanings for one
  phrase is a mistake in the vocabulary and stops the import.
- `descendants(slug)`: a concept and the narrower ones under it.
- `catalog_match(slug)`: how a catalog names the concept: the `names` of it
  and of its descendants, each without the longer names of other concepts
  that contain it. So a product called "Furnace Filter" is an air filter and
  not a furnace, a "Heat Pump Water Heater" is a water heater and not a heat
  pump, and a "Water Heater Drain Pan" is a drain pan; nobody has to list
  those exclusions by hand.
- `trade_concepts(trade, kind)`: the concrete concepts of a trade.
- `CATALOG_NAMES` and `ABBREVIATIONS`: what a catalog's own text is read
  for at sync time (mirror/query/product_reading.py): the concepts' names
  and the typed spellings of them, and the trade's abbreviations.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from mirror.catalog import units
from mirror.catalog.trades import TIERS, TRADES
from mirror.catalog.vocabulary import (
    BRANDS,
    COMPARISON_WORDS,
    CONCEPTS,
    COVERAGE_WORDS,
    EFFICIENCY_WORDS,
    FEATURES,
    FILLER_WORDS,
    INCLUSION_WORDS,
    KIND_WORDS,
    PRICE_BOUND_WORDS,
    PRICE_SORT_WORDS,
    TIER_WORDS,
    TRADE_WORDS,
    Concept,
)
from mirror.query.text import WORD, edit_distance, key, phrase_words, tokenize

Phrase = tuple[str, ...]

CONCEPT, HINT, BRAND, TRADE, KIND, SORT, BOUND, TIER, COVERAGE, COMPARISON, INCLUSION, FILLER = (
    "concept",
    "hint",
    "brand",
    "trade",
    "kind",
    "sort",
    "bound",
    "tier",
    "coverage",
    "comparison",
    "inclusion",
    "filler",
)
EFFICIENCY, FEATURE = "efficiency", "feature"  # what to rank by (mirror/query/ranking.py)
# Roles whose words a misspelling may be corrected to (never to a filler, price or tier word).
CORRECTABLE_ROLES = frozenset({CONCEPT, HINT, BRAND, TRADE, KIND})


@dataclass(frozen=True)
class Meaning:
    """What one phrase of the vocabulary means: its role and value (a concept slug, a trade slug, a tier...)."""

    role: str
    value: str


BY_SLUG: dict[str, Concept] = {concept.slug: concept for concept in CONCEPTS}


def phrase_key(words: Phrase) -> Phrase:
    """The comparison key of a phrase: each word's `key`."""
    return tuple(key(word) for word in words)


def _entries():
    for concept in CONCEPTS:
        for phrase in (*concept.names, *concept.typed):
            yield phrase, Meaning(CONCEPT, concept.slug)
        for phrase in concept.hints:
            yield phrase, Meaning(HINT, concept.slug)
    for phrase in BRANDS:
        yield phrase, Meaning(BRAND, phrase)
    lists = (
        (TRADE, TRADE_WORDS),
        (KIND, KIND_WORDS),
        (SORT, PRICE_SORT_WORDS),
        (BOUND, PRICE_BOUND_WORDS),
        (TIER, TIER_WORDS),
    )
    for role, table in lists:
        for value, phrases in table.items():
            for phrase in phrases:
                yield phrase, Meaning(role, value)
    for feature in FEATURES:
        for phrase in feature.names:
            yield phrase, Meaning(FEATURE, feature.slug)
    for phrase in EFFICIENCY_WORDS:
        yield phrase, Meaning(EFFICIENCY, "")
    for phrase in COVERAGE_WORDS:
        yield phrase, Meaning(COVERAGE, "")
    for phrase in COMPARISON_WORDS:
        yield phrase, Meaning(COMPARISON, "")
    for phrase in INCLUSION_WORDS:
        yield phrase, Meaning(INCLUSION, "")
    for phrase in FILLER_WORDS:
        yield phrase, Meaning(FILLER, "")


def _phrase_table() -> dict[Phrase, Meaning]:
    table: dict[Phrase, Meaning] = {}
    for phrase, meaning in _entries():
        words = phrase_key(phrase_words(phrase))
        if not words or any(token.kind != WORD for token in tokenize(phrase)):
            raise ValueError(
                f"vocabulary: {phrase!r} must be words of letters (numbers are sizes, mirror/catalog/units.py)"
            )
        held = table.setdefault(words, meaning)
        if held != meaning:
            raise ValueError(f"vocabulary: {phrase!r} means both {held} and {meaning}")
    return table


def _check_references() -> None:
    for concept in CONCEPTS:
        unknown = [t for t in concept.trades if t not in TRADES] + [p for p in concept.parents if p not in BY_SLUG]
        if unknown:
            raise ValueError(f"vocabulary: {concept.slug} refers to unknown trades or parents {unknown}")
    if set(TIER_WORDS) - set(TIERS) or set(TRADE_WORDS) - set(TRADES):
        raise ValueError("vocabulary: tier and trade words must use mirror/catalog/trades.py's slugs")
    for quantity in units.QUANTITIES.values():
        unknown = [slug for slug in quantity.kinds if slug not in BY_SLUG]
        if unknown or (quantity.evidence is not None and not quantity.kinds):
            raise ValueError(f"units: {quantity.slug} names unknown kinds {unknown} or none")


def _abbreviated() -> dict[Phrase, tuple[str, ...]]:
    """Each abbreviation (its comparison key) and the concepts that list it, in the vocabulary's order."""
    found: dict[Phrase, list[str]] = {}
    for concept in CONCEPTS:
        for phrase in concept.abbreviations:
            found.setdefault(phrase_key(phrase_words(phrase)), []).append(concept.slug)
    return {phrase: tuple(slugs) for phrase, slugs in found.items()}


_check_references()
PHRASES: dict[Phrase, Meaning] = _phrase_table()
LONGEST_PHRASE = max(len(words) for words in PHRASES)


def _phrase_lengths() -> dict[str, tuple[int, ...]]:
    lengths: dict[str, set[int]] = {}
    for words in PHRASES:
        lengths.setdefault(words[0], set()).add(len(words))
    return {first: tuple(sorted(found, reverse=True)) for first, found in lengths.items()}


# Per first word (its key), the lengths of the phrases it starts, longest first: a reader tries only those.
PHRASE_LENGTHS: dict[str, tuple[int, ...]] = _phrase_lengths()
UNITS: dict[Phrase, tuple[str, object]] = {
    phrase_key(phrase_words(spelling)): meaning for spelling, meaning in units.UNIT_PHRASES.items()
}
LONGEST_UNIT = max(len(words) for words in UNITS)
# Every word of the vocabulary (comparison keys): a question's word among them is understood.
VOCABULARY_KEYS = (
    frozenset(word for words in (*PHRASES, *UNITS) for word in words)
    | frozenset(units.MULTIPLIERS)
    | frozenset(units.CURRENCY_WORDS)
    | frozenset(units.NUMBER_WORDS)
)
# The words a misspelling may be corrected to: those of names, trades, kinds and brands, and typed
# spellings of five letters and more ("asap" is no "ashp").
_TYPED = {phrase_key(phrase_words(p)) for concept in CONCEPTS for p in concept.typed}
CORRECTION_TARGETS = frozenset(
    word
    for words, meaning in PHRASES.items()
    if meaning.role in CORRECTABLE_ROLES
    for word in words
    if len(word) >= 3 and (words not in _TYPED or len(word) >= 5)
)


# --- the concept tree ----------------------------------------------------------------


@cache
def children(slug: str) -> tuple[str, ...]:
    """The concepts directly under one."""
    return tuple(c.slug for c in CONCEPTS if slug in c.parents)


@cache
def descendants(slug: str) -> tuple[str, ...]:
    """A concept and every concept under it, the concept first."""
    found = [slug]
    for child in children(slug):
        found.extend(d for d in descendants(child) if d not in found)
    return tuple(found)


def concept_trades(slug: str) -> tuple[str, ...]:
    """The trades of a concept and of the concepts under it."""
    return tuple(dict.fromkeys(t for member in descendants(slug) for t in BY_SLUG[member].trades))


def kind_of(slug: str) -> str | None:
    """A concept's kind; for a group, the kind all its members share (None when they differ)."""
    kinds = {BY_SLUG[m].kind for m in descendants(slug) if BY_SLUG[m].kind is not None}
    return kinds.pop() if len(kinds) == 1 else None


@dataclass(frozen=True)
class MemberMatch:
    """How a catalog names one concept: any of `names`, unless inside one of `not_within`."""

    slug: str
    names: tuple[Phrase, ...]  # index words ("a/c" -> ("a", "c"))
    not_within: tuple[Phrase, ...]


def _contains(longer: Phrase, shorter: Phrase) -> bool:
    size = len(shorter)
    return len(longer) > size and any(longer[i : i + size] == shorter for i in range(len(longer) - size + 1))


@cache
def member_match(slug: str) -> MemberMatch:
    """One concept's own names, and the longer names of other concepts that contain one of them."""
    own = tuple(dict.fromkeys(phrase_words(name) for name in BY_SLUG[slug].names))
    mine = set(descendants(slug))
    within = []
    for other in CONCEPTS:
        if other.slug in mine:
            continue
        for name in other.names:
            longer = phrase_words(name)
            if any(_contains(phrase_key(longer), phrase_key(short)) for short in own):
                within.append(longer)
    # A name that holds a shorter one of the same concept finds nothing more ("central air conditioner").
    shortest = tuple(n for n in own if not any(_contains(phrase_key(n), phrase_key(s)) for s in own))
    return MemberMatch(slug, shortest, tuple(dict.fromkeys(within)))


@cache
def catalog_match(slug: str) -> tuple[MemberMatch, ...]:
    """How a catalog names a concept: its own match and each narrower concept's."""
    return tuple(member_match(member) for member in descendants(slug) if BY_SLUG[member].names)


@cache
def trade_concepts(trade: str, kind: str | None = None) -> tuple[str, ...]:
    """The concrete concepts (not groups) of one trade, of one kind when given."""
    return tuple(
        c.slug for c in CONCEPTS if trade in c.trades and c.kind is not None and (kind is None or c.kind == kind)
    )


# --- what a catalog's own text is read for (mirror/query/product_reading.py) ----------


def _compact(words: Phrase) -> str:
    return "".join(words)


def _spells_a_name(typed: Phrase, names: tuple[Phrase, ...]) -> bool:
    """Whether a typed phrase is a spelling of one of the names (spaces aside, within the spelling step's
    edits: one, two from seven letters on), not a loose word for the thing ("hot water", "cooling")."""
    for name in names:
        target = _compact(name)
        limit = 1 if len(target) < 7 else 2
        if edit_distance(_compact(typed), target, limit) <= limit:
            return True
    return False


def _catalog_names() -> dict[Phrase, str]:
    table: dict[Phrase, str] = {}
    for concept in CONCEPTS:
        names = tuple(phrase_key(phrase_words(name)) for name in concept.names)
        table.update(dict.fromkeys(names, concept.slug))
        spellings = (phrase_key(phrase_words(p)) for p in concept.typed)
        table.update({p: concept.slug for p in spellings if _spells_a_name(p, names)})
    return table


# A concept's names and the typed spellings of them, by comparison key: what a catalog's text names.
CATALOG_NAMES: dict[Phrase, str] = _catalog_names()
LONGEST_CATALOG_NAME = max(len(words) for words in CATALOG_NAMES)
# The longest catalog name starting with each word: a word starting none is passed at once.
CATALOG_NAME_STARTS: dict[str, int] = {}
for _words in CATALOG_NAMES:
    CATALOG_NAME_STARTS[_words[0]] = max(CATALOG_NAME_STARTS.get(_words[0], 0), len(_words))
# The trade's abbreviations (comparison keys) and the concepts each stands for.
ABBREVIATIONS: dict[Phrase, tuple[str, ...]] = _abbreviated()
LONGEST_ABBREVIATION = max(len(words) for words in ABBREVIATIONS)
ABBREVIATION_STARTS = frozenset(words[0] for words in ABBREVIATIONS)


def ancestors(slug: str) -> tuple[str, ...]:
    """A concept and every concept above it."""
    return tuple(other.slug for other in CONCEPTS if slug in descendants(other.slug))
