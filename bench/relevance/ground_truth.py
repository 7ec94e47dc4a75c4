"""The ground truth: one list of products whose true kind, size, ratings, tier, price and brand are known.

Written here by hand (the lines below) and expanded with a fixed seed (brands
and the price noise); never read from mirror/ or demo/, so the truth owes
nothing to the words the search knows. Every catalog style (styles.py)
renders these same products; the judge (judge.py) grades a search result by
the product it stands for, looked up by SKU.

Kinds (`Truth.kind`): central_ac, heat_pump (a ducted heat pump with its air
handler), ac_furnace (an A/C with a gas furnace), furnace, air_handler (sold
alone), mini_split, tank_wh, tankless_wh, hp_wh (a hybrid heat-pump water
heater), air_filter, thermostat. The catalog's largest central A/C is 4 ton
on purpose (the issue's "5 ton AC" question).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

SEED = 34
TIERS = ("good", "better", "best")
TIER_PRICE = {"good": 1.0, "better": 1.2, "best": 1.48}


@dataclass(frozen=True)
class Truth:
    """One product as it really is: what the judge reads, whatever a catalog calls it."""

    sku: str
    kind: str
    tier: str | None
    brand: str
    price: float
    tons: float | None = None  # cooling / heat-pump capacity
    btu: int | None = None  # heating input, or a mini-split's / tankless heater's capacity
    gallons: int | None = None
    merv: int | None = None
    ratings: dict = field(default_factory=dict)  # seer2, hspf2, afue, uef: the product's true figures
    fuel: str | None = None  # gas / electric for water heaters and furnaces
    features: tuple = ()  # wifi, programmable, variable_speed, two_stage
    filter_size: str | None = None


# The brands a kind may be sold under; the seed picks one per kind (thermostats: one per model).
_BRANDS = {
    "central_ac": ("Goodman", "Carrier", "Lennox", "Trane"),
    "heat_pump": ("Goodman", "Carrier", "Lennox", "Trane"),
    "ac_furnace": ("Amana", "Rheem", "Bryant"),
    "furnace": ("Goodman", "Carrier", "Lennox", "Trane"),
    "air_handler": ("Goodman", "Carrier", "Lennox"),
    "mini_split": ("Mitsubishi", "Fujitsu", "Daikin"),
    "tank_wh": ("Bradford White", "Rheem", "A. O. Smith"),
    "tankless_wh": ("Rinnai", "Navien", "Noritz"),
    "hp_wh": ("Rheem", "A. O. Smith"),
    "air_filter": ("Filtrete", "Honeywell"),
    "thermostat": ("Honeywell", "ecobee", "Emerson"),
}


def _systems() -> list[dict]:
    """The systems: one dict of true facts per (kind, size, tier).

    A rating grows (or falls) a little with the size, so that "most
    efficient" has one true answer per kind, not a tie between sizes.
    """
    rows = []
    for index, tons in enumerate((1.5, 2, 2.5, 3, 3.5, 4)):
        for tier, seer2 in zip(TIERS, (14.3, 16.0, 18.0), strict=True):
            rows.append(
                {
                    "kind": "central_ac",
                    "tons": tons,
                    "tier": tier,
                    "base": 5600 + 700 * index,
                    "ratings": {"seer2": round(seer2 + 0.1 * index, 1)},
                }
            )
    for index, tons in enumerate((2, 2.5, 3, 4, 5)):
        for tier, (seer2, hspf2) in zip(TIERS, ((14.3, 7.5), (16.0, 8.1), (18.5, 9.0)), strict=True):
            rows.append(
                {
                    "kind": "heat_pump",
                    "tons": tons,
                    "tier": tier,
                    "base": 7400 + 850 * index,
                    "ratings": {"seer2": round(seer2 + 0.1 * index, 1), "hspf2": round(hspf2 + 0.1 * index, 1)},
                }
            )
    for index, tons in enumerate((2, 3, 4)):
        for tier, (seer2, afue) in zip(TIERS, ((14.3, 80), (15.2, 92), (17.0, 96)), strict=True):
            rows.append(
                {
                    "kind": "ac_furnace",
                    "tons": tons,
                    "tier": tier,
                    "base": 9800 + 1300 * index,
                    "btu": 60000 + 20000 * index,
                    "ratings": {"seer2": seer2, "afue": afue},
                    "fuel": "gas",
                }
            )
    for index, btu in enumerate((40000, 60000, 80000, 100000)):
        for tier, afue in zip(TIERS, (80, 92, 96), strict=True):
            features = {"good": (), "better": ("two_stage",), "best": ("variable_speed", "two_stage")}[tier]
            rows.append(
                {
                    "kind": "furnace",
                    "btu": btu,
                    "tier": tier,
                    "base": 3400 + 450 * index,
                    "ratings": {"afue": round(afue + 0.5 * index, 1)},
                    "fuel": "gas",
                    "features": features,
                }
            )
    for index, btu in enumerate((9000, 12000, 18000, 24000)):
        for tier, (seer2, hspf2) in zip(TIERS, ((20.0, 9.0), (22.5, 9.6), (26.0, 10.5)), strict=True):
            rows.append(
                {
                    "kind": "mini_split",
                    "btu": btu,
                    "tier": tier,
                    "base": 3500 + 650 * index,
                    "ratings": {"seer2": round(seer2 - 0.5 * index, 1), "hspf2": hspf2},
                }
            )
    for index, (gallons, fuel) in enumerate(((40, "gas"), (50, "gas"), (50, "electric"), (75, "gas"))):
        for tier, uef in zip(TIERS, (0.62, 0.67, 0.70), strict=True):
            true_uef = round(0.92 + 0.01 * TIERS.index(tier), 2) if fuel == "electric" else round(uef - 0.01 * index, 2)
            rows.append(
                {
                    "kind": "tank_wh",
                    "gallons": gallons,
                    "fuel": fuel,
                    "tier": tier,
                    "base": 1700 + 300 * index,
                    "ratings": {"uef": true_uef},
                }
            )
    for index, btu in enumerate((160000, 199000)):
        for tier, uef in zip(TIERS, (0.87, 0.93, 0.96), strict=True):
            rows.append(
                {
                    "kind": "tankless_wh",
                    "btu": btu,
                    "fuel": "gas",
                    "tier": tier,
                    "base": 3300 + 600 * index,
                    "ratings": {"uef": round(uef + 0.01 * index, 2)},
                }
            )
    for index, gallons in enumerate((50, 80)):
        for tier, uef in zip(TIERS, (3.45, 3.75, 4.0), strict=True):
            rows.append(
                {
                    "kind": "hp_wh",
                    "gallons": gallons,
                    "fuel": "electric",
                    "tier": tier,
                    "base": 3600 + 900 * index,
                    "ratings": {"uef": round(uef - 0.1 * index, 2)},
                }
            )
    for tons in (2, 3, 4):
        rows.append({"kind": "air_handler", "tons": tons, "tier": None, "base": 1900 + 350 * (tons - 2)})
    return rows


def _accessories() -> list[dict]:
    """Filters and thermostats: untiered, list-priced."""
    rows = [
        {"kind": "air_filter", "merv": merv, "filter_size": size, "tier": None, "base": price}
        for merv, size, price in (
            (8, "16x25x1", 15),
            (11, "16x25x1", 25),
            (13, "16x25x1", 35),
            (8, "20x25x4", 50),
            (11, "20x25x4", 65),
            (13, "20x25x4", 80),
        )
    ]
    rows += [
        {"kind": "thermostat", "tier": None, "base": 95, "features": ("programmable",)},
        {"kind": "thermostat", "tier": None, "base": 249, "features": ("programmable", "wifi")},
        {"kind": "thermostat", "tier": None, "base": 329, "features": ("programmable", "wifi", "learning")},
    ]
    return rows


def products(seed: int = SEED) -> list[Truth]:
    """The whole ground truth, the same for a given seed: about a hundred products of eleven kinds."""
    rng = random.Random(seed)
    brand = {kind: rng.choice(names) for kind, names in _BRANDS.items()}
    truths = []
    for number, row in enumerate(_systems() + _accessories(), start=1):
        multiplier = TIER_PRICE[row["tier"]] if row["tier"] else 1.0
        noise = 1 + rng.uniform(-0.03, 0.03) if row["tier"] else 1.0
        price = round(row["base"] * multiplier * noise / 10) * 10 if row["tier"] else float(row["base"])
        kind = row["kind"]
        if kind == "thermostat":
            brand_name = _BRANDS["thermostat"][len(row["features"]) - 1]
        else:
            brand_name = brand[kind]
        truths.append(
            Truth(
                sku=f"P{number:03d}",
                kind=kind,
                tier=row["tier"],
                brand=brand_name,
                price=float(price),
                tons=row.get("tons"),
                btu=row.get("btu"),
                gallons=row.get("gallons"),
                merv=row.get("merv"),
                ratings=dict(row.get("ratings", {})),
                fuel=row.get("fuel"),
                features=tuple(row.get("features", ())),
                filter_size=row.get("filter_size"),
            )
        )
    return truths


def by_sku(truths: list[Truth]) -> dict[str, Truth]:
    """The truth of each product, by its SKU (the same SKU in every style)."""
    return {truth.sku: truth for truth in truths}
