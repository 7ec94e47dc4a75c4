"""The sync's cache of product readings (mirror/sync/facts.py, reading_values): the same values as reading each
product afresh, whatever was read before it."""

from __future__ import annotations

from mirror.catalog.product_facts import product_facts, product_labels
from mirror.query.product_reading import read_product
from mirror.sync import facts

NAME, CATEGORY, SLUG = "Lennox Heat Pump & Air Handler", "HP & Air Handler", "hp-air-handler"


def afresh(name, category_name, category_slug, model_numbers, specs, trades) -> dict:
    reading = read_product(name, category_name, category_slug, model_numbers, specs, trades)
    return {
        "kinds": list(reading.kinds),
        "measures": reading.measures,
        "kind_evidence": reading.evidence_record(),
        "features": list(reading.features),
        "labels": product_labels(product_facts(specs, name)),
    }


# Inputs equal to Python (1 == 1.0 == True, a list and a tuple alike) that a reading tells apart, read one after
# the other: a cache keyed by equality would hand the first one's reading to the next.
ALIKE = [
    (NAME, CATEGORY, SLUG, ["XP16-024"], {"tonnage": 1}, ("hvac",)),
    (NAME, CATEGORY, SLUG, ["XP16-024"], {"tonnage": True}, ("hvac",)),
    (NAME, CATEGORY, SLUG, ["XP16-024"], {"tonnage": 1.0}, ("hvac",)),
    (NAME, CATEGORY, SLUG, ["XP16-024"], {"tonnage": "1"}, ("hvac",)),
    (NAME, CATEGORY, SLUG, ["XP16-024"], {"tonnage": 1}, ("plumbing",)),
    (NAME, CATEGORY, SLUG, ["XP16-024"], {"tonnage": 1}, None),
    ("Water Heater, 40 gal", "Water Heaters", "water-heaters", [], {}, ("plumbing",)),
    ("Water Heater, 40 gal", "Water Heaters", "water-heaters", [], {"fuel": "gas"}, ("plumbing",)),
    ("Water Heater, 40 gal", "Water Heaters", "water-heaters", [["unhashable"]], {}, ("plumbing",)),
]


def test_a_reading_is_the_products_own_whatever_was_read_before():
    facts._reading.cache_clear()
    for _ in range(2):  # the second time, every one of them from the cache
        for args in ALIKE:
            assert facts.reading_values(*args) == afresh(*args), args
    assert facts.reading_values(*ALIKE[0])["measures"] != facts.reading_values(*ALIKE[1])["measures"]


def test_the_values_are_the_callers_to_change():
    first = facts.reading_values(*ALIKE[0])
    first["kinds"].append("changed")
    first["measures"]["changed"] = 1
    first["kind_evidence"]["decided_by"][0].append("changed")
    assert facts.reading_values(*ALIKE[0]) == afresh(*ALIKE[0])
