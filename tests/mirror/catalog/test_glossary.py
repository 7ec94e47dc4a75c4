"""The words a page is made of are explained once (mirror/catalog/glossary.py), matched whole and by letter case."""

from __future__ import annotations

import re

import pytest

from mirror.catalog.glossary import TERMS, glossary, plain_name, terms_in
from mirror.catalog.product_facts import FACTS
from mirror.catalog.trades import TRADES
from mirror.catalog.vocabulary import CONCEPTS


def meanings(text: str) -> list[tuple[str, str]]:
    """(the word as written, the first words of its meaning) for each glossary word of `text`."""
    return [(text[start:end], term.meaning.split(":")[0]) for start, end, term in terms_in(text)]


def test_words_match_whole_and_by_case_where_it_matters():
    assert meanings("HP & Air Handler") == [("HP", "Heat pump")]
    assert meanings("1/2 HP Sump Pump") == [("HP", "Horsepower")]
    assert meanings("Sump pump, 0.75-hp") == [("hp", "Horsepower")]
    assert meanings("hp & ah") == []  # lower case is no abbreviation of a heat pump or an air handler
    assert meanings("16.2 SEER2 · 96% AFUE · 3-ton") == [
        ("SEER2", "Seasonal Energy Efficiency Ratio, by the stricter 2023 test"),
        ("AFUE", "Annual Fuel Utilization Efficiency"),
        ("ton", "A measure of cooling power, not weight"),
    ]
    assert meanings("16 SEER") == [("SEER", "Seasonal Energy Efficiency Ratio (the pre-2023 test)")]
    # Never inside a longer word or code: SEER in SEER2, AC in ACC, HP in HPWH (its own word), ton in Tonka.
    assert meanings("ACC-FLT-M8 SEER2x Tonka") == []
    assert meanings("HPWH") == [("HPWH", "Heat pump water heater")]
    assert meanings("A/C & Gas Furnace, Central AC") == [("A/C", "Air conditioner"), ("AC", "Air conditioner")]
    assert meanings("80,000 BTU · 80 MBH · MERV 13 · 50 gal · 6.6 GPM · 32,000 grain · 1.28 GPF")[0] == (
        "BTU",
        "British thermal unit, a measure of heat",
    )


def test_every_label_unit_the_facts_table_writes_is_explained():
    """A size or rating label (mirror/catalog/product_facts.py) never shows a unit the glossary cannot explain."""
    units = {re.sub(r"[^A-Za-z0-9 ]", " ", fact.label.replace("{value}", "")).strip() for fact in FACTS}
    units -= {"", "year warranty"}  # a filter's dimensions and a warranty say what they are
    for unit in units:
        label = f"2 {unit}" if unit != "MERV" else "MERV 13"
        assert terms_in(label), f"the glossary does not explain {unit!r} ({label!r})"


def test_each_term_is_one_line_and_the_plain_words_are_the_vocabularys_own():
    labels = {concept.label for concept in CONCEPTS}
    for term in TERMS:
        assert "\n" not in term.meaning and len(term.meaning) <= 200, term.term
        assert term.meaning.endswith("."), term.term
        if term.words and term.term != "HVAC":
            assert term.words in labels, term.term  # "heat pump": mirror/catalog/vocabulary.py's label
    [hvac] = [term for term in TERMS if term.term == "HVAC"]
    assert hvac.words == TRADES["hvac"].title.replace("&", "and").lower()  # mirror/catalog/trades.py's title


@pytest.mark.parametrize(
    "name, plain",
    [
        ("HP & Air Handler", "Heat pump and air handler"),
        ("A/C & Gas Furnace", "Air conditioner and gas furnace"),
        ("Central AC", "Central air conditioner"),
        ("HVAC Parts", "Heating and cooling parts"),
        ("Air Filters", None),  # nothing abbreviated: the name is plain already
        ("1/2 HP Sump Pump", None),  # horsepower is a unit, not what the category is
        ("MERV 13 Filters", None),
    ],
)
def test_a_category_name_that_abbreviates_its_kind_has_a_plain_name(name, plain):
    assert plain_name(name) == plain


def test_the_glossary_lists_each_word_once_in_order_of_first_appearance():
    texts = ["A/C & Gas Furnace", "Carrier 14.3 SEER2 A/C & 80% AFUE Gas Furnace, 3 ton", "3 ton", None, "14.3 SEER2"]
    assert [term.term for term in glossary(texts)] == ["A/C", "SEER2", "AFUE", "ton"]
    assert [term.meaning.split(":")[0] for term in glossary(["HP & AH", "1/3 HP"])] == [
        "Heat pump",
        "Air handler",
        "Horsepower",
    ]
    assert glossary(["Air Filters", "Tank Water Heater"]) == []
