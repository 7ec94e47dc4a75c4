"""What a product is, in a homeowner's words: its size, efficiency and warranty, as the catalog states them.

This table is the one place the pricing page's (and pricing.json's) option
labels come from: "3 ton", "80,000 BTU", "16.2 SEER2", "96% AFUE", "50 gal",
"MERV 13", "16x25x1". Each row names a fact a catalog may state, the
`specs` keys it is stated under (taken from the one table of quantities and
their keys, mirror/catalog/units.py, which the search reads too), the pattern
a product name states it in, and how a label writes it.

The rules:
- a product's `specs` win over its name: the name is read only for what no
  `specs` key of the product states;
- a value the catalog does not state is never guessed, and a value is
  written with its own digits (19.0 is "19", 15.2 is "15.2"), never rounded;
- a value that is not a plain positive number (or, on the rows that take
  text, a fraction such as "1/2" or a filter's "16x25x1") is no label at
  all, so no contractor text ever becomes one.

A product has at most one size (the first size row it states, in table
order), one rating per efficiency measure (SEER2 before SEER; listed SEER,
EER, HSPF, AFUE, UEF, MERV, GPF) and at most one warranty.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import cached_property
from typing import Literal

from mirror.catalog.units import BTU_PER_TON, QUANTITIES

SIZE = "size"
EFFICIENCY = "efficiency"
WARRANTY = "warranty"
Role = Literal["size", "efficiency", "warranty"]

_NUMBER = r"(\d+(?:\.\d+)?)"
_GROUPED = r"(\d{1,3}(?:,\d{3})+|\d+)"  # 80,000 or 80000
_FRACTION_TEXT = r"\d+/\d+"  # a motor's 1/2 HP
_DIMENSIONS_TEXT = r"\d+(?:\.\d+)?x\d+(?:\.\d+)?x\d+(?:\.\d+)?"  # a filter's 16x25x1
# A label's number has at most this many digits before the point and after it:
# beyond, it is a typo in the catalog, not a size, and is not shown.
MAX_WHOLE_DIGITS = 9
MAX_DECIMALS = 4
# How many distinct values each row remembers the label of (a bound, whatever a catalog holds).
MAX_REMEMBERED_VALUES = 4096


@dataclass(frozen=True)
class Fact:
    """One fact a catalog may state about a product, where it states it and how a label writes it."""

    quantity: str  # what it measures (the search's quantity slug where it has one: capacity, seer, afue, ...)
    role: Role
    spec_keys: tuple[str, ...]  # the `specs` keys that state it, the first present wins
    name_pattern: str  # a regular expression whose first group is the value as a product name writes it
    hint: str | tuple[str, ...]  # lower-case text a name stating it contains (one of): the pattern runs only then
    label: str  # "{value} ton"
    grouped: bool = False  # thousands with commas ("80,000 BTU")
    text: str | None = None  # the text form a value may take besides a number (a fraction, dimensions)
    numeric: bool = True  # whether a plain number is a value of this fact at all

    @property
    def slot(self) -> str:
        """What a product has one of: its size, one rating per measure, its warranty."""
        return self.quantity if self.role == EFFICIENCY else self.role

    def from_specs(self, specs: dict) -> str | None:
        """The label of the first of this fact's `specs` keys with a value that can be one."""
        for key in self.spec_keys:
            label = self._label(specs.get(key))
            if label is not None:
                return label
        return None

    def from_name(self, name: str, lowered: str) -> str | None:
        """The label of the value a product name states, if it states one (`lowered`: the name in lower case)."""
        for hint in self._hints:  # a substring test is far cheaper than the pattern: most names fail it
            if hint in lowered:
                break
        else:
            return None
        found = self._pattern.search(name)
        return self._label(found.group(1).replace(",", "")) if found else None

    @cached_property
    def _hints(self) -> tuple[str, ...]:
        return (self.hint,) if isinstance(self.hint, str) else self.hint

    @cached_property
    def _pattern(self) -> re.Pattern:
        return re.compile(self.name_pattern, flags=re.IGNORECASE)

    def _label(self, value) -> str | None:
        if not isinstance(value, (int, float, str)):  # bool is an int: _value_text refuses it
            return None
        key = (type(value), value)
        labels = self._labels
        if key in labels:
            return labels[key]
        shown = self._value_text(value)
        label = None if shown is None else self.label.format(value=shown)
        if len(labels) < MAX_REMEMBERED_VALUES:
            labels[key] = label
        return label

    @cached_property
    def _labels(self) -> dict:
        # A catalog states the same few values again and again (3 ton, 16.2 SEER2): each is written once.
        return {}

    def _value_text(self, value) -> str | None:
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            return None
        if isinstance(value, str) and self.text and re.fullmatch(self.text, value.strip(), flags=re.IGNORECASE):
            return value.strip().lower()
        number = _plain_number(value) if self.numeric else None
        if number is None:
            return None
        return format(number, ",f" if self.grouped else "f")


def _plain_number(value) -> Decimal | None:
    """A positive finite number, without trailing zeros; None past the digits a label takes."""
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        return None
    if not number.is_finite() or number <= 0:
        return None
    number = number.normalize()
    if number.adjusted() >= MAX_WHOLE_DIGITS or number.as_tuple().exponent < -MAX_DECIMALS:
        return None
    return number.quantize(Decimal(1)) if number == number.to_integral_value() else number


def _spec_keys(quantity: str, *, factor: Decimal | None = None, only: str | None = None) -> tuple[str, ...]:
    """The `specs` keys mirror/catalog/units.py declares for a quantity (those of one `factor`, or the one key `only`)."""
    keys = tuple(
        key
        for key, key_factor in QUANTITIES[quantity].spec_keys
        if (factor is None or key_factor == factor) and (only is None or key == only)
    )
    if not keys:
        raise ValueError(f"mirror/catalog/units.py declares no such specs key for {quantity}")
    return keys


def _after_number(unit: str, not_followed_by: str = "") -> str:
    """The name pattern of a value written before its unit ("16.2 SEER2", "3-ton")."""
    return rf"\b{_NUMBER}[ -]?{unit}\b{not_followed_by}"


FACTS: tuple[Fact, ...] = (
    # Sizes: a product's one size is the first of these it states.
    Fact("capacity", SIZE, _spec_keys("capacity", factor=BTU_PER_TON), _after_number("tons?"), "ton", "{value} ton"),
    Fact(
        "capacity",
        SIZE,
        _spec_keys("capacity", factor=Decimal(1)),
        rf"\b{_GROUPED}[ -]?BTU",
        "btu",
        "{value} BTU",
        grouped=True,
    ),
    Fact(
        "gallons",
        SIZE,
        _spec_keys("gallons"),
        _after_number("(?:gallons?|gal)", r"(?!\s*per\b)"),  # not "1.6 gallons per flush"
        "gal",
        "{value} gal",
    ),
    Fact("gpm", SIZE, _spec_keys("gpm"), _after_number("GPM"), "gpm", "{value} GPM"),
    Fact(
        "horsepower",
        SIZE,
        _spec_keys("horsepower"),
        rf"\b({_FRACTION_TEXT}|\d+(?:\.\d+)?)[ -]?(?:HP|horsepower)\b",
        ("hp", "horsepower"),
        "{value} HP",
        text=_FRACTION_TEXT,
    ),
    Fact(
        "grains",
        SIZE,
        _spec_keys("grains"),
        rf"\b{_GROUPED}[ -]?grains?\b",
        "grain",
        "{value} grain",
        grouped=True,
    ),
    Fact(
        "filter_size",
        SIZE,
        _spec_keys("filter_size"),
        rf"\b({_DIMENSIONS_TEXT})\b",
        "x",
        "{value}",
        text=_DIMENSIONS_TEXT,
        numeric=False,
    ),
    # Efficiency ratings, in the order a label lists them.
    Fact("seer", EFFICIENCY, _spec_keys("seer", only="seer2"), _after_number("SEER2"), "seer2", "{value} SEER2"),
    Fact("seer", EFFICIENCY, _spec_keys("seer", only="seer"), _after_number("SEER", "(?!2)"), "seer", "{value} SEER"),
    Fact("eer", EFFICIENCY, _spec_keys("eer", only="eer2"), _after_number("EER2"), "eer2", "{value} EER2"),
    Fact("eer", EFFICIENCY, _spec_keys("eer", only="eer"), _after_number("EER", "(?!2)"), "eer", "{value} EER"),
    Fact("hspf", EFFICIENCY, _spec_keys("hspf", only="hspf2"), _after_number("HSPF2"), "hspf2", "{value} HSPF2"),
    Fact("hspf", EFFICIENCY, _spec_keys("hspf", only="hspf"), _after_number("HSPF", "(?!2)"), "hspf", "{value} HSPF"),
    Fact("afue", EFFICIENCY, _spec_keys("afue"), rf"\b{_NUMBER}\s?%\s?AFUE\b", "afue", "{value}% AFUE"),
    Fact("uef", EFFICIENCY, _spec_keys("uef", only="uef"), _after_number("UEF"), "uef", "{value} UEF"),
    Fact("merv", EFFICIENCY, _spec_keys("merv"), r"\bMERV[ -]?(\d+)\b", "merv", "MERV {value}"),
    Fact("gpf", EFFICIENCY, _spec_keys("gpf"), _after_number("GPF"), "gpf", "{value} GPF"),
    # The warranty, where a catalog's tiers differ by it (water heaters).
    Fact("warranty", WARRANTY, _spec_keys("warranty"), r"\b(\d+)[ -]?year warranty\b", "year", "{value}-year warranty"),
)


@dataclass(frozen=True)
class ProductFacts:
    """A product's labels: its one size, its efficiency ratings and its warranty, each only where stated."""

    size: str | None
    efficiency: tuple[str, ...]
    warranty: str | None


def product_labels(facts: ProductFacts) -> dict:
    """A product's facts as `products.labels` stores them (the sync writes them; mirror/sync/facts.py)."""
    return {"size": facts.size, "efficiency": list(facts.efficiency), "warranty": facts.warranty}


def stored_facts(labels: dict | None) -> ProductFacts:
    """The facts `products.labels` holds; none stated when it holds none (a row an older release wrote, until the
    next run reads it)."""
    labels = labels or {}
    return ProductFacts(
        size=labels.get("size"), efficiency=tuple(labels.get("efficiency") or ()), warranty=labels.get("warranty")
    )


def product_facts(specs: dict | None, name: str) -> ProductFacts:
    """The labels the catalog states for one product: from its `specs`, then its name for what they leave out."""
    specs = specs if isinstance(specs, dict) else {}
    name = name or ""
    lowered = name.lower()
    labels: dict[str, str] = {}  # slot -> label
    # Only the rows of the keys the specs have, in table order (a catalog states a few of the table's keys).
    for position in sorted({p for key in specs if key in _ROWS_BY_SPEC_KEY for p in _ROWS_BY_SPEC_KEY[key]}):
        fact, slot = _ROWS[position]
        if slot not in labels and (label := fact.from_specs(specs)) is not None:
            labels[slot] = label
    for fact, slot in _ROWS:
        if slot not in labels and (label := fact.from_name(name, lowered)) is not None:
            labels[slot] = label
    efficiency = tuple(labels[measure] for measure in _MEASURES if measure in labels)
    return ProductFacts(size=labels.get(SIZE), efficiency=efficiency, warranty=labels.get(WARRANTY))


_ROWS = tuple((fact, fact.slot) for fact in FACTS)
_ROWS_BY_SPEC_KEY: dict[str, tuple[int, ...]] = {
    key: tuple(position for position, fact in enumerate(FACTS) if key in fact.spec_keys)
    for key in {key for fact in FACTS for key in fact.spec_keys}
}
# The efficiency measures in the order a label lists them (the table's).
_MEASURES = tuple(dict.fromkeys(fact.quantity for fact in FACTS if fact.role == EFFICIENCY))
