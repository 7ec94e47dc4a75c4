"""The query step without a database: units, price and tier words, postal codes, the phrase table, spelling.

The catalog side (each vocabulary entry finding what it names, sizes in names
and specs, typo tolerance on the databases' own indexes) is
tests/mirror/query/test_search_vocabulary.py; the issue's questions on every surface are
tests/test_search_surfaces.py.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from mirror.catalog.trades import TIERS, TRADES
from mirror.catalog.units import Size
from mirror.catalog.vocabulary import CONCEPTS, INCLUSION_WORDS, PRICE_SORT_WORDS, TIER_WORDS, TRADE_WORDS
from mirror.query import LexiconAnswer, understand
from mirror.query import concepts as c
from mirror.query.text import edit_distance, similarity, tokenize


def sizes(text: str) -> list[tuple[str, Decimal, str | None]]:
    return [(s.quantity, s.value, s.text) for s in understand(text).sizes]


@pytest.mark.parametrize(
    "text",
    ["24,000 BTU", "24000 btu", "24k btu", "24K BTU/h", "24 thousand btu", "2-ton", "2 ton", "2 tons", "two ton"],
)
def test_tons_and_btu_are_one_capacity(text):
    assert sizes(text) == [("capacity", Decimal(24000), None)]


@pytest.mark.parametrize("text", ["two and a half ton ac", "2 and a half tons", "2.5 ton"])
def test_and_a_half_is_half_more(text):
    assert sizes(text) == [("capacity", Decimal(30000), None)]
    assert understand(text).ignored == ()


@pytest.mark.parametrize(
    "text, expected",
    [
        ("16 SEER", ("seer", Decimal(16), None)),
        ("SEER2 16.2", ("seer", Decimal("16.2"), None)),
        ("16seer", ("seer", Decimal(16), None)),
        ("96% AFUE", ("afue", Decimal(96), None)),
        ("96 afue", ("afue", Decimal(96), None)),
        ("50 gallon", ("gallons", Decimal(50), None)),
        ("50-gal", ("gallons", Decimal(50), None)),
        ("9.8 GPM", ("gpm", Decimal("9.8"), None)),
        ("MERV 13", ("merv", Decimal(13), None)),
        ("merv13", ("merv", Decimal(13), None)),
        ("1/2 hp", ("horsepower", Decimal("0.5"), "1/2")),
        ("3/4HP", ("horsepower", Decimal("0.75"), "3/4")),
        ("16x25x1", ("filter_size", Decimal(0), "16x25x1")),
        ("16 x 25 x 1", ("filter_size", Decimal(0), "16x25x1")),
        ("48,000 grain", ("grains", Decimal(48000), None)),
    ],
)
def test_each_unit_form_is_one_normalised_size(text, expected):
    assert sizes(text) == [expected]


def test_a_size_says_how_a_catalog_writes_it_and_which_values_match():
    three_tons = Size("capacity", Decimal(36000), ("3", "ton"))
    assert three_tons.label == "3 ton (36,000 BTU/h)"
    assert {("3", "ton"), ("36", "000", "btu"), ("36000", "btu"), ("36k", "btu")} <= set(three_tons.name_phrases())
    assert three_tons.bounds()[0] < 36000 < three_tons.bounds()[1] and three_tons.bounds()[1] < 36001
    assert Size("seer", Decimal(16), ("16", "seer")).bounds() == (16, 17)  # 16 SEER matches a 16.2 SEER2 unit
    assert Size("filter_size", Decimal(0), ("16x25",), "16x25").name_phrases() == (("16x25x*",),)


def test_merv_and_filter_sizes_imply_an_air_filter():
    for text in ("merv 13", "16x25x1"):
        assert [r.slug for r in understand(text).concepts] == ["air-filter"]
    assert [r.slug for r in understand("16x25x1 furnace filter").concepts] == ["air-filter"]


@pytest.mark.parametrize("words", [w for w in PRICE_SORT_WORDS["price_low"] if " " not in w][:8] + ["most affordable"])
def test_cheap_words_order_by_price(words):
    assert understand(f"{words} heat pump").price.order == "price_low"


@pytest.mark.parametrize(
    "text, max_cents, min_cents",
    [
        ("under $5,000", 500000, None),
        ("less than $5000", 500000, None),
        ("below 5000 dollars", 500000, None),
        ("max $5k", 500000, None),
        ("$5,000 or less", 500000, None),
        ("over $10,000", None, 1000000),
        ("at least 10k", None, 1000000),
        ("between $5,000 and $8,000", 800000, 500000),
        ("$5000 to $8000", 800000, 500000),
        ("$6,500", 650000, None),  # an amount alone is a budget
    ],
)
def test_price_bounds(text, max_cents, min_cents):
    price = understand(f"furnace {text}").price
    assert (price.max_cents, price.min_cents) == (max_cents, min_cents)


def test_tier_words_pick_tiers_and_price_words_order():
    assert understand("best air conditioner").tiers == ("best",)
    assert understand("premium furnace").tiers == ("best",)
    assert understand("top of the line heat pump").tiers == ("best",)
    assert understand("mid-range water heater").tiers == ("better",)
    assert understand("good vs best furnace").tiers == ("good", "best")
    assert understand("good vs best furnace").asks_comparison
    assert understand("cheapest heat pump").tiers == () and understand("cheapest heat pump").price.order == "price_low"
    assert understand("most expensive furnace").price.order == "price_high"
    assert understand("goodman furnace").tiers == ()  # a brand is not the Good tier


def test_postal_codes_and_coverage_questions():
    asked = understand("Do you serve 63376?")
    assert asked.postal_code == "63376" and asked.asks_coverage and not asked.has_subject
    assert understand("plumber near 63376-1234").postal_code == "63376"
    assert understand("24000 btu").postal_code is None  # a size, not a ZIP
    assert understand("under 12000").postal_code is None and understand("under 12000").price.max_cents == 1200000


@pytest.mark.parametrize("word", INCLUSION_WORDS)
def test_inclusion_words_ask_what_a_price_includes_and_name_no_product(word):
    asked = understand(f"furnace {word}")
    assert asked.asks_inclusion and word in asked.ignored and word not in asked.keywords
    assert [c.slug for c in asked.concepts] == [c.slug for c in understand("furnace").concepts]
    assert not understand("furnace").asks_inclusion


def test_longest_phrase_wins_and_every_word_is_accounted_for():
    filt = understand("MERV 8 furnace filter")
    assert [r.slug for r in filt.concepts] == ["air-filter"]  # not the furnace
    assert [r.slug for r in understand("heat pump water heater").concepts] == ["heat-pump-water-heater"]
    assert [r.slug for r in understand("tankless hot water heater").concepts] == ["tankless-water-heater"]
    hvac = understand("HVAC system")
    assert hvac.trades == ("hvac",) and hvac.kind == "system" and hvac.concepts == ()
    question = understand("How much is a new 3 ton Lennox heat pump installed?")
    assert [r.slug for r in question.concepts] == ["heat-pump"]
    assert question.keywords == ("lennox",) and question.ignored == ("how", "much", "is", "a", "new", "installed")
    assert understand("ML17XP1-036 lennox").keywords == ("ml17xp1-036", "lennox")


def test_the_phrase_table_is_one_meaning_per_phrase_and_refers_to_the_one_trade_table():
    assert {slug for words in TRADE_WORDS for slug in [words]} <= set(TRADES)
    assert set(TIER_WORDS) == set(TIERS)
    assert all(t in TRADES for concept in CONCEPTS for t in concept.trades)
    # Every phrase of the vocabulary reads back as what it was declared as.
    for concept in CONCEPTS:
        for phrase in (*concept.names, *concept.typed):
            read = understand(phrase)
            assert concept.slug in {r.slug for r in read.concepts}, (concept.slug, phrase, read)
    for trade, phrases in TRADE_WORDS.items():
        for phrase in phrases:
            assert trade in understand(phrase).trades, (trade, phrase)


def test_a_concept_is_never_found_inside_another_concepts_longer_name():
    furnace = {m.slug: m for m in c.catalog_match("furnace")}["furnace"]
    assert ("furnace", "filter") in furnace.not_within
    heat_pump = {m.slug: m for m in c.catalog_match("heat-pump")}
    assert ("heat", "pump", "water", "heater") in heat_pump["heat-pump"].not_within
    assert ("geothermal", "heat", "pump") in heat_pump["heat-pump"].not_within  # a kind of its own
    assert set(heat_pump) == {"heat-pump"}
    water_heater = {m.slug for m in c.catalog_match("water-heater")}
    assert {"tankless-water-heater", "heat-pump-water-heater"} <= water_heater


class Words:
    """A catalog's words, for the spelling rules alone (the databases' lexicon: tests/mirror/query/test_search_vocabulary.py)."""

    def __init__(self, *words):
        self.words = set(words)
        self.asked = []

    def lookup(self, words, pieces):
        self.asked.append((tuple(words), tuple(pieces)))
        known = frozenset(w for w in (*words, *pieces) if w in self.words)
        near = {w: tuple(sorted(self.words, key=lambda x: -similarity(w, x))[:5]) for w in words}
        return LexiconAnswer(known=known, similar=near)


def test_spelling_corrects_within_one_edit_splits_run_together_words_and_never_guesses():
    catalog = Words("weatherking", "nordic", "furnace", "heater")
    read = understand("wetherking furnase", catalog)
    assert [(x.typed, x.meant, x.how) for x in read.corrections] == [("wetherking", "weatherking", "corrected")]
    assert [r.slug for r in read.concepts] == ["furnace"]  # "furnase" is a spelling the vocabulary lists
    split = understand("nordicfurnace", catalog)
    assert [(x.meant, x.how) for x in split.corrections] == [("nordic furnace", "split")]
    assert [r.slug for r in split.concepts] == ["furnace"] and split.keywords == ("nordic",)
    assert understand("hvca", catalog).trades == ("hvac",)  # two letters swapped are one edit
    unknown = understand("zeppelin furnace", catalog)
    assert unknown.unrecognised == ("zeppelin",) and unknown.corrections == ()
    # Never to a tier, price or filler word: "goodmn" is the brand, "bestt" stays as typed.
    assert [x.meant for x in understand("goodmn furnace", Words("good")).corrections] == ["goodman"]
    assert understand("bestt furnace", Words()).corrections == () and understand("bestt furnace").tiers == ()


def test_a_question_the_vocabulary_reads_whole_asks_the_catalog_nothing():
    catalog = Words()
    understand("cheapest 3 ton heat pump under $10k near 63376", catalog)
    assert catalog.asked == []


def test_a_question_spends_corrections_on_at_most_max_corrected_words_and_still_knows_the_rest():
    from mirror.query.spelling import MAX_CORRECTED

    catalog = Words("weatherking", "nordic")
    noise = [f"zq{chr(97 + i // 26)}{chr(97 + i % 26)}x" for i in range(100)]  # 100 words no catalog holds
    read = understand(" ".join([*noise, "nordic", "wetherking"]), catalog)
    (words, pieces), *more = catalog.asked
    assert more == [] and len(words) == MAX_CORRECTED  # one lookup; nearest words for the first eight only
    assert "nordic" in pieces and "wetherking" in pieces  # the rest are only looked up as typed
    assert "nordic" in read.keywords and "nordic" not in read.unrecognised
    assert read.corrections == () and "wetherking" in read.unrecognised  # past the cap: read as typed


def test_spelling_distances_are_pg_trgm_and_damerau_levenshtein():
    assert round(similarity("furnance", "furnace"), 4) == round(6 / 11, 4)  # pg_trgm: 0.54545456
    assert edit_distance("hvca", "hvac") == 1 and edit_distance("goodman", "good") == 3
    assert [t.kind for t in tokenize("A/C 2-ton $5k ML17XP1-036 63376-1234")] == [
        "word",
        "word",
        "number",
        "word",
        "money",
        "model",
        "postal",
    ]


def test_a_smart_thermostat_asks_for_wi_fi_and_a_hot_water_boiler_is_a_boiler():
    smart = understand("smart thermostat")
    assert [c.slug for c in smart.concepts] == ["thermostat"] and smart.rank.features == ("wifi",)
    assert [c.slug for c in understand("hot water boiler").concepts] == ["boiler"]  # not a water heater too
    assert [c.slug for c in understand("hot water heater").concepts] == ["water-heater"]
