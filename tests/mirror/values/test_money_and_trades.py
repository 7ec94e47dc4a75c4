"""The one money rule (mirror/values/money.py) and the trade table's derived words (mirror/catalog/trades.py), on their own.

Every surface shows these (pricing.json, the pages, the answers' sentences,
the tool results, the WordPress plugin through pricing.json); the surfaces'
tests check them in place, these the rules' edges.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from mirror.catalog.trades import (
    ACCESSORY,
    SYSTEM,
    TIERS,
    TIERS_BY_SLUG,
    business_types,
    category_order,
    in_sentence,
    systems_noun,
)
from mirror.values.jsontext import decimal_number
from mirror.values.money import cents_to_decimal, format_cents, format_money, to_cents


@pytest.mark.parametrize(
    ("cents", "currency", "text"),
    [
        (850000, "USD", "$8,500"),
        (6005, "USD", "$60.05"),
        (6000, "USD", "$60"),
        (940000, "EUR", "9,400 EUR"),  # whole amounts without ".00" in every currency
        (940005, "EUR", "9,400.05 EUR"),
        (5, "CAD", "0.05 CAD"),
        (123456789012, "USD", "$1,234,567,890.12"),
    ],
)
def test_an_amount_reads_the_same_on_every_surface(cents: int, currency: str, text: str):
    assert format_cents(cents, currency) == text
    assert format_money(cents_to_decimal(cents), currency) == text


@pytest.mark.parametrize(
    ("amount", "cents"),
    [
        ("8500.00", 850000),
        (Decimal("60.05"), 6005),
        (99.99, 9999),  # a float by its shortest repr, not 99.98999...
        (99.999, 9999),  # a ceiling admits what is at or below it
        (100, 10000),
        (Decimal("0.001"), 0),
    ],
)
def test_an_amount_becomes_whole_cents_at_or_below_it(amount, cents: int):
    assert to_cents(amount) == cents


def test_cents_and_amounts_round_trip_exactly():
    for cents in (0, 1, 6005, 850000, 922337203685477580):
        assert to_cents(cents_to_decimal(cents)) == cents
    assert cents_to_decimal(None) is None


def test_a_decimal_is_the_json_number_with_its_own_digits():
    assert decimal_number(Decimal("11006.00")) == 11006 and isinstance(decimal_number(Decimal("11006.00")), int)
    assert decimal_number(Decimal("60.05")) == 60.05 and repr(decimal_number(Decimal("60.05"))) == "60.05"
    assert decimal_number(None) is None


@pytest.mark.parametrize(
    ("trades", "types", "noun"),
    [
        (["hvac"], ["HVACBusiness"], "heating and cooling systems"),
        (["plumbing"], ["Plumber"], "plumbing systems"),
        (["hvac", "plumbing"], ["HVACBusiness", "Plumber"], "systems"),  # never says whose systems a price is for
        ([], ["HomeAndConstructionBusiness"], "systems"),
        (["landscaping"], ["HomeAndConstructionBusiness"], "systems"),
        (["landscaping", "roofing"], ["RoofingContractor"], "roofing systems"),
    ],
)
def test_a_business_is_typed_and_its_systems_named_by_its_known_trades(trades, types, noun):
    assert business_types(trades) == types
    assert systems_noun(trades) == noun


def test_a_trade_is_said_by_the_table_and_an_unknown_one_as_it_is():
    assert [in_sentence(t) for t in ("hvac", "plumbing", "landscaping")] == ["HVAC", "plumbing", "landscaping"]


def test_the_kinds_and_tiers():
    assert (SYSTEM, ACCESSORY) == ("system", "accessory")
    assert TIERS == ("good", "better", "best")
    assert [TIERS_BY_SLUG[t].title for t in TIERS] == ["Good", "Better", "Best"]


def test_categories_are_listed_systems_first_then_by_name_then_slug():
    rows = [(ACCESSORY, "Air Filters", "air-filters"), (SYSTEM, "b", "b-2"), (SYSTEM, "B", "b-1"), (SYSTEM, "A", "z")]
    ordered = sorted(rows, key=lambda row: category_order(*row))
    assert ordered == [
        (SYSTEM, "A", "z"),
        (SYSTEM, "B", "b-1"),
        (SYSTEM, "b", "b-2"),
        (ACCESSORY, "Air Filters", "air-filters"),
    ]
