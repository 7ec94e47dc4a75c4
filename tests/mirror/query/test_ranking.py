"""Ranking by what was asked (mirror/query/ranking.py), without a database: what a question asks to rank by,
the rating each kind is judged by, and the features a catalog's names and specs state.

The order itself, on catalogs synced into the database, is tests/mirror/read/test_search_ranking.py and the
issue's rows on every surface tests/test_search_abbreviated.py.
"""

from __future__ import annotations

import pytest

from mirror.catalog import units
from mirror.catalog.vocabulary import CONCEPTS, EFFICIENCY_WORDS, FEATURES
from mirror.query import understand
from mirror.query.product_reading import read_product
from mirror.query.ranking import JUDGED_BY, RankIntent, judged_by, ratings_to_rank_by, stated_features
from mirror.query.views import UnderstoodView


@pytest.mark.parametrize("words", EFFICIENCY_WORDS)
def test_every_efficiency_word_asks_for_the_kinds_rating(words):
    understood = understand(f"{words} furnace")
    assert understood.rank.efficient and [r.slug for r in understood.concepts] == ["furnace"], words
    assert understood.keywords == ()  # never a word the catalog must hold ("efficient" in no product's name)
    assert ratings_to_rank_by(understood.rank, "furnace") == ("afue",)


@pytest.mark.parametrize(
    "question, concept, ratings",
    [
        ("most efficient air conditioner", "air-conditioner", ("seer", "eer")),
        ("energy saving central air", "air-conditioner", ("seer", "eer")),
        ("high efficiency heat pump", "heat-pump", ("hspf", "seer", "cop")),
        ("energy star water heater", "water-heater", ("uef",)),
        ("most efficient tankless water heater", "tankless-water-heater", ("uef",)),  # judged as its parent
        ("most efficient furnace", "furnace", ("afue",)),
        ("most efficient mini split", "ductless-mini-split", ("hspf", "seer")),
        ("highest SEER2 AC", "air-conditioner", ("seer",)),  # a rating named: that rating
        ("AFUE furnace", "furnace", ("afue",)),
    ],
)
def test_the_rating_each_kind_is_judged_by(question, concept, ratings):
    understood = understand(question)
    assert understood.concepts[0].slug == concept
    assert ratings_to_rank_by(understood.rank, concept) == ratings


def test_a_rating_named_alone_names_its_kind_and_a_number_is_a_size():
    assert [r.slug for r in understand("highest AFUE").concepts] == ["furnace"]
    assert understand("highest AFUE").rank.ratings == ("afue",)
    sized = understand("96 AFUE furnace")  # a number makes it a size, not an order
    assert sized.rank == RankIntent() and sized.sizes[0].quantity == "afue"


def test_a_group_of_kinds_judged_differently_has_no_rating():
    assert judged_by("heating") == ()  # furnaces by AFUE, heat pumps by HSPF2: no one order
    assert ratings_to_rank_by(understand("most efficient heating system").rank, "heating") == ()
    assert ratings_to_rank_by(understand("heat pump").rank, "heat-pump") == ()  # nothing asked


def test_every_judged_rating_is_a_rating_of_that_kind():
    for slug, quantities in JUDGED_BY.items():
        for quantity in quantities:
            assert units.QUANTITIES[quantity].rating and slug in {c.slug for c in CONCEPTS}


@pytest.mark.parametrize(
    "question, features",
    [
        ("wi-fi thermostat", ("wifi",)),
        ("wifi thermostat", ("wifi",)),
        ("connected thermostat", ("wifi",)),
        ("programmable thermostat", ("programmable",)),
        ("variable speed heat pump", ("variable-speed",)),
        ("inverter mini split", ("variable-speed",)),
        ("two-stage furnace", ("two-stage",)),
        ("2-stage gas furnace", ("two-stage",)),
        ("modulating furnace", ("modulating",)),
    ],
)
def test_feature_words_ask_for_the_feature_and_stay_out_of_the_keywords(question, features):
    understood = understand(question)
    assert understood.rank.features == features and understood.keywords == ()
    assert understood.concepts  # the kind is still read: "wifi thermostat" is a thermostat


def test_the_published_view_says_what_it_ranks_by():
    view = UnderstoodView.of(understand("most efficient wi-fi thermostat")).model_dump()
    assert view["ranking"] == {
        "efficient": True,
        "ratings": [],
        "features": ["wifi"],
        "words": ["most", "efficient", "wi", "fi"],
    }


@pytest.mark.parametrize(
    "name, specs, expected",
    [
        ("Honeywell Wi-Fi 7-Day Programmable Thermostat", {}, ("wifi", "programmable")),
        ("T-Stat - Wi-Fi Learning", {}, ("wifi",)),
        ("Goodman 2-Stage Gas Furnace, 80K", {}, ("two-stage",)),
        ("Goodman Gas Furnace", {"stages": 2}, ("two-stage",)),  # a count
        ("Goodman Gas Furnace", {"stages": "two"}, ("two-stage",)),
        ("Goodman Gas Furnace", {"stages": 1}, ()),
        ("Carrier Heat Pump", {"compressor": "Variable speed"}, ("variable-speed",)),  # a value
        ("Carrier Heat Pump", {"variable_speed": True, "wifi": False}, ("variable-speed",)),  # a key, yes and no
        ("Carrier Heat Pump", {"wifi": "no", "features": ["Wi-Fi", "Modulating"]}, ("wifi", "modulating")),
        ("EV charger", {"connected_load": 7}, ()),  # a number states a feature only with its key whole
        ("Gas Furnace", {"description": "not variable"}, ()),
    ],
)
def test_the_features_a_name_or_specs_state(name, specs, expected):
    assert stated_features(name, specs) == expected


def test_every_features_name_is_read_in_a_catalog():
    for feature in FEATURES:
        for phrase in (*feature.names, *feature.written):
            assert stated_features(f"Acme {phrase.upper()} unit", {}) == (feature.slug,), phrase


def test_the_sync_reads_the_features_with_the_kind():
    reading = read_product("Goodman 2-Stage Gas Furnace, 80K BTU", "Furnace", "furnace", [], {"afue": 96}, ["hvac"])
    assert reading.kinds == ("furnace",) and reading.features == ("two-stage",)
    assert reading.measures == {"capacity": 80000, "afue": 96}
