"""The words a pricing page is made of, explained once: ratings, units and trade abbreviations.

A homeowner reads "HP & Air Handler", "16.2 SEER2 · 96% AFUE", "3 ton" and
cannot tell what they mean. Each entry here is one such word as a page
writes it (`term`), the one line that explains it (`meaning`), and, for an
abbreviation of what a contractor installs ("HP", "A/C", "AH"), the plain
words it stands for (`words`), which are the search vocabulary's labels
(mirror/catalog/vocabulary.py) or a trade's title (mirror/catalog/trades.py), never a
second spelling of them.

Every surface that explains these words reads this table: pricing.json's
`glossary` (the terms its category names, option names, sizes and
efficiency labels use, in order of first appearance) and each category's
`plain_name` (mirror/catalog/public_view.py), the hosted page's `<abbr>` marks and
its "What these words mean" list (feeds/pages.py), and through pricing.json
the WordPress plugin. Matching is by whole token and by letter case where it
matters: "HP" in "HP & Air Handler" is a heat pump, while "1/2 HP" (after a
number) and "hp" are horsepower; "SEER" never matches inside "SEER2".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache

from mirror.catalog.trades import TRADES
from mirror.catalog.vocabulary import CONCEPTS

_LABELS = {concept.slug: concept.label for concept in CONCEPTS}


def _label(slug: str) -> str:
    """A vocabulary concept's label ("heat pump"): what an abbreviation of it stands for."""
    return _LABELS[slug]


@dataclass(frozen=True)
class Term:
    """One word a page may show, and what it means."""

    term: str  # as pricing.json names it: "SEER2", "HP", "ton"
    meaning: str  # one line, for a homeowner
    forms: tuple[str, ...] = ()  # the exact spellings matched (letter case counts); () means just `term`
    words: str | None = None  # the plain words an abbreviation of a kind of equipment stands for: "heat pump"
    after_number: bool | None = None  # True: only right after a number ("1/2 HP"); False: never there; None: either

    @property
    def spellings(self) -> tuple[str, ...]:
        """Every spelling this entry matches."""
        return self.forms or (self.term,)


_AIR_CONDITIONER = "Air conditioner: the outdoor unit that cools your home by pumping heat out of it."
TERMS: tuple[Term, ...] = (
    # --- efficiency ratings -----------------------------------------------------------------------
    Term(
        "SEER2",
        "Seasonal Energy Efficiency Ratio, by the stricter 2023 test: how efficiently an air conditioner "
        "or heat pump cools over a summer. Higher uses less electricity; 14.3 is today's minimum in most states.",
    ),
    Term(
        "SEER",
        "Seasonal Energy Efficiency Ratio (the pre-2023 test): how efficiently an air conditioner or heat "
        "pump cools over a summer. Higher uses less electricity.",
    ),
    Term(
        "EER2",
        "Energy Efficiency Ratio, by the 2023 test: how efficiently a system cools on a very hot day. Higher is better.",
    ),
    Term("EER", "Energy Efficiency Ratio: how efficiently a system cools on a very hot day. Higher is better."),
    Term(
        "HSPF2",
        "Heating Seasonal Performance Factor, by the 2023 test: how efficiently a heat pump heats over a "
        "winter. Higher uses less electricity.",
    ),
    Term(
        "HSPF",
        "Heating Seasonal Performance Factor: how efficiently a heat pump heats over a winter. Higher uses "
        "less electricity.",
    ),
    Term(
        "AFUE",
        "Annual Fuel Utilization Efficiency: the share of its fuel a furnace or boiler turns into heat for "
        "your home. 96% AFUE wastes 4 cents of every fuel dollar.",
    ),
    Term("UEF", "Uniform Energy Factor: how efficiently a water heater uses its energy. Higher costs less to run."),
    Term(
        "MERV",
        "Minimum Efficiency Reporting Value: how fine the dust and pollen an air filter catches, from 1 to "
        "16. Higher catches more; 8 to 13 suits most homes.",
    ),
    Term("GPF", "Gallons per flush: the water a toilet uses each flush. Lower saves water; 1.28 or less is efficient."),
    # --- sizes and units ----------------------------------------------------------------------------
    Term(
        "ton",
        "A measure of cooling power, not weight: one ton removes 12,000 BTU of heat an hour. Most homes "
        "need 2 to 5 tons.",
        forms=("ton", "tons", "Ton", "Tons", "TON", "TONS"),
    ),
    Term(
        "BTU",
        "British thermal unit, a measure of heat: a furnace's size is the BTU of heat it makes in an hour.",
        forms=("BTU", "BTUs", "Btu", "BTUH", "BTUh", "Btuh"),
    ),
    Term("MBH", "A thousand BTU an hour: 80 MBH is 80,000 BTU of heat an hour.", forms=("MBH", "MBh")),
    Term("gal", "Gallons: how much hot water a tank holds.", forms=("gal",)),
    Term("GPM", "Gallons per minute: how much hot water a tankless heater can deliver at once."),
    Term(
        "grain",
        "Grains of hardness: how much hardness a water softener removes before it recharges itself.",
        forms=("grain", "grains"),
    ),
    Term("HP", "Horsepower: the power of a pump's or a disposal's motor.", forms=("HP", "hp", "Hp"), after_number=True),
    # --- what a contractor installs -----------------------------------------------------------------
    Term(
        "HP",
        "Heat pump: one outdoor unit that cools your home in summer and heats it in winter, by moving heat "
        "rather than burning fuel.",
        words=_label("heat-pump"),
        after_number=False,
    ),
    Term("A/C", _AIR_CONDITIONER, words=_label("air-conditioner")),
    Term("AC", _AIR_CONDITIONER, words=_label("air-conditioner"), after_number=False),
    Term(
        "AH",
        "Air handler: the indoor unit with the blower that moves heated or cooled air through your ducts.",
        words=_label("air-handler"),
        after_number=False,
    ),
    Term(
        "AHU",
        "Air handling unit: the indoor unit with the blower that moves heated or cooled air through your ducts.",
        words=_label("air-handler"),
    ),
    Term(
        "RTU",
        "Rooftop unit: heating and cooling in one cabinet outside, on the roof or a pad.",
        words=_label("packaged-unit"),
    ),
    Term(
        "HPWH",
        "Heat pump water heater: a water heater that uses a small heat pump, so it costs far less to run.",
        words=_label("heat-pump-water-heater"),
    ),
    Term(
        "HVAC",
        "Heating, ventilation and air conditioning: the systems that heat, cool and move the air in your home.",
        words=TRADES["hvac"].title.replace("&", "and").lower(),
    ),
    Term("IAQ", "Indoor air quality: filters, purifiers and humidity control for the air inside your home."),
    Term("UV", "Ultraviolet light: a lamp in the ductwork that kills germs and mold in the air passing it."),
    Term("GFCI", "Ground-fault circuit interrupter: an outlet or breaker that cuts power at once to prevent shocks."),
    Term(
        "AFCI", "Arc-fault circuit interrupter: a breaker that cuts power when damaged wiring sparks, to prevent fires."
    ),
    Term("EV", "Electric vehicle: an EV charger charges an electric car at home.", after_number=False),
)

# A token may not continue a word: a letter before it, or a letter or digit after it, makes no match
# ("SEER" in "SEER2", "AC" in "ACC-FLT"). A number may stand right before a unit ("3ton").
_BEFORE = r"(?<![A-Za-z])"
_AFTER = r"(?![A-Za-z0-9])"
# Right after a number: "1/2 HP", "3-ton", "80,000 BTU", "96%".
_NUMBER_BEFORE = re.compile(r"\d%?[ -]?$")
_NUMBER_BEFORE_CHARS = 3  # the longest text _NUMBER_BEFORE matches: a digit, "%" and a space or hyphen


@cache
def _pattern() -> re.Pattern:
    spellings = sorted({s for term in TERMS for s in term.spellings}, key=len, reverse=True)
    return re.compile(_BEFORE + "(" + "|".join(re.escape(s) for s in spellings) + ")" + _AFTER)


@cache
def _entries(spelling: str) -> tuple[Term, ...]:
    return tuple(term for term in TERMS if spelling in term.spellings)


@lru_cache(maxsize=65536)  # labels repeat across every catalog ("16 SEER2", "3 ton"): each is read once
def terms_in(text: str) -> tuple[tuple[int, int, Term], ...]:
    """Each glossary word of `text`, in order: (start, end, its entry)."""
    found = []
    for match in _pattern().finditer(text or ""):
        # _NUMBER_BEFORE matches at most three characters: the ones right before the word are enough
        # (searching the whole text before it scanned it from its start, once per word found).
        after_number = bool(_NUMBER_BEFORE.search(text[max(0, match.start() - _NUMBER_BEFORE_CHARS) : match.start()]))
        for term in _entries(match.group(1)):
            if term.after_number is None or term.after_number == after_number:
                found.append((match.start(), match.end(), term))
                break
    return tuple(found)


def glossary(texts: Iterable[str | None]) -> list[Term]:
    """The entries the texts use, each once, in order of first appearance."""
    seen: dict[Term, None] = {}
    for text in texts:
        for _start, _end, term in terms_in(text or ""):
            seen.setdefault(term, None)
    return list(seen)


def plain_name(name: str) -> str | None:
    """A category name in plain words when it abbreviates what it is ("HP & Air Handler": "Heat pump and air
    handler"), else None. The contractor's own name stays as written; this goes beneath it.
    """
    found = [(start, end, term) for start, end, term in terms_in(name) if term.words]
    if not found:
        return None
    parts, position = [], 0
    for start, end, term in found:
        parts.append(_lowered_words(name[position:start]))
        parts.append(term.words)
        position = end
    parts.append(_lowered_words(name[position:]))
    plain = " ".join("".join(parts).replace("&", " and ").split())
    return plain[:1].upper() + plain[1:]


def _lowered_words(text: str) -> str:
    """Title-case words in lower case ("Air Handler": "air handler"); abbreviations and other words as written."""
    return re.sub(r"\b[A-Z][a-z]+\b", lambda word: word.group(0).lower(), text)
