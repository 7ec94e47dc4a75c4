"""What a catalog's product is, read once from everything its catalog says: its kinds, its sizes and ratings, and why.

    reading = read_product("Lennox Good HP & Air Handler, 2 ton", "HP & Air Handler", "hp-air-handler",
                           [], {"tonnage": 2, "seer2": 14}, ["hvac"])
    reading.kinds      # ('heat-pump', 'air-handler')
    reading.measures   # {'capacity': 24000, 'seer': 14}
    reading.features   # () ("Wi-Fi", "variable speed"...: what its name or specs state, mirror/query/ranking.py)

The sync reads every product it writes (mirror/sync/facts.py) and stores the
reading with it (`products.kinds`, `measures`, `kind_evidence`, migration
0011), so every search and answer reads the same facts and no request derives
a kind from text. The evidence, strongest first (docs/search.md, "What a
product is"):

1. its `specs` keys that identify a kind (mirror/catalog/units.py,
   IDENTIFIES): an HSPF or a COP is a heat pump, an AFUE a furnace, a UEF or a
   first-hour rating a water heater, a MERV or a filter size an air filter;
   a key read as a spec sheet writes it ("AFUE %", "SEER2 Rating", "Nominal
   Tons": `_spec_key`), a value with its unit ("16 SEER2", "80,000");
2. the vocabulary's names of a concept (and the typed spellings of those
   names, "heatpump", "furnce", and a catalog's misspelling of a name's word
   where it completes a name, "air hander": `_meant`) in its name, category
   name and slug and model numbers, longest first ("Furnace Filter" is a
   filter), and the identifying ratings its name states ("95% AFUE");
3. the trade's abbreviations in the same text (the vocabulary's
   `abbreviations`: "HP", "AH", "WH", "DMS"...), as whole tokens, where
   unambiguous among the contractor's trades: never right after a number
   ("1/2 HP" is a motor), only when the concepts it stands for that the
   contractor's trades sell are all of one of them, never against a name of
   another trade in the same product ("Mini Tank Electric Water Heater");
4. its `specs` keys (then the ratings its name states) that suggest a kind
   (SUGGESTS): a SEER or EER alone is an air conditioner, gallons a tank
   water heater; only when nothing above names a kind.

A quantity stated (by the specs or the name) whose first kind is narrower
than a kind read otherwise narrows it: a "Water Heater, 40 gal" is a tank
water heater (`NARROWS`).

Where they conflict, the specs win: a kind read from the text is overruled
when an identifying quantity rates it and the specs state identifying
quantities, none of which rates it (a "furnace" whose specs state an HSPF2
and no AFUE is a heat pump). The record (`evidence`, `overruled`) says which
evidence decided each kind; `flask --app wsgi products explain` prints it.

Sizes and ratings (`measures`, each in its quantity's unit: capacity in
BTU/h) come from the `specs` first, else from the name ("2.5T", "24K",
"60K BTU", "80 MBH", "40 gal", "96% AFUE"): a number in thousands with no unit
is a capacity (units.BARE_THOUSANDS).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import cache, lru_cache

from rapidfuzz import process
from rapidfuzz.distance import OSA

from mirror.catalog import units
from mirror.catalog.product_facts import FACTS
from mirror.catalog.trades import KNOWN_TRADES
from mirror.query.concepts import (
    ABBREVIATION_STARTS,
    ABBREVIATIONS,
    BY_SLUG,
    CATALOG_NAME_STARTS,
    CATALOG_NAMES,
    LONGEST_ABBREVIATION,
    LONGEST_UNIT,
    UNITS,
    VOCABULARY_KEYS,
    descendants,
    phrase_words,
)
from mirror.query.ranking import SPELLINGS, stated_features
from mirror.query.spelling import allowed_edits
from mirror.query.text import DIMENSIONS, NUMBER, WORD, Token, key, tokenize
from mirror.values.jsontext import decimal_number

# Where a piece of evidence was read.
SPECS, NAME, CATEGORY, SLUG, MODELS = "specs", "name", "category", "slug", "model numbers"
# How it says what the product is.
IDENTIFIES, SUGGESTS = units.IDENTIFIES, units.SUGGESTS
NAMED, SPELLED, ABBREVIATED, RATED, NARROWS = "name", "spelling", "abbreviation", "rating", "narrows"
# Change it with the reading's rules (not its tables, which the version digests): the next sync reads every
# product again (mirror/sync/facts.py).
# 2: a misspelt name word is read (`_meant`); 3: specs keys and values as spec sheets write them; 4: not in models;
# 5: the labels a page shows (products.labels: the facts' table and code)
RULES = 5

_SEPARATORS = re.compile(r"[^\w%/.]+|_")
_FILTER_SIZE = re.compile(r"\d+(?:\.\d+)?x\d+(?:\.\d+)?x\d+(?:\.\d+)?")


@dataclass(frozen=True)
class Evidence:
    """One thing the catalog says about what a product is."""

    kind: str  # a vocabulary concept slug
    source: str  # SPECS, NAME, CATEGORY, SLUG, MODELS
    said: str  # the words as the catalog writes them, or the specs key
    how: str  # IDENTIFIES, SUGGESTS, NAMED, SPELLED, ABBREVIATED, RATED
    by: str | None = None  # for an overruled one: the specs key that overruled it

    def as_list(self) -> list[str]:
        """The stored form (`products.kind_evidence`): [kind, source, said, how(, by)], compact, as rows carry it."""
        return [self.kind, self.source, self.said, self.how, *((self.by,) if self.by else ())]


@dataclass(frozen=True)
class ProductReading:
    """What a product is: its kinds (most specific concepts), its measures, its features, and the evidence for each
    kind."""

    kinds: tuple[str, ...]
    measures: dict[str, int | float | str] = field(default_factory=dict)
    evidence: tuple[Evidence, ...] = ()  # the evidence for the kinds kept
    overruled: tuple[Evidence, ...] = ()  # text the specs overruled
    features: tuple[str, ...] = ()  # what its name or specs state (mirror/query/ranking.py, FEATURES slugs)

    def evidence_record(self) -> dict:
        """`products.kind_evidence`: what decided the kinds, and what the specs overruled (`Evidence.as_list`
        each; the same words read again in another field, such as a slug repeating its category, once)."""
        return {"decided_by": _once(self.evidence), "overruled": _once(self.overruled)}


def _once(evidence: tuple[Evidence, ...]) -> list[list[str]]:
    seen: set[tuple] = set()
    kept = []
    for item in evidence:
        said = (item.kind, item.how, item.said.replace(" ", ""))
        if said not in seen:
            seen.add(said)
            kept.append(item.as_list())
    return kept


def read_product(
    name: str,
    category_name: str,
    category_slug: str,
    model_numbers: Sequence[str] | None,
    specs: dict | None,
    trades: Iterable[str] | None,
) -> ProductReading:
    """What a product is, by its catalog's words and specs (see the module docstring); `trades`: its contractor's."""
    specs = specs if isinstance(specs, dict) else {}
    trades = tuple(trades or ()) or KNOWN_TRADES
    spec_measures, spec_keys = _spec_measures(specs)
    texts = [(NAME, name or ""), (CATEGORY, category_name or ""), (SLUG, (category_slug or "").replace("-", " "))]
    texts += [(MODELS, model) for model in (model_numbers or ()) if isinstance(model, str)]
    read: list[Evidence] = []
    name_measures: dict[str, int | float | str] = {}
    for source, text in texts:
        evidence, measures = _read_text(source, text, trades)
        read += evidence
        if source == NAME:
            name_measures = dict(measures)
    read = _named_trades_win(read)
    read += _name_ratings(name_measures, spec_measures)
    measures = {**name_measures, **spec_measures}
    stated = _stated(spec_keys, name_measures)
    kinds, evidence, overruled = _decide(tuple(read), tuple(spec_keys.items()), tuple(stated))
    ordered = {q: measures[q] for q in units.QUANTITIES if q in measures}
    return ProductReading(kinds, ordered, evidence, overruled, stated_features(name, specs))


# --- the specs -------------------------------------------------------------------------


def _spec_measures(specs: dict) -> tuple[dict, dict[str, str]]:
    """Each quantity the specs state (in its unit), and the specs key each was read from (the quantity's first
    key, in units.py's order, with a usable value)."""
    measures: dict = {}
    keys: dict[str, str] = {}
    stated = sorted((found, k) for k in specs if isinstance(k, str) and (found := _spec_key(k)) is not None)
    for (_order, quantity, factor), spec_key in stated:
        if quantity.slug not in measures:
            value = _spec_value(quantity, specs[spec_key], factor)
            if value is not None:
                measures[quantity.slug], keys[quantity.slug] = value, spec_key
    return measures, keys


# Each specs key: (its place in units.py's tables, its quantity, its factor).
_SPEC_KEYS = {
    spec_key: (order, quantity, factor)
    for order, (quantity, spec_key, factor) in enumerate(
        (q, k, f) for q in units.QUANTITIES.values() for k, f in q.spec_keys
    )
}


_KEY_SEPARATORS = re.compile(r"[^a-z0-9]+")
# Known specs keys of more than one word ("first_hour_rating"), longest first: found inside a longer key.
_LONG_KEYS = sorted((tuple(k.split("_")) for k in _SPEC_KEYS if "_" in k), key=len, reverse=True)
# Unit words a specs key may hold ("Nominal Tons", "Tank Size (gal)"): the quantity and factor each stands for.
# Not "t" nor "%" (too short to tell a unit in a key) nor "hp" (a heat pump's key as often as a motor's).
_KEY_UNITS = {
    words[0]: meaning for words, meaning in UNITS.items() if len(words) == 1 and words[0] not in ("t", "%", "hp")
}


@lru_cache(maxsize=4096)
def _spec_key(raw_key: str) -> tuple | None:
    """(order, quantity, factor) of a catalog's specs key, written as a spec sheet writes it: the key itself
    ("seer2"); else lower case with punctuation as underscores ("AFUE %" -> afue, "Tank Gallons" ->
    tank_gallons); else a known key of several words inside it ("First Hour Rating (gal)"); else a unit word in
    it ("Nominal Tons", "SEER2 Rating", "Cooling Capacity (BTU/h)", "Tank Size (gal)"), when its unit words
    agree on one quantity. None for a key that names no quantity ("Color")."""
    if raw_key in _SPEC_KEYS:
        return _SPEC_KEYS[raw_key]
    words = tuple(w for w in _KEY_SEPARATORS.split(raw_key.lower()) if w)
    if not words:
        return None
    joined = "_".join(words)
    if joined in _SPEC_KEYS:
        return _SPEC_KEYS[joined]
    for long_key in _LONG_KEYS:
        if any(words[i : i + len(long_key)] == long_key for i in range(len(words) - len(long_key) + 1)):
            return _SPEC_KEYS["_".join(long_key)]
    meanings = [_KEY_UNITS[key(w)] for w in words if key(w) in _KEY_UNITS]
    if not meanings or len({quantity for quantity, _ in meanings}) > 1:
        return None
    quantity, factor = meanings[0]
    order = min(o for o, q, _f in _SPEC_KEYS.values() if q.slug == quantity)
    return order, units.QUANTITIES[quantity], Decimal(factor)


def _spec_value(quantity: units.Quantity, raw, factor: Decimal):
    if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
        return None
    return _value_of(quantity.slug, raw, factor)


@lru_cache(maxsize=8192, typed=True)  # a catalog's specs values repeat product after product (2, "3 Ton", 16.2)
def _value_of(quantity: str, raw: int | float | str, factor: Decimal):
    if quantity == "filter_size":
        text = str(raw).strip().lower().replace(" ", "")
        return text if _FILTER_SIZE.fullmatch(text) else None
    number = _number(raw)
    return None if number is None else decimal_number(number * factor)


_FIRST_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:/\d+)?|\.\d+")


def _number(raw) -> Decimal | None:
    """A positive finite number ("1/2" too), also written with its unit or thousands separators ("3 Ton",
    "96%", "80,000 BTU/h": the first number); None for anything else."""
    text = str(raw).strip()
    if isinstance(raw, str):
        found = _FIRST_NUMBER.search(text.replace(",", ""))
        if found is None:
            return None
        text = found.group()
    try:
        if "/" in text:
            top, bottom = text.split("/", 1)
            number = Decimal(top) / Decimal(bottom)
        else:
            number = Decimal(text)
    except (InvalidOperation, ValueError, ZeroDivisionError):
        return None
    return number if number.is_finite() and number > 0 else None


# --- the text ----------------------------------------------------------------------------


def _tokens(source: str, text: str) -> list[Token]:
    if source == MODELS:  # a model number's separators split it ("TWH-199": twh, 199); its words stay whole
        text = _SEPARATORS.sub(" ", text)
    return tokenize(text)


@lru_cache(maxsize=8192)  # a catalog repeats its category names, slugs and model numbers product after product
def _read_text(source: str, text: str, trades: tuple[str, ...]) -> tuple[tuple[Evidence, ...], tuple]:
    """The kinds one text names (names and spellings first, then the abbreviations left), and its sizes."""
    if source == MODELS and not _may_name(text):
        return (), ()
    tokens = _tokens(source, text)
    measures: dict = {}
    sized = _sizes(tokens, measures)
    if not any(t.kind == WORD and key(t.text) in ABBREVIATION_STARTS for t in tokens):  # nothing to expand
        words = [(t.text if t.kind == WORD and i not in sized else "", False, t.text) for i, t in enumerate(tokens)]
        return tuple(_named(source, words)), tuple(measures.items())
    named = {j for start, length, _ in _phrases(tokens, sized) for j in range(start, start + length)}
    expanded: list[tuple[str, bool, str]] = []  # (word, from an abbreviation, as written)
    i = 0
    while i < len(tokens):
        found = None if i in sized or i in named else _abbreviation_at(tokens, i, trades)
        if found is None:
            token = tokens[i]
            expanded.append((token.text if token.kind == WORD and i not in sized else "", False, token.text))
            i += 1
            continue
        length, slugs = found
        written = " ".join(t.text for t in tokens[i : i + length])
        for slug in slugs:
            expanded += [(word, True, written) for word in _expansion(slug)]
        i += length
    return tuple(_named(source, expanded)), tuple(measures.items())


_WORDS_OF_A_MODEL = re.compile(r"[^\W\d_]+")


def _may_name(model: str) -> bool:
    """Whether a model number holds a word that can start a name or an abbreviation (most hold none)."""
    return any(
        key(word) in CATALOG_NAME_STARTS or key(word) in ABBREVIATION_STARTS
        for word in _WORDS_OF_A_MODEL.findall(model.lower())
    )


@cache
def _expansion(slug: str) -> tuple[str, ...]:
    """The words an abbreviation of a concept is read as: its first name's."""
    return phrase_words(BY_SLUG[slug].names[0])


# A catalog's misspelling of a word of the vocabulary's names ("air hander", "mini splt") is read as that word, when
# it completes a name: a whole word of letters, at least this long, not a word the vocabulary knows, within the
# spelling step's edits (one; two from seven letters on) of exactly one name word at the least distance.
MIN_MISSPELT = 4
_NAME_WORDS = frozenset(
    key(w)
    for concept in BY_SLUG.values()
    for name in concept.names
    for w in phrase_words(name)
    if w.isalpha() and len(w) >= MIN_MISSPELT
)

_NAME_WORD_LIST = tuple(sorted(_NAME_WORDS))


@lru_cache(maxsize=8192)
def _meant(word_key: str) -> str | None:
    """The name word a catalog's word misspells, if it misspells exactly one (see MIN_MISSPELT)."""
    if len(word_key) < MIN_MISSPELT or not word_key.isalpha() or word_key in VOCABULARY_KEYS:
        return None
    limit = allowed_edits(word_key)
    # The spelling step's distance (mirror/query/text.py), over every name word in one call.
    near = process.extract(word_key, _NAME_WORD_LIST, scorer=OSA.distance, score_cutoff=limit, limit=None)
    best = min((distance for _, distance, _ in near), default=None)
    nearest = [word for word, distance, _ in near if distance == best]
    return nearest[0] if len(nearest) == 1 else None  # none near, or two as near: never guessed


def _named(source: str, words: list[tuple[str, bool, str]]) -> list[Evidence]:
    """The concepts the (expanded) words name, longest phrase first; a misspelt name word read as the word
    (`_meant`) only where it completes a name, and never in a model number (its letters are codes)."""
    found = []
    written_keys = [key(word) if word else "" for word, _, _ in words]
    keys = written_keys if source == MODELS else [(_meant(k) or k) if k else "" for k in written_keys]  # codes
    i = 0
    while i < len(words):
        longest = min(CATALOG_NAME_STARTS.get(keys[i], 0), len(words) - i)
        for length in range(longest, 0, -1):
            phrase = tuple(keys[i : i + length])
            slug = CATALOG_NAMES.get(phrase) if all(phrase) else None
            if slug is None:
                continue
            span = words[i : i + length]
            written = " ".join(dict.fromkeys(w for _, _, w in span))
            if any(a for _, a, _ in span):
                how = ABBREVIATED
            elif tuple(written_keys[i : i + length]) != phrase:
                how = SPELLED
            else:
                how = _how_named(slug, phrase)
            found.append(Evidence(slug, source, written, how))
            i += length
            break
        else:
            i += 1
    return found


def _how_named(slug: str, phrase: tuple[str, ...]) -> str:
    return NAMED if phrase in _name_keys(slug) else SPELLED


@cache
def _name_keys(slug: str) -> frozenset[tuple[str, ...]]:
    return frozenset(tuple(key(w) for w in phrase_words(name)) for name in BY_SLUG[slug].names)


def _phrases(tokens: list[Token], taken: set[int]):
    """(start, length, slug) of each catalog name in the tokens as written, longest first."""
    keys = [key(t.text) if t.kind == WORD else "" for t in tokens]
    i = 0
    while i < len(tokens):
        longest = min(CATALOG_NAME_STARTS.get(keys[i], 0), len(tokens) - i)
        for length in range(longest, 0, -1):
            phrase = tuple(keys[i : i + length])
            if not all(phrase) or any(j in taken for j in range(i, i + length)):
                continue
            slug = CATALOG_NAMES.get(phrase)
            if slug is not None:
                yield i, length, slug
                i += length
                break
        else:
            i += 1


def _abbreviation_at(tokens: list[Token], i: int, trades: tuple[str, ...]) -> tuple[int, tuple[str, ...]] | None:
    """(its length in tokens, the concepts it stands for) when an abbreviation the contractor's trades read
    starts at token `i`."""
    for length in range(min(LONGEST_ABBREVIATION, len(tokens) - i), 0, -1):
        span = tokens[i : i + length]
        if any(t.kind != WORD for t in span):
            continue
        slugs = ABBREVIATIONS.get(tuple(key(t.text) for t in span))
        if slugs is not None:
            read = _readable(slugs, trades)
            return (length, read) if read else None
    return None


def _readable(slugs: tuple[str, ...], trades: tuple[str, ...]) -> tuple[str, ...]:
    """The concepts an abbreviation stands for to a contractor of `trades`: those its trades sell, when they are
    all of one of its trades (else none: the abbreviation is ambiguous there)."""
    sold = [slug for slug in slugs if set(BY_SLUG[slug].trades) & set(trades)]
    shared = set(trades)
    for slug in sold:
        shared &= set(BY_SLUG[slug].trades)
    return tuple(sold) if sold and shared else ()


def _sizes(tokens: list[Token], measures: dict) -> set[int]:
    """The tokens that are sizes (a number and its unit: never an abbreviation), recorded in `measures`."""
    taken: set[int] = set()
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.kind == DIMENSIONS:
            _put(measures, "filter_size", token.text.replace(" ", ""))
            taken.add(i)
        elif token.kind == WORD and token.text in units.UNIT_FIRST and _kind(tokens, i + 1) == NUMBER:
            quantity, factor = UNITS[(key(token.text),)]
            _put(measures, quantity, _value(tokens[i + 1].value, factor))
            taken.update((i, i + 1))
            i += 1
        elif token.kind == NUMBER and token.value is not None:
            j, value = i + 1, token.value
            if _kind(tokens, j) == WORD and tokens[j].text in units.MULTIPLIERS:
                value, j = value * units.MULTIPLIERS[tokens[j].text], j + 1
            unit = _unit_at(tokens, j)
            if unit is not None:
                (quantity, factor), length = unit
                _put(measures, quantity, _value(value, factor))
                taken.update(range(i, j + length))
                i = j + length - 1
            elif token.text.endswith("k") or j > i + 1:  # "24K", "24 k": thousands of BTU/h
                _put(measures, units.BARE_THOUSANDS, _value(value, Decimal(1)))
                taken.update(range(i, j))
        i += 1
    return taken


def _unit_at(tokens: list[Token], j: int):
    for length in range(min(LONGEST_UNIT, len(tokens) - j), 0, -1):
        span = tokens[j : j + length]
        if any(t.kind != WORD for t in span):
            continue
        meaning = UNITS.get(tuple(key(t.text) for t in span))
        if meaning is not None:
            return meaning, length
    return None


def _value(value: Decimal | None, factor) -> int | float | None:
    return None if value is None or value <= 0 else decimal_number(value * factor)


def _put(measures: dict, quantity: str, value) -> None:
    if value is not None and quantity in units.QUANTITIES:
        measures.setdefault(quantity, value)


def _kind(tokens: list[Token], j: int) -> str | None:
    return tokens[j].kind if j < len(tokens) else None


def _name_ratings(name_measures: dict, spec_measures: dict) -> list[Evidence]:
    """The identifying and suggesting quantities the name states and the specs do not ("95% AFUE")."""
    found = []
    for slug, value in name_measures.items():
        quantity = units.QUANTITIES[slug]
        if quantity.evidence is not None and slug not in spec_measures:
            how = RATED if quantity.evidence == IDENTIFIES else SUGGESTS
            found.append(Evidence(quantity.kinds[0], NAME, f"{value} {quantity.unit}", how))
    return found


# --- deciding --------------------------------------------------------------------------------


def _named_trades_win(read: list[Evidence]) -> list[Evidence]:
    """Abbreviations never stand against a name of another trade read in the same product."""
    named = {t for e in read if e.how in (NAMED, SPELLED) for t in BY_SLUG[e.kind].trades}
    if not named:
        return read
    return [e for e in read if e.how != ABBREVIATED or set(BY_SLUG[e.kind].trades) & named]


@cache
def _rated_by(slug: str) -> frozenset[str]:
    """The identifying quantities that rate a concept (or a concept above it)."""
    return frozenset(q.slug for q in units.QUANTITIES.values() if q.evidence == IDENTIFIES and _covers(q, slug))


def _covers(quantity: units.Quantity, slug: str) -> bool:
    return any(slug in descendants(kind) for kind in quantity.kinds)


def _stated(spec_keys: dict[str, str], name_measures: dict) -> list[tuple[str, str, str]]:
    """(quantity, source, said) of each quantity the specs, then the name, state."""
    stated = [(q, SPECS, spec_key) for q, spec_key in spec_keys.items()]
    unit = units.QUANTITIES
    return stated + [(q, NAME, f"{v} {unit[q].unit}") for q, v in name_measures.items() if q not in spec_keys]


@lru_cache(maxsize=8192)  # products of a catalog are read alike: the same evidence, the same specs keys
def _decide(read: tuple[Evidence, ...], spec_items: tuple, stated_anywhere: tuple[tuple[str, str, str], ...]):
    """The kinds, the evidence for them, and what the specs overruled (see the module docstring)."""
    spec_keys = dict(spec_items)
    stated = [units.QUANTITIES[q] for q in spec_keys]
    identifying = {q.slug for q in stated if q.evidence == IDENTIFIES}
    kept, overruled = [], []
    for evidence in (e for e in read if e.how != SUGGESTS):
        rated = _rated_by(evidence.kind)
        if identifying and rated and not rated & identifying:
            by = next(spec_keys[q.slug] for q in stated if q.slug in identifying)
            overruled.append(Evidence(evidence.kind, evidence.source, evidence.said, evidence.how, by))
        else:
            kept.append(evidence)
    for quantity in (q for q in stated if q.slug in identifying):
        covered = [e.kind for e in kept if _covers(quantity, e.kind)]
        kept.append(Evidence(covered[0] if covered else quantity.kinds[0], SPECS, spec_keys[quantity.slug], IDENTIFIES))
    if not kept:  # nothing names a kind: what the specs (else the name's ratings) suggest
        suggested = [Evidence(q.kinds[0], SPECS, spec_keys[q.slug], SUGGESTS) for q in stated if q.evidence == SUGGESTS]
        kept = (suggested or [e for e in read if e.how == SUGGESTS])[:1]
    for slug, source, said in stated_anywhere:
        quantity = units.QUANTITIES[slug]
        narrower = quantity.kinds[0] if quantity.evidence else None
        if narrower and any(narrower != e.kind and narrower in descendants(e.kind) for e in kept):
            kept.append(Evidence(narrower, source, said, NARROWS))
    return _most_specific(dict.fromkeys(e.kind for e in kept)), tuple(kept), tuple(overruled)


def _narrower_in(slug: str, kinds: tuple[str, ...]) -> bool:
    return any(other != slug and other in descendants(slug) for other in kinds)


def _most_specific(kinds: dict) -> tuple[str, ...]:
    """The kinds without those a narrower one of them is (a tankless water heater is a water heater)."""
    return tuple(slug for slug in kinds if not _narrower_in(slug, tuple(kinds)))


# --- the rules' version ----------------------------------------------------------------------


@cache
def rules_version() -> str:
    """A digest of everything a reading depends on: it changes exactly when a stored reading could."""
    tables = [
        f"rules={RULES}",
        *(f"{' '.join(p)}={s}" for p, s in sorted(CATALOG_NAMES.items())),
        *(f"{' '.join(p)}={','.join(s)}" for p, s in sorted(ABBREVIATIONS.items())),
        *(f"{' '.join(p)}={m}" for p, m in sorted(UNITS.items())),
        *(f"{q.slug}:{q.spec_keys}:{q.kinds}:{q.evidence}" for q in units.QUANTITIES.values()),
        *(f"{c.slug}:{c.trades}:{c.parents}" for c in BY_SLUG.values()),
        f"{units.BARE_THOUSANDS}:{sorted(units.MULTIPLIERS.items())}:{sorted(units.UNIT_FIRST)}",
        *(f"feature {spelling}={slug}" for spelling, slug in sorted(SPELLINGS.items())),
        *(f"label {fact!r}" for fact in FACTS),  # products.labels (mirror/catalog/product_facts.py)
    ]
    return hashlib.md5("\n".join(tables).encode(), usedforsecurity=False).hexdigest()[:16]
