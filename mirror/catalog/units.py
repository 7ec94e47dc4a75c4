"""Sizes and ratings: the units people type, one normalised value each, and how a catalog states them.

A size in a question becomes one `Size`: a quantity, a value in that
quantity's unit, and the words it came from. Tons and BTU are one quantity,
cooling or heating capacity in BTU/h (1 ton = 12,000 BTU/h), so "24,000 BTU",
"24k btu", "2-ton" and "2 ton" are the same size. A catalog states a size in a
product's name ("3 ton", "80,000 BTU", "50-gallon", "16x25x1") or in its
`specs` ({"tonnage": 3}, {"btu": 80000}); `Size.name_phrases` and
`Quantity.spec_keys` say where to look, and the read layer looks in both.

Ratings (SEER, SEER2, HSPF, AFUE, UEF) are whole-number questions: "16 SEER"
matches a 16.2 SEER2 product (16 <= value < 17); other quantities match
exactly.

A quantity is also evidence of what a product is (`Quantity.kinds`,
`Quantity.evidence`), read by the sync (mirror/query/product_reading.py):
a product whose `specs` state an HSPF is a heat pump whatever its name
says (IDENTIFIES), one stating only a SEER is a cooling system when nothing
else says what it is (SUGGESTS), and a quantity's first kind narrows a
broader kind read otherwise (a "Water Heater" of 40 gallons is a tank water
heater). In a question, an identifying quantity
names its kind ("MERV 13" is an air filter, "96% AFUE" a furnace).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

CAPACITY = "capacity"
BTU_PER_TON = Decimal(12000)
# What stating a quantity says about a product's kind (`Quantity.evidence`):
IDENTIFIES = "identifies"  # it is one of the quantity's kinds, whatever its name says (the specs win)
SUGGESTS = "suggests"  # it is the quantity's first kind, when nothing else names a kind


@dataclass(frozen=True)
class Quantity:
    """What a size measures, the unit it is normalised to, and the `specs` keys a catalog states it under."""

    slug: str
    unit: str  # the normalised unit, as an answer writes it
    spec_keys: tuple[tuple[str, Decimal], ...]  # a spec key and its factor to `unit`
    rating: bool = False  # a whole number matches every value from it up to the next
    text_specs: bool = False  # specs may hold it as text ("1/2", "16x25x1")
    # The kinds of product (vocabulary concept slugs, each with the concepts under it) that state it, the one
    # it names first; and what stating it says of a product (IDENTIFIES, SUGGESTS, or None: nothing).
    kinds: tuple[str, ...] = ()
    evidence: str | None = None

    @property
    def implies(self) -> str | None:
        """The kind a question naming this quantity asks for ("MERV 13": an air filter), if it identifies one."""
        return self.kinds[0] if self.evidence == IDENTIFIES else None


_ONE = Decimal(1)
# The kinds a rating is stated for (mirror/catalog/vocabulary.py's slugs).
_COOLING = ("air-conditioner", "heat-pump", "ductless-mini-split", "geothermal", "packaged-unit")
_HEAT_PUMPS = ("heat-pump", "ductless-mini-split", "geothermal", "packaged-unit")
_BURNERS = ("furnace", "boiler", "packaged-unit")
QUANTITIES: dict[str, Quantity] = {
    q.slug: q
    for q in (
        Quantity(
            CAPACITY,
            "BTU/h",
            (
                ("tonnage", BTU_PER_TON),
                ("tons", BTU_PER_TON),
                ("ton", BTU_PER_TON),
                ("btu", _ONE),
                ("btuh", _ONE),
                ("btu_per_hour", _ONE),
                ("capacity_btu", _ONE),
                ("cooling_btu", _ONE),
                ("heating_btu", _ONE),
            ),
        ),
        # SEER and EER rate whatever cools; without a heating rating, a cooling system is an air conditioner.
        Quantity("seer", "SEER", (("seer2", _ONE), ("seer", _ONE)), rating=True, kinds=_COOLING, evidence=SUGGESTS),
        Quantity(
            "hspf", "HSPF", (("hspf2", _ONE), ("hspf", _ONE)), rating=True, kinds=_HEAT_PUMPS, evidence=IDENTIFIES
        ),
        Quantity("cop", "COP", (("cop", _ONE),), rating=True, kinds=_HEAT_PUMPS, evidence=IDENTIFIES),
        Quantity("eer", "EER", (("eer2", _ONE), ("eer", _ONE)), rating=True, kinds=_COOLING, evidence=SUGGESTS),
        Quantity("afue", "% AFUE", (("afue", _ONE),), rating=True, kinds=_BURNERS, evidence=IDENTIFIES),
        Quantity(
            "uef", "UEF", (("uef", _ONE), ("ef", _ONE)), rating=True, kinds=("water-heater",), evidence=IDENTIFIES
        ),
        Quantity(
            "first_hour_rating",
            "gal/h",
            (("first_hour_rating", _ONE), ("fhr", _ONE)),
            kinds=("water-heater",),
            evidence=IDENTIFIES,
        ),
        Quantity("merv", "MERV", (("merv", _ONE),), kinds=("air-filter",), evidence=IDENTIFIES),
        Quantity(
            "gallons",
            "gal",
            (("gallons", _ONE), ("capacity_gallons", _ONE), ("tank_gallons", _ONE)),
            kinds=("tank-water-heater",),  # a water heater that holds gallons has a tank
            evidence=SUGGESTS,
        ),
        Quantity("gpm", "GPM", (("gpm", _ONE), ("flow_gpm", _ONE), ("max_gpm", _ONE))),
        Quantity("horsepower", "HP", (("hp", _ONE), ("horsepower", _ONE)), text_specs=True),
        Quantity("grains", "grains", (("grains", _ONE), ("grain_capacity", _ONE))),
        Quantity("amps", "A", (("amps", _ONE), ("amperage", _ONE))),
        Quantity(
            "filter_size",
            "in",
            (("size", _ONE), ("filter_size", _ONE)),
            text_specs=True,
            kinds=("air-filter",),
            evidence=IDENTIFIES,
        ),
        # Stated by catalogs (toilets, water heaters) and shown on the pricing page (mirror/catalog/product_facts.py).
        Quantity("gpf", "GPF", (("gpf", _ONE),), rating=True),
        Quantity("warranty", "years", (("warranty_years", _ONE),)),
        # A house's floor area: understood, but no catalog states it.
        Quantity("floor_area", "sq ft", ()),
    )
}

# The unit phrases that may follow a number, and the factor to the quantity's unit.
UNIT_PHRASES: dict[str, tuple[str, Decimal]] = {
    "ton": (CAPACITY, BTU_PER_TON),
    "tons": (CAPACITY, BTU_PER_TON),
    "tonnage": (CAPACITY, BTU_PER_TON),
    "t": (CAPACITY, BTU_PER_TON),
    "btu": (CAPACITY, _ONE),
    "btus": (CAPACITY, _ONE),
    "btuh": (CAPACITY, _ONE),
    "btu h": (CAPACITY, _ONE),
    "btu hr": (CAPACITY, _ONE),
    "btu per hour": (CAPACITY, _ONE),
    "mbh": (CAPACITY, Decimal(1000)),  # thousands of BTU/h, as equipment sheets write them ("60 MBH")
    "seer": ("seer", _ONE),
    "seer2": ("seer", _ONE),
    "hspf": ("hspf", _ONE),
    "hspf2": ("hspf", _ONE),
    "eer": ("eer", _ONE),
    "eer2": ("eer", _ONE),
    "afue": ("afue", _ONE),
    "%": ("afue", _ONE),
    "% afue": ("afue", _ONE),
    "percent": ("afue", _ONE),
    "percent afue": ("afue", _ONE),
    "uef": ("uef", _ONE),
    "ef": ("uef", _ONE),
    "merv": ("merv", _ONE),
    "gallon": ("gallons", _ONE),
    "gallons": ("gallons", _ONE),
    "gal": ("gallons", _ONE),
    "gals": ("gallons", _ONE),
    "gpm": ("gpm", _ONE),
    "gallons per minute": ("gpm", _ONE),
    "gallon per minute": ("gpm", _ONE),
    "hp": ("horsepower", _ONE),
    "horsepower": ("horsepower", _ONE),
    "horse power": ("horsepower", _ONE),
    "grain": ("grains", _ONE),
    "grains": ("grains", _ONE),
    "amp": ("amps", _ONE),
    "amps": ("amps", _ONE),
    "sq ft": ("floor_area", _ONE),
    "sqft": ("floor_area", _ONE),
    "square feet": ("floor_area", _ONE),
    "square foot": ("floor_area", _ONE),
}
# Units people also write before the number ("MERV 13", "SEER 16").
UNIT_FIRST = frozenset({"merv", "seer", "seer2", "afue", "uef", "hspf", "hspf2"})
# Words that multiply the number before them ("24 thousand BTU", "5 grand").
MULTIPLIERS = {"k": Decimal(1000), "thousand": Decimal(1000), "grand": Decimal(1000)}
# A catalog's number in thousands with no unit ("DMS, 24K", "furnace 80k") is a capacity: the trades size
# equipment in thousands of BTU/h (a question's "24k" alone stays a number: it may be a budget).
BARE_THOUSANDS = CAPACITY
CURRENCY_WORDS = frozenset({"dollar", "dollars", "buck", "bucks", "usd"})
NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "half": Decimal("0.5"),
}


@dataclass(frozen=True)
class Size:
    """One size or rating a question names, normalised."""

    quantity: str  # a QUANTITIES slug
    value: Decimal  # in the quantity's unit (BTU/h for capacity)
    words: tuple[str, ...]  # what was typed
    text: str | None = None  # a size written as text: "16x25x1", "1/2"

    @property
    def unit(self) -> str:
        """The normalised unit."""
        return QUANTITIES[self.quantity].unit

    @property
    def label(self) -> str:
        """How an answer writes it: "2 ton (24,000 BTU/h)", "16 SEER", "16x25x1"."""
        if self.text is not None and self.quantity == "filter_size":
            return self.text
        number = _plain(self.value)
        if self.quantity == CAPACITY:
            tons = self.value / BTU_PER_TON
            shown = f"{int(self.value):,} BTU/h"
            return f"{_plain(tons)} ton ({shown})" if (tons * 2) == (tons * 2).to_integral_value() else shown
        if self.quantity == "horsepower" and self.text:
            return f"{self.text} HP"
        if self.quantity == "merv":
            return f"MERV {number}"
        return f"{number} {self.unit}"

    def bounds(self) -> tuple[Decimal, Decimal]:
        """[low, high) of the values (in the unit) that match this size."""
        if QUANTITIES[self.quantity].rating and self.value == self.value.to_integral_value():
            return self.value, self.value + 1
        epsilon = Decimal("0.001")
        return self.value - epsilon, self.value + epsilon

    def spec_texts(self) -> tuple[str, ...]:
        """The text forms a `specs` value may hold this size in ("1/2", "16x25x1")."""
        if not QUANTITIES[self.quantity].text_specs:
            return ()
        if self.quantity == "filter_size":
            return (self.text,) if self.text and self.text.count("x") == 2 else ()
        forms = {self.text or _plain(self.value), _plain(self.value)}
        return tuple(sorted(f for f in forms if f))

    def name_phrases(self) -> tuple[tuple[str, ...], ...]:
        """The phrases a product name states this size in, as index words ("3 ton" -> ("3", "ton"))."""
        value = self.value
        if self.quantity == CAPACITY:
            return _capacity_phrases(value)
        if self.quantity == "filter_size":
            # A face size alone ("16x25") names every depth: a prefix of the index's word.
            text = self.text or ""
            return ((text if text.count("x") == 2 else f"{text}x*",),)
        if self.quantity == "horsepower":
            forms = [_number_words(self.text)] if self.text else []
            forms.append(_number_words(_plain(value)))
            return tuple((*form, unit) for form in forms for unit in ("hp", "horsepower"))
        units = {
            "seer": ("seer", "seer2"),
            "hspf": ("hspf", "hspf2"),
            "eer": ("eer", "eer2"),
            "afue": ("afue",),
            "uef": ("uef",),
            "gallons": ("gallon", "gal"),
            "gpm": ("gpm",),
            "grains": ("grain",),
            "amps": ("amp",),
        }.get(self.quantity, ())
        numbers = [_number_words(_plain(value))]
        if value == value.to_integral_value() and self.quantity in ("gpm", "uef"):
            numbers.append((_plain(value), "0"))  # "11.0 GPM"
        phrases = [(*number, unit) for number in numbers for unit in units]
        if self.quantity == "merv":
            phrases = [("merv", _plain(value)), (_plain(value), "merv")]
        if self.quantity == "grains" and value >= 1000:
            phrases += [(*_thousands(value), "grain"), (f"{_plain(value / 1000)}k", "grain")]
        return tuple(phrases)


def _plain(value: Decimal) -> str:
    """2, 2.5, 0.93: no exponent, no trailing zeros."""
    text = format(value.normalize(), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def _number_words(text: str) -> tuple[str, ...]:
    """How the index splits a number: "2.5" -> ("2", "5"), "1/2" -> ("1", "2")."""
    return tuple(part for part in text.replace("/", " ").replace(".", " ").split() if part)


def _thousands(value: Decimal) -> tuple[str, ...]:
    """80000 as the index splits "80,000": ("80", "000")."""
    return tuple(f"{int(value):,}".split(","))


def _capacity_phrases(btu: Decimal) -> tuple[tuple[str, ...], ...]:
    phrases: list[tuple[str, ...]] = []
    tons = btu / BTU_PER_TON
    if tons * 2 == (tons * 2).to_integral_value() and tons > 0:
        phrases += [(*_number_words(_plain(tons)), "ton")]
    if btu == btu.to_integral_value():
        phrases += [(_plain(btu), "btu"), (*_thousands(btu), "btu")]
        if btu % 1000 == 0:
            phrases += [(f"{int(btu) // 1000}k", "btu"), (str(int(btu) // 1000), "k", "btu")]
    return tuple(dict.fromkeys(phrases))
