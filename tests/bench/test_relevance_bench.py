"""The relevance benchmark's judge (bench/relevance/judge.py), checked against hand-made rankings.

These test the benchmark's arithmetic, not the search: a perfect ranking
scores 1, a product of the wrong kind is a false match, an answerable
question left without results counts as a zero result, order and size
questions grade by the true order and the nearest real size, and a
question naming two kinds cannot score 1 with one kind only. No database.
"""

from __future__ import annotations

import math

import pytest

from bench.relevance.ground_truth import Truth, products
from bench.relevance.judge import Figures, grades, judge, ndcg
from bench.relevance.queries import held_out, intents
from bench.relevance.styles import HELD_OUT_STYLE, RENDER, STYLES

HP = {"heat_pump": 3, "mini_split": 1}


def _hp(sku, tons, price, tier="good", hspf2=8.0):
    return Truth(sku, "heat_pump", tier, "Acme", price, tons=tons, ratings={"hspf2": hspf2})


CATALOG = [
    _hp("HP2", 2, 7000),
    _hp("HP3", 3, 8000),
    _hp("HP3B", 3, 9500, tier="best", hspf2=9.5),
    _hp("HP4", 4, 9000, hspf2=8.4),
    Truth("MINI", "mini_split", "good", "Acme", 4000, btu=12000),
    Truth("FURN", "furnace", "good", "Acme", 3000, btu=60000, ratings={"afue": 96}),
    Truth("FURN2", "furnace", "good", "Acme", 3500, btu=80000, ratings={"afue": 80}),
]


def _judge(want, ranked):
    return judge("q", "demo", False, want, ranked, None, CATALOG)


def test_a_perfect_ranking_scores_one_and_a_reversed_one_less():
    want = {"kinds": HP, "size": {"tons": 3}}
    perfect = _judge(want, ["HP3", "HP3B", "HP2", "HP4", "MINI"])
    assert perfect.answerable and perfect.ndcg == pytest.approx(1.0) and perfect.rr == 1.0
    assert not perfect.false_match and not perfect.zero
    worse = _judge(want, ["MINI", "HP2", "HP4", "HP3", "HP3B"])
    # gains 2^g - 1 by log2(rank + 1): grades 1, 1, 1, 3, 3 against the ideal 3, 3, 1, 1, 1
    dcg = 1 + 1 / math.log2(3) + 1 / 2 + 7 / math.log2(5) + 7 / math.log2(6)
    ideal = 7 + 7 / math.log2(3) + 1 / 2 + 1 / math.log2(5) + 1 / math.log2(6)
    assert worse.ndcg == pytest.approx(dcg / ideal) and worse.rr == pytest.approx(1 / 4)


def test_a_wrong_kind_in_the_first_five_is_a_false_match_and_scores_nothing():
    outcome = _judge({"kinds": HP}, ["FURN", "HP2", "HP3"])
    assert outcome.false_match
    assert grades({"kinds": HP}, CATALOG)["FURN"] == 0
    assert not _judge({"kinds": HP}, ["HP2", "HP3", "HP3B", "HP4", "MINI"]).false_match  # related is not wrong
    assert _judge({"kinds": HP}, ["HP2", "HP3", "HP3B", "HP4", "MINI", "FURN"]).false_match is False  # sixth


def test_an_answerable_question_without_results_is_a_zero_result_and_an_unanswerable_one_is_not():
    empty = _judge({"kinds": HP}, [])
    assert empty.answerable and empty.zero and empty.ndcg == 0.0 and empty.rr == 0.0
    boiler = _judge({"kinds": {"boiler": 3}}, [])
    assert not boiler.answerable and not boiler.zero and not boiler.false_match
    assert _judge({"kinds": {"boiler": 3}}, ["HP2"]).false_match  # anything shown for a boiler is wrong


def test_an_absent_size_grades_the_nearest_real_one_as_the_close_substitute():
    graded = grades({"kinds": HP, "size": {"tons": 5}}, CATALOG)
    assert graded["HP4"] == 2 and graded["HP3"] == graded["HP2"] == 1
    assert _judge({"kinds": HP, "size": {"tons": 5}}, ["HP4"]).rr == 1.0
    assert _judge({"kinds": HP, "size": {"tons": 5}}, ["HP3", "HP4"]).rr == 0.5


def test_order_questions_are_judged_by_the_true_order():
    cheapest = grades({"kinds": HP, "order": ("price", "asc")}, CATALOG)
    assert cheapest["HP2"] == 3 and cheapest["HP3"] == 2 and cheapest["HP4"] == cheapest["HP3B"] == 1
    efficient = grades({"kinds": {"furnace": 3}, "order": ("afue", "desc")}, CATALOG)
    assert efficient["FURN"] == 3 and efficient["FURN2"] == 2
    assert _judge({"kinds": {"furnace": 3}, "order": ("afue", "desc")}, ["FURN2", "FURN"]).ndcg < 1


def test_tier_and_other_asked_facts_cost_a_grade_each():
    graded = grades({"kinds": HP, "tier": "best"}, CATALOG)
    assert graded["HP3B"] == 3 and graded["HP2"] == 2 and graded["MINI"] == 1  # never below 1 for a wanted kind


def test_a_question_naming_two_kinds_cannot_score_one_with_one_kind():
    want = {"kinds": {"heat_pump": 3, "furnace": 3}, "each": ("heat_pump", "furnace")}
    kind_of = {t.sku: t.kind for t in CATALOG}
    graded = grades(want, CATALOG)
    one_kind = ndcg(["HP2", "HP3", "HP3B", "HP4"], graded, want, kind_of)
    both = ndcg(["HP2", "FURN", "HP3", "FURN2", "HP4"], graded, want, kind_of)
    assert both == pytest.approx(1.0) and one_kind < 0.9


def test_figures_average_answerable_questions_and_count_false_matches_over_questions_with_results():
    outcomes = [
        _judge({"kinds": HP}, ["HP2", "HP3", "HP3B", "HP4", "MINI"]),
        _judge({"kinds": HP}, []),
        _judge({"kinds": {"boiler": 3}}, ["FURN"]),
        _judge({"kinds": {"boiler": 3}}, []),
    ]
    summary = Figures(outcomes).summary()
    assert summary["answerable"] == 2 and summary["ndcg5"] == pytest.approx(0.5, abs=0.001)
    assert summary["zero_results"] == 0.5 and summary["false_matches"] == 0.5  # of the two that showed something
    assert Figures(outcomes).worst(1)[0].zero


def test_every_style_renders_every_truth_and_the_held_out_parts_are_fixed():
    truths = products()
    assert len({t.kind for t in truths}) == 11 and max(t.tons for t in truths if t.kind == "central_ac") == 4
    for style in STYLES:
        names = {RENDER[style](t)["name"] for t in truths}
        assert len(names) > len(truths) * 0.8, style  # names tell products apart in every style
    assert HELD_OUT_STYLE in STYLES
    asked = intents(truths)
    hidden = held_out(asked)
    pool = {w for i in asked if not i.issue for w in i.wordings}
    assert hidden <= pool and math.isclose(len(hidden), 0.3 * len(pool), abs_tol=1)
    assert held_out(intents(products())) == hidden  # the seed fixes them
    assert not hidden & {w for i in asked if i.issue for w in i.wordings}


def test_the_held_out_style_shares_no_name_category_or_slug_with_a_tuned_style():
    """A held-out style tests the search only if nothing of it was tuned against: its words are its own."""
    truths = products()
    held = [RENDER[HELD_OUT_STYLE](t) for t in truths]
    tuned = [RENDER[style](t) for style in STYLES if style != HELD_OUT_STYLE for t in truths]
    for field in ("name", "slug"):
        of = (lambda r: r["name"]) if field == "name" else (lambda r: r["category"]["slug"])
        assert not {of(r) for r in held} & {of(r) for r in tuned}, field
    assert not {r["category"]["name"].lower() for r in held} & {r["category"]["name"].lower() for r in tuned}
    assert not {k for r in held for k in r["specs"]} & {k for r in tuned for k in r["specs"]}  # its spec keys too
