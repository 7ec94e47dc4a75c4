"""Rows are read by name, never by position (mirror.store.db.rows_by_name).

`statement_rows` gives tuples in a statement's column order; `rows_by_name`
finds each column by its name in the statement, so a column moved, added or
removed elsewhere in a statement never shifts what a read takes.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest
from sqlalchemy import func, select

from mirror.store.db import rows_by_name
from mirror.store.models import Company, Product


class _Picked(NamedTuple):
    price_cents: int
    sku: str


def test_every_column_is_read_under_its_name():
    statement = select(Product.sku, Product.name, func.count().over().label("total"))
    (row,) = rows_by_name(statement, [("FURN-1", "Furnace", 3)])
    assert (row.sku, row.name, row.total) == ("FURN-1", "Furnace", 3)
    assert row == ("FURN-1", "Furnace", 3)  # still the tuple the statement gave


def test_a_named_tuple_takes_its_fields_by_name_wherever_they_stand():
    statement = select(Product.name, Product.sku, Product.tier, Product.price_cents)
    rows = rows_by_name(statement, [("Furnace", "FURN-1", "good", 250000), ("Filter", "FLT-8", None, 2400)], _Picked)
    assert rows == [_Picked(250000, "FURN-1"), _Picked(2400, "FLT-8")]
    assert all(type(row) is _Picked for row in rows)


def test_a_prefix_reads_a_joined_tables_labelled_columns():
    statement = select(
        Company.plugin_key,
        Product.sku.label("product_sku"),
        Product.price_cents.label("product_price_cents"),
    )
    (row,) = rows_by_name(statement, [("tudi", "FURN-1", 250000)], _Picked, prefix="product_")
    assert row == _Picked(price_cents=250000, sku="FURN-1")


def test_one_field_is_a_tuple_of_one():
    class Key(NamedTuple):
        plugin_key: str

    statement = select(Product.sku, Company.plugin_key)
    assert rows_by_name(statement, [("FURN-1", "tudi")], Key) == [Key("tudi")]


def test_a_column_without_a_name_of_its_own_is_refused():
    with pytest.raises(ValueError, match="label"):
        rows_by_name(select(Product.sku, select(Company.name).scalar_subquery()), [("FURN-1", "Tudi")])


def test_a_field_the_statement_lacks_is_refused():
    with pytest.raises(ValueError, match="price_cents"):
        rows_by_name(select(Product.sku), [("FURN-1",)], _Picked)
