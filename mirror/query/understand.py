"""The one query-understanding step: a homeowner's words in, what they asked for out.

    understood = understand("cheapest 3 ton heatpump under $10k near 63376")
    understood.concepts   # (Recognised("heat-pump", ("heatpump",)),)
    understood.sizes      # (Size("capacity", 36000, ("3", "ton")),)
    understood.price      # PriceIntent(order="price_low", max_cents=1000000)
    understood.postal_code  # "63376"

`UnderstoodView.of(understood)` is its published form (mirror/query/views.py).

`understand(text)` reads the vocabulary alone (mirror/catalog/vocabulary.py;
no database). Given a `Lexicon` (the catalog's words, mirror/read/words.py)
it also corrects misspellings and splits run-together words that neither the
vocabulary nor the catalog knows, and says which words it could not read
(`unrecognised`) instead of guessing. The catalog search (mirror/read/
catalog.py) asks the lexicon only about the words that found nothing.

What a question holds, in the order it is read (longest phrase first, so
"furnace filter" is a filter and "heat pump water heater" a water heater):
postal codes, amounts of money and price bounds, sizes with their units,
vocabulary phrases (concepts, trades, kinds, tiers, price order, coverage,
filler), and the rest: `keywords` (brands, model numbers, any other word),
matched against the catalog's own text as typed.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from decimal import Decimal

from mirror.catalog.trades import SYSTEM
from mirror.catalog.units import CURRENCY_WORDS, MULTIPLIERS, NUMBER_WORDS, QUANTITIES, UNIT_FIRST, Size
from mirror.catalog.vocabulary import Concept
from mirror.query import concepts as vocabulary
from mirror.query.concepts import (
    BOUND,
    BRAND,
    COMPARISON,
    CONCEPT,
    COVERAGE,
    EFFICIENCY,
    FEATURE,
    FILLER,
    HINT,
    INCLUSION,
    KIND,
    SORT,
    TIER,
    TRADE,
    MemberMatch,
)
from mirror.query.ranking import RATING_WORDS, RankIntent, feature_written
from mirror.query.spelling import CORRECTED, SPLIT, UNKNOWN, Lexicon, is_vocabulary_word, resolve
from mirror.query.text import DIMENSIONS, MODEL, MONEY, NUMBER, POSTAL, WORD, Token, key, tokenize
from mirror.values.money import to_cents

# How far (in tokens) a price word reaches for its amount ("under about $5,000").
BOUND_REACH = 3


@dataclass(frozen=True)
class Recognised:
    """One concept the question names, and the words that named it."""

    slug: str
    words: tuple[str, ...]

    @property
    def concept(self) -> Concept:
        """The vocabulary's concept."""
        return vocabulary.BY_SLUG[self.slug]

    @property
    def label(self) -> str:
        """How an answer names it."""
        return self.concept.label

    @property
    def kind(self) -> str | None:
        """ "system" or "accessory" (None for a group whose members differ)."""
        return vocabulary.kind_of(self.slug)

    @property
    def trades(self) -> tuple[str, ...]:
        """Its trades (mirror.catalog.trades slugs), with those of the concepts under it."""
        return vocabulary.concept_trades(self.slug)


@dataclass(frozen=True)
class PriceIntent:
    """What the question says about price: an order, bounds (in cents)."""

    order: str | None = None  # "price_low" (cheapest first) or "price_high"
    max_cents: int | None = None
    min_cents: int | None = None
    words: tuple[str, ...] = ()

    @property
    def said(self) -> bool:
        """Whether the question says anything about price: an order or a bound."""
        return bool(self.order or self.max_cents is not None or self.min_cents is not None)


@dataclass(frozen=True)
class Correction:
    """A word read as other words: a misspelling corrected, or two words run together split."""

    typed: str
    meant: str
    how: str  # "corrected" or "split"


@dataclass(frozen=True)
class UnderstoodQuery:
    """What a question asks for. Every word of it is in exactly one of the fields that hold words."""

    text: str
    concepts: tuple[Recognised, ...] = ()
    trades: tuple[str, ...] = ()  # trades named as such ("plumber"), mirror.catalog.trades slugs
    kind: str | None = None  # "system" ("HVAC system", "installed system") or "accessory"
    sizes: tuple[Size, ...] = ()
    price: PriceIntent = field(default_factory=PriceIntent)
    tiers: tuple[str, ...] = ()  # mirror.catalog.trades.TIERS slugs ("best air conditioner", "good vs best")
    postal_code: str | None = None
    asks_coverage: bool = False  # "do you serve ...", "near ..."
    asks_comparison: bool = False  # "good vs best", "compare"
    asks_inclusion: bool = False  # "what is included", "includes"
    rank: RankIntent = field(default_factory=RankIntent)  # efficiency, a rating, features (mirror/query/ranking.py)
    keywords: tuple[str, ...] = ()  # matched as typed: brands, model numbers, other words
    ignored: tuple[str, ...] = ()  # words with no product meaning ("how much is a new ...")
    corrections: tuple[Correction, ...] = ()
    unrecognised: tuple[str, ...] = ()  # known to neither the vocabulary nor the catalog

    @property
    def asks_price(self) -> bool:
        """Whether it asks about price: an order, a bound, or a tier ("cheapest", "under $5k", "best")."""
        return self.price.said or bool(self.tiers)

    @property
    def has_subject(self) -> bool:
        """Whether it names anything to look for (a concept, trade, kind, size, tier, price or keyword)."""
        named = self.concepts or self.trades or self.kind or self.sizes or self.keywords
        return bool(named) or self.asks_price or self.rank.said

    @property
    def preferred_kind(self) -> str | None:
        """The kind of product asked for: said outright, the one kind of every concept named, or systems for a trade.

        A question naming only a trade ("plumbing", "hvac") asks for the trade's
        own work, the installed systems, before its parts.
        """
        if self.kind is not None:
            return self.kind
        if not self.concepts and self.trades:
            return SYSTEM
        kinds = {r.kind for r in self.concepts}
        return kinds.pop() if len(kinds) == 1 else None

    @property
    def all_trades(self) -> tuple[str, ...]:
        """The trades named, and those of the concepts named."""
        return tuple(dict.fromkeys((*self.trades, *(t for r in self.concepts for t in r.trades))))

    def concept_matches(self) -> tuple[tuple[MemberMatch, ...], ...]:
        """What a product must be, one entry per part of the question: each concept, each trade (of the kind).

        A product matches a part when it matches one of the part's members
        (mirror/query/concepts.py, `catalog_match`).
        """
        return tuple(members for _, members in self.concept_parts())

    def concept_parts(self) -> tuple[tuple[str | None, tuple[MemberMatch, ...]], ...]:
        """`concept_matches`, each part with the concept it names (None for a trade's part)."""
        parts: list[tuple[str | None, tuple[MemberMatch, ...]]] = [
            (r.slug, vocabulary.catalog_match(r.slug)) for r in self.concepts
        ]
        for trade in self.trades:
            members = [
                m for slug in vocabulary.trade_concepts(trade, self.kind) for m in vocabulary.catalog_match(slug)
            ]
            parts.append((None, tuple({m.slug: m for m in members}.values())))
        return tuple((slug, members) for slug, members in parts if members)


def understand(text: str, lexicon: Lexicon | None = None, *, check: Collection[str] | None = None) -> UnderstoodQuery:
    """What `text` asks for (see the module docstring).

    With a `lexicon`, the words neither the vocabulary nor the catalog knows
    are corrected or split where that is clear, and reported in
    `unrecognised` where it is not; `check` limits that to some words (the
    catalog search passes the words that found nothing).
    """
    tokens = tokenize(text)
    corrections: tuple[Correction, ...] = ()
    unrecognised: tuple[str, ...] = ()
    if lexicon is not None:
        tokens, corrections, unrecognised = _spell(tokens, lexicon, check)
    parsed = _Reader(tokens).read()
    return UnderstoodQuery(text=text, corrections=corrections, unrecognised=unrecognised, **parsed)


def _spell(tokens: list[Token], lexicon: Lexicon, check: Collection[str] | None):
    asked = [
        t.text
        for t in tokens
        if t.kind == WORD and len(t.text) >= 3 and not is_vocabulary_word(t.text) and (check is None or t.text in check)
    ]
    if not asked:
        return tokens, (), ()
    read = resolve(asked, lexicon)
    spelled: list[Token] = []
    corrections, unknown = [], []
    for token in tokens:
        resolution = read.get(token.text) if token.kind == WORD else None
        if resolution is None or resolution.how not in (CORRECTED, SPLIT):
            spelled.append(token)
            if resolution is not None and resolution.how == UNKNOWN:
                unknown.append(token.text)
            continue
        spelled.extend(Token(WORD, word) for word in resolution.meant)
        corrections.append(Correction(token.text, " ".join(resolution.meant), resolution.how))
    return spelled, tuple(dict.fromkeys(corrections)), tuple(dict.fromkeys(unknown))


class _Reader:
    """One left-to-right reading of a question's tokens."""

    def __init__(self, tokens: list[Token]):
        self.tokens = tokens
        self.keys = tuple(token.key for token in tokens)  # each word's comparison form, once
        self.concepts: dict[str, Recognised] = {}
        self.trades: list[str] = []
        self.kind: str | None = None
        self.sizes: list[Size] = []
        self.order: str | None = None
        self.bounds: dict[str, int] = {}
        self.price_words: list[str] = []
        self.tiers: list[str] = []
        self.comparison = False
        self.inclusion = False
        self.efficient = False
        self.ratings: list[tuple[str, tuple[str, ...]]] = []  # (quantity, its words)
        self.features: list[str] = []
        self.rank_words: list[str] = []
        self.postal_code: str | None = None
        self.coverage = False
        self.keywords: list[str] = []
        self.ignored: list[str] = []
        self.pending: tuple[str, int] | None = None  # a price word waiting for its amount, and where it was
        self.last_amount: tuple[int, int, bool] | None = None  # (cents, token index, bound by a word before it)

    def read(self) -> dict:
        i = 0
        while i < len(self.tokens):
            i = self._step(i)
        for size in self.sizes:
            implied = vocabulary_implied(size)
            if implied is not None and not any(implied in vocabulary.descendants(c) for c in self.concepts):
                self.concepts.setdefault(implied, Recognised(implied, size.words))
        for quantity, words in self.ratings:  # "highest AFUE": a furnace, as "96% AFUE" is
            implied = QUANTITIES[quantity].implies
            if implied is not None and not any(implied in vocabulary.descendants(c) for c in self.concepts):
                self.concepts.setdefault(implied, Recognised(implied, words))
        return {
            "concepts": tuple(self.concepts.values()),
            "trades": tuple(dict.fromkeys(self.trades)),
            "kind": self.kind,
            "sizes": tuple(dict.fromkeys(self.sizes)),
            "price": PriceIntent(self.order, self.bounds.get("max"), self.bounds.get("min"), tuple(self.price_words)),
            "tiers": tuple(dict.fromkeys(self.tiers)),
            "postal_code": self.postal_code,
            "asks_coverage": self.coverage,
            "asks_comparison": self.comparison,
            "asks_inclusion": self.inclusion,
            "rank": RankIntent(
                self.efficient,
                tuple(dict.fromkeys(quantity for quantity, _ in self.ratings)),
                tuple(dict.fromkeys(self.features)),
                tuple(self.rank_words),
            ),
            "keywords": tuple(dict.fromkeys(self.keywords)),
            "ignored": tuple(self.ignored),
        }

    # --- one token (or phrase) at a time ------------------------------------------

    def _step(self, i: int) -> int:
        token = self.tokens[i]
        if token.kind == POSTAL:
            self.postal_code = self.postal_code or token.text
            return i + 1
        if token.kind == DIMENSIONS:
            self.sizes.append(Size("filter_size", Decimal(0), (token.text,), token.text))
            return i + 1
        if token.kind == MONEY:
            self._amount(token.value, i, (token.text,))
            return i + 1
        if token.kind == NUMBER or token.text in NUMBER_WORDS:
            half = self._and_a_half(i)
            if half is not None:
                return half
        if token.kind == NUMBER:
            return self._number(i, token.value)
        if token.kind == MODEL:
            feature = feature_written(token.text)  # "2-stage"
            if feature is not None:
                self.features.append(feature)
                self.rank_words.append(token.text)
            else:
                self.keywords.append(token.text)
            return i + 1
        if token.text in NUMBER_WORDS and self._unit_at(i + 1) is not None:
            return self._number(i, Decimal(NUMBER_WORDS[token.text]))
        if token.text in UNIT_FIRST and self._kind_at(i + 1) == NUMBER:
            value = self.tokens[i + 1].value
            quantity = vocabulary.UNITS[(key(token.text),)][0]
            self.sizes.append(Size(quantity, value, (token.text, self.tokens[i + 1].text)))
            return i + 2
        if token.text in RATING_WORDS:  # a rating named without a number ("highest SEER2 AC"): rank by it
            self.ratings.append((RATING_WORDS[token.text], (token.text,)))
            self.rank_words.append(token.text)
            return i + 1
        return self._phrase(i)

    def _phrase(self, i: int) -> int:
        lengths = vocabulary.PHRASE_LENGTHS.get(self.keys[i], ())  # of the phrases this word starts, longest first
        words_here = self._words_from(i, lengths[0]) if lengths else 0
        for length in lengths:
            if length > words_here:
                continue
            meaning = vocabulary.PHRASES.get(self.keys[i : i + length])
            if meaning is not None:
                self._mean(meaning, tuple(t.text for t in self.tokens[i : i + length]), i)
                return i + length
        word = self.tokens[i].text
        if len(word) > 1:
            self.keywords.append(word)
        else:
            self.ignored.append(word)
        return i + 1

    def _mean(self, meaning, words: tuple[str, ...], i: int) -> None:
        role, value = meaning.role, meaning.value
        if role in (CONCEPT, HINT):
            self.concepts.setdefault(value, Recognised(value, words))
            if role == HINT:
                self.keywords.append(" ".join(words))
        elif role == BRAND:
            self.keywords.append(" ".join(words))
        elif role == TRADE:
            self.trades.append(value)
        elif role == KIND:
            self.kind = value
        elif role == SORT:
            self.order = value
            self.price_words.extend(words)
        elif role == BOUND:
            self.price_words.extend(words)
            if not self._bind_previous(value, i):
                self.pending = (value, i + len(words))
        elif role == TIER:
            self.tiers.append(value)
        elif role == COMPARISON:
            self.comparison = True
            self.ignored.extend(words)
        elif role == COVERAGE:
            self.coverage = True
            self.ignored.extend(words)
        elif role == INCLUSION:
            self.inclusion = True
            self.ignored.extend(words)
        elif role == EFFICIENCY:
            self.efficient = True
            self.rank_words.extend(words)
        elif role == FEATURE:
            self.features.append(value)
            self.rank_words.extend(words)
        elif role == FILLER:
            self.ignored.extend(words)

    # --- numbers --------------------------------------------------------------------

    def _number(self, i: int, value: Decimal | None) -> int:
        token = self.tokens[i]
        if value is None:
            self.ignored.append(token.text)
            return i + 1
        words = [token.text]
        j = i + 1
        dimensions = self._dimensions(i)
        if dimensions is not None:
            text, end = dimensions
            self.sizes.append(Size("filter_size", Decimal(0), tuple(t.text for t in self.tokens[i:end]), text))
            return end
        if self._kind_at(j) == WORD and self.tokens[j].text in MULTIPLIERS:
            value *= MULTIPLIERS[self.tokens[j].text]
            words.append(self.tokens[j].text)
            j += 1
        unit = self._unit_at(j)
        if unit is not None:
            (quantity, factor), length = unit
            words.extend(t.text for t in self.tokens[j : j + length])
            self.sizes.append(Size(quantity, value * factor, tuple(words), token.fraction))
            return j + length
        if self._kind_at(j) == WORD and self.tokens[j].text in CURRENCY_WORDS:
            self._amount(value, i, (*words, self.tokens[j].text))
            return j + 1
        if self.pending is not None and i - self.pending[1] < BOUND_REACH:
            self._amount(value, i, tuple(words))
            return j
        if len(token.text) == 5 and token.text.isdigit() and self.postal_code is None:
            self.postal_code = token.text
            return j
        self.keywords.append(token.text)
        return j

    def _and_a_half(self, i: int) -> int | None:
        """A size written "two and a half ton", "2 and a half tons": the number and a half, in its unit."""
        if self.keys[i + 1 : i + 4] != ("and", "a", "half") or self._unit_at(i + 4) is None:
            return None
        token = self.tokens[i]
        whole = token.value if token.kind == NUMBER else Decimal(NUMBER_WORDS[token.text])
        if whole is None:
            return None
        (quantity, factor), length = self._unit_at(i + 4)
        words = tuple(t.text for t in self.tokens[i : i + 4 + length])
        self.sizes.append(Size(quantity, (whole + Decimal("0.5")) * factor, words))
        return i + 4 + length

    def _dimensions(self, i: int) -> tuple[str, int] | None:
        """`16 x 25 x 1` written with spaces: the filter size and where it ends."""
        parts, j = [self.tokens[i].text], i + 1
        while len(parts) < 3 and self._kind_at(j) == WORD and self.tokens[j].text == "x":
            if self._kind_at(j + 1) != NUMBER:
                break
            parts.append(self.tokens[j + 1].text)
            j += 2
        return ("x".join(parts), j) if len(parts) >= 2 else None

    def _unit_at(self, j: int):
        for length in range(self._words_from(j, vocabulary.LONGEST_UNIT), 0, -1):
            meaning = vocabulary.UNITS.get(self.keys[j : j + length])
            if meaning is not None:
                return meaning, length
        return None

    def _amount(self, dollars: Decimal, i: int, words: tuple[str, ...]) -> None:
        cents = to_cents(dollars)
        self.price_words.extend(words)
        bound = None
        if self.pending is not None and i - self.pending[1] < BOUND_REACH:
            bound = self.pending[0]
        if bound == "between":
            self.bounds["min"] = cents
            self.pending = ("max", i + 1)  # the second amount of "between X and Y"
        else:
            self.pending = None
            self.bounds[bound or "max"] = cents  # an amount alone is a budget
            if bound is None and self._next_is_range(i + 1):
                self.bounds["min"] = cents
                self.bounds.pop("max")
                self.pending = ("max", i + 2)
        self.last_amount = (cents, i, bound is not None)

    def _next_is_range(self, j: int) -> bool:
        return (
            self._kind_at(j) == WORD
            and self.tokens[j].text in ("to", "and")
            and self._kind_at(j + 1)
            in (
                NUMBER,
                MONEY,
            )
        )

    def _bind_previous(self, bound: str, i: int) -> bool:
        """A price word right after an amount with no word of its own ("$500 or less") bounds that amount."""
        if self.last_amount is None or bound == "between":
            return False
        cents, at, bound_before = self.last_amount
        if bound_before or i - at > 1:
            return False
        self.bounds.pop("max", None)
        self.bounds[bound] = cents
        self.last_amount = (cents, at, True)
        return True

    def _kind_at(self, j: int) -> str | None:
        return self.tokens[j].kind if j < len(self.tokens) else None

    def _words_from(self, i: int, at_most: int) -> int:
        """How many words follow one another from token `i` on (counted up to `at_most`)."""
        count = 0
        while count < at_most and i + count < len(self.tokens) and self.tokens[i + count].kind == WORD:
            count += 1
        return count


def vocabulary_implied(size: Size) -> str | None:
    """The concept a size is about, when its unit says ("MERV 13", "16x25x1": an air filter)."""
    return QUANTITIES[size.quantity].implies
