"""The sync's COPY names each column's type once (mirror/sync/bulk.py, _copy_types) instead of psycopg picking a
dumper for every value; a column of a kind it does not list leaves every value's own dumper."""

from __future__ import annotations

from sqlalchemy import Column, MetaData, Numeric, String, Table

from mirror.store.models import Company, CompanyConcept, CompanyWord, OfferGroup, Product
from mirror.sync.bulk import _copy_types


def test_every_column_the_sync_copies_has_its_type_named():
    for model in (Company, Product, OfferGroup, CompanyWord, CompanyConcept):
        table = model.__table__
        columns = [c.name for c in table.columns if c.computed is None]
        assert _copy_types(table, columns) is not None, table.name
    products = Product.__table__
    assert _copy_types(
        products, ["plugin_key", "kinds", "specs", "price_cents", "published", "upstream_updated_at"]
    ) == [
        "text",
        "text[]",
        "text",  # a JSON column is copied as its text (bulk._json_text)
        "int8",
        "bool",
        "timestamptz",
    ]


def test_a_column_of_another_kind_leaves_the_dumpers_to_psycopg():
    table = Table("t", MetaData(), Column("key", String, primary_key=True), Column("ratio", Numeric))
    assert _copy_types(table, ["key"]) == ["text"]
    assert _copy_types(table, ["key", "ratio"]) is None
