"""Ranking by what was asked, declared once: efficiency, features, and each kind a question names.

    understand("most efficient furnace").rank           # RankIntent(efficient=True, words=("most", "efficient"))
    ratings_to_rank_by(understand("most efficient heat pump").rank, "heat-pump")   # ("hspf", "seer", "cop")
    stated_features("Honeywell Wi-Fi 7-Day Programmable Thermostat", {})     # ("wifi", "programmable")

What a question asks to rank by (`RankIntent`, read by the query step with
the rest of the question, mirror/query/understand.py):

- **efficiency** (the vocabulary's `EFFICIENCY_WORDS`: "most efficient",
  "energy efficient", "energy saving", "high efficiency", "Energy Star"):
  each kind of product by the rating it is judged by (`JUDGED_BY`: SEER2 for
  cooling, HSPF2 for heat pumps, AFUE for furnaces and boilers, UEF for
  water heaters), highest first; a product that does not state it, after
  those that do, by the kind's next rating (a heat pump's SEER2, for a
  catalog stating no HSPF2), then by its tier (Best first: a contractor's
  tiers rise with efficiency). A rating named without a number ("highest
  SEER2 AC", "AFUE furnace") ranks by that rating. The ratings are the
  products' stored measures (`products.measures`, read by the sync from the
  specs, else the name): no request reads them from text;
- **features** (the vocabulary's `FEATURES`: "wi-fi", "connected",
  "programmable", "variable speed", "two-stage", "modulating"): the products
  whose name or specs state one first. What a product states is read by the
  sync (`stated_features`, stored in `products.features`);
- **each kind named** ("furnace and heat pump"): every kind is answered, the
  best match of each first (mirror/read/catalog.py interleaves them), never
  nothing or one kind because no single product is both.

mirror/read/catalog.py orders by it (docs/search.md, "Ranking").
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache, lru_cache

from mirror.catalog import units
from mirror.catalog.vocabulary import FEATURES, Feature
from mirror.query.concepts import BY_SLUG, ancestors, descendants
from mirror.query.text import key, normalise

# The ratings each kind is judged by (units.QUANTITIES slugs), for it and the kinds under it, the first first: a
# question asking for the most efficient ranks by them, highest first (the next for a product not stating one).
JUDGED_BY: dict[str, tuple[str, ...]] = {
    "air-conditioner": ("seer", "eer"),
    "packaged-unit": ("seer", "eer"),
    "heat-pump": ("hspf", "seer", "cop"),
    "ductless-mini-split": ("hspf", "seer"),
    "geothermal": ("cop", "eer"),
    "furnace": ("afue",),
    "boiler": ("afue",),
    "water-heater": ("uef",),
}
# A rating's name without a number in a question ("highest SEER2 AC"): rank by it.
RATING_WORDS: dict[str, str] = {
    spelling: quantity
    for spelling, (quantity, _factor) in units.UNIT_PHRASES.items()
    if spelling in units.UNIT_FIRST and units.QUANTITIES[quantity].rating
}
FEATURES_BY_SLUG: dict[str, Feature] = {feature.slug: feature for feature in FEATURES}


def _check() -> None:
    for slug, quantities in JUDGED_BY.items():
        if slug not in BY_SLUG or not all(q in units.QUANTITIES and units.QUANTITIES[q].rating for q in quantities):
            raise ValueError(f"ranking: {slug} is judged by {quantities}, which must be a concept and ratings")


_check()


@dataclass(frozen=True)
class RankIntent:
    """What a question asks the results to be ranked by, beside price and tier."""

    efficient: bool = False  # "most efficient", "energy saving"...
    ratings: tuple[str, ...] = ()  # ratings named without a number ("highest SEER2"): units.QUANTITIES slugs
    features: tuple[str, ...] = ()  # FEATURES slugs ("wifi", "variable-speed")
    words: tuple[str, ...] = ()  # the words that said so

    @property
    def said(self) -> bool:
        """Whether the question asks for any of it."""
        return self.efficient or bool(self.ratings or self.features)

    @property
    def by_rating(self) -> bool:
        """Whether it asks for the best rated first (efficiency words, or a rating named)."""
        return self.efficient or bool(self.ratings)


def ratings_to_rank_by(rank: RankIntent, slug: str | None) -> tuple[str, ...]:
    """The ratings the products of concept `slug` (None: of no concept named) are ranked by, highest first.

    The ratings named win; else, for a question asking for efficiency, those the kind is judged by. None:
    not by a rating (nothing asked, or a kind judged by none, or a group of kinds judged differently:
    "heating"). A product stating none is ranked by its tier (mirror/read/catalog.py).
    """
    if rank.ratings:
        return rank.ratings
    if rank.efficient and slug is not None:
        return judged_by(slug)
    return ()


@cache
def judged_by(slug: str) -> tuple[str, ...]:
    """The ratings a concept is judged by: its own, else those of the kinds above it, else those every kind
    under it shares (a group of kinds judged differently, such as "heating", has none)."""
    if slug in JUDGED_BY:
        return JUDGED_BY[slug]
    above = {JUDGED_BY[other] for other in ancestors(slug) if other in JUDGED_BY}
    if len(above) == 1:
        return above.pop()
    below = {judged_by(member) for member in descendants(slug)[1:]} - {()}
    return below.pop() if len(below) == 1 and not above else ()


# --- what a catalog states: its products' features, read by the sync ------------------------

_WORD = re.compile(r"[a-z0-9]+")
_NO = frozenset({"", "no", "n", "false", "none", "n/a", "na", "0", "off", "without", "not available"})
_YES = frozenset({"yes", "y", "true", "included", "standard", "on"})


def _compact(words) -> str:
    return "".join(key(word) for word in words)


def _spellings() -> dict[str, str]:
    table: dict[str, str] = {}
    for feature in FEATURES:
        for phrase in (*feature.names, *feature.written):
            spelled = _compact(_WORD.findall(normalise(phrase)))
            held = table.setdefault(spelled, feature.slug)
            if held != feature.slug:
                raise ValueError(f"vocabulary: the feature spelling {phrase!r} means both {held} and {feature.slug}")
    return table


# Each feature's spellings, spaces and hyphens aside ("wi-fi", "wi fi" and "wifi" are one): word by word,
# plural `s` dropped.
SPELLINGS: dict[str, str] = _spellings()
_SPELLING_STARTS = frozenset(spelled[:end] for spelled in SPELLINGS for end in range(1, len(spelled) + 1))
_LONGEST = max(len(_WORD.findall(normalise(p))) for f in FEATURES for p in (*f.names, *f.written))


@lru_cache(maxsize=4096)
def feature_written(text: str) -> str | None:
    """The feature a question's chunk of letters and digits spells ("2-stage"), if any.

    Cached: the sync asks it of every numeric specs entry ("2 stages", "3 tonnage"), which repeat across a
    catalog's products."""
    return SPELLINGS.get(_compact(_WORD.findall(normalise(text))))


def stated_features(name: str, specs: dict | None) -> tuple[str, ...]:
    """The features a product's name or specs state, in FEATURES order (read by the sync, mirror/sync/facts.py).

    The specs state one by a key (`{"wifi": true}`, `{"programmable": "yes"}`), a count (`{"stages": 2}`:
    a number states a feature only with its key, whole, so `{"connected_load": 5}` states none), or a value (`{"compressor": "Variable speed"}`, `{"features": ["Wi-Fi"]}`); a key said no to
    (`{"wifi": false}`, `"no"`) states nothing.
    """
    found = set(_features_in(name or ""))
    for text in _spec_statements(specs if isinstance(specs, dict) else {}, 0):
        found.update(_statement_features(text))
    return tuple(feature.slug for feature in FEATURES if feature.slug in found)


def _features_in(text: str) -> frozenset[str]:
    """The features a text states: at each word, the longest run of words from it that spells one.

    A run grows only while it is the start of some spelling (`_SPELLING_STARTS`), so a name's ordinary words
    cost one set lookup each (the sync reads every product's name)."""
    words = [key(word) for word in _WORD.findall(normalise(text))]
    found = set()
    for i in range(len(words)):
        run, longest = "", None
        for word in words[i : i + _LONGEST]:
            run += word
            if run not in _SPELLING_STARTS:
                break
            longest = SPELLINGS.get(run, longest)
        if longest is not None:
            found.add(longest)
    return frozenset(found)


# A specs entry's statement ("variable speed compressor", "Wi-Fi") repeats across a catalog's products, where a
# name rarely does: the statements' readings are cached (the sync reads every product; 60% of its reading was here).
_statement_features = lru_cache(maxsize=8192)(_features_in)


def _spec_statements(specs: dict, depth: int) -> Iterator[str]:
    """Each specs entry as the text it states ("wifi", "2 stages", "variable speed compressor")."""
    for raw_key, value in specs.items():
        name = str(raw_key).replace("_", " ")
        if isinstance(value, bool):
            if value:
                yield name
        elif isinstance(value, (int, float)):  # a count or a flag, stating a feature whole ("2 stages")
            count = f"{int(value) if float(value).is_integer() else value} {name}" if value > 0 else ""
            if feature_written(count) or (value > 0 and feature_written(name)):
                yield count
        elif isinstance(value, str):
            said = value.strip().lower()
            if said in _YES:
                yield name
            elif said not in _NO:
                yield f"{value} {name}"
        elif isinstance(value, list):
            yield from (item for item in value if isinstance(item, str))
        elif isinstance(value, dict) and depth < 2:
            yield from _spec_statements(value, depth + 1)
