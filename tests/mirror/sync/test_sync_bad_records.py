"""One bad upstream record never stops a sync (issue 22, section 1; docs/core.md, "Records the
database cannot store"). Through the demo upstream over HTTP: a record
whose text holds a NUL or a lone surrogate is stored repaired and reported; a record the database
refuses all the same is skipped and reported; every other change of the run is applied, and every
later run, incremental or full, succeeds."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select

from mirror.catalog.records import ProductRecord, parse_product
from mirror.store.models import DESCRIPTION_MAX_CHARS, Company, Product
from mirror.values.storable import cut_at_word
from tests.commands.test_cli_errors import run_cli
from tests.mirror.catalog.test_records_unstorable import PRODUCT
from tests.mirror_helpers import quick_client

BAD = {"nul": "only NUL \x00 here", "surrogate": "lone \ud800 surrogate", "half emoji": "half an emoji \ud83d"}


def _repaired(text: str) -> str:
    return "".join("\ufffd" if c == "\x00" or "\ud800" <= c <= "\udfff" else c for c in text)


def _sync(mirror, upstream, **kwargs):
    return mirror.sync(client=quick_client(upstream), **kwargs)


def _public(upstream) -> list[str]:
    catalog = upstream.catalog
    return [
        key
        for key in catalog.company_keys()
        if catalog.get_company(key).get("status") == "active" and catalog.get_company(key).get("storefront_live")
    ]


def _priced(upstream, key: str) -> list[dict]:
    """The company's valid published products (the demo seeds some invalid records too)."""
    return [
        p for p in upstream.catalog.products_of(key) if isinstance(parse_product(p), ProductRecord) and p["published"]
    ]


def _company(mirror, key):
    with mirror.Session() as session:
        return session.get(Company, key)


def _product(mirror, key, sku):
    with mirror.Session() as session:
        return session.get(Product, (key, sku))


def _set_company_text(upstream, key: str, field: str, value: str) -> None:
    record = upstream.catalog.get_company(key)
    if field == "price_description":
        upstream.catalog.touch_company(key, settings={**record["settings"], "price_description": value})
    elif field == "address.line1":
        upstream.catalog.touch_company(key, address={**(record.get("address") or {}), "line1": value})
    else:
        upstream.catalog.touch_company(key, **{field: value})


def _set_product_text(upstream, key: str, product: dict, field: str, value: str) -> None:
    if field == "specs":
        upstream.catalog.set_product(key, product["sku"], specs={**(product.get("specs") or {}), "note": value})
    elif field == "category.name":
        upstream.catalog.set_product(key, product["sku"], category={**product["category"], "name": value})
    else:
        upstream.catalog.set_product(key, product["sku"], **{field: value})


def _stored(row, field: str):
    if field == "address.line1":
        return row.address["line1"]
    if field == "category.name":
        return row.category_name
    if field == "specs":
        return row.specs["note"]
    return getattr(row, field)


def _other_changes(upstream, mirror, bad_key: str) -> tuple[str, tuple[str, str]]:
    """Two changes of the same run elsewhere: another company's rename, another product's price."""
    other = next(key for key in _public(upstream) if key != bad_key)
    upstream.catalog.touch_company(other, name="Renamed In The Same Run")
    product = _priced(upstream, other)[0]
    upstream.catalog.set_product(other, product["sku"], price="4321.09")
    return other, (other, product["sku"])


def _assert_other_changes_applied(mirror, other: str, product_key: tuple[str, str]) -> None:
    assert _company(mirror, other).name == "Renamed In The Same Run"
    assert _product(mirror, *product_key).price_cents == 432109


@pytest.mark.parametrize("bad", BAD.values(), ids=BAD.keys())
@pytest.mark.parametrize("field", ["price_description", "address.line1", "name"])
def test_unstorable_text_in_a_company_is_repaired_and_the_run_goes_on(mirror, upstream, field, bad, caplog):
    assert _sync(mirror, upstream).status == "success"
    key = _public(upstream)[0]
    _set_company_text(upstream, key, field, bad)
    other, product_key = _other_changes(upstream, mirror, key)
    result = _sync(mirror, upstream)
    assert result.status == "success", result.error
    assert result.counts.repaired_records == 1 and result.counts.invalid_records == 0
    assert _stored(_company(mirror, key), field) == _repaired(bad)
    _assert_other_changes_applied(mirror, other, product_key)
    [summary] = [r.getMessage() for r in caplog.records if "replaced unstorable characters" in r.getMessage()]
    assert key in summary
    for full in (False, True):  # and the next runs, whichever kind, still succeed
        assert _sync(mirror, upstream, full=full).status == "success"


@pytest.mark.parametrize("bad", BAD.values(), ids=BAD.keys())
@pytest.mark.parametrize("field", ["description", "specs", "name", "brand", "category.name"])
def test_unstorable_text_in_a_product_is_repaired_and_the_run_goes_on(mirror, upstream, field, bad):
    assert _sync(mirror, upstream).status == "success"
    key = _public(upstream)[0]
    product = _priced(upstream, key)[0]
    _set_product_text(upstream, key, product, field, bad)
    other, product_key = _other_changes(upstream, mirror, key)
    result = _sync(mirror, upstream)
    assert result.status == "success", result.error
    assert result.counts.repaired_records == 1 and result.counts.invalid_records == 0
    assert _stored(_product(mirror, key, product["sku"]), field) == _repaired(bad)
    _assert_other_changes_applied(mirror, other, product_key)
    for full in (False, True):
        assert _sync(mirror, upstream, full=full).status == "success"


def test_a_first_full_sync_with_bad_text_everywhere_succeeds(mirror, upstream):
    """Bad text before the mirror holds anything: the bulk inserts (COPY on Postgres) carry it."""
    for index, key in enumerate(_public(upstream)[:3]):
        _set_company_text(upstream, key, "price_description", list(BAD.values())[index])
        for product, bad in zip(_priced(upstream, key), BAD.values()):
            _set_product_text(upstream, key, product, "description", bad)
    result = _sync(mirror, upstream, full=True)
    assert result.status == "success", result.error
    assert result.counts.repaired_records == 3 + 9
    assert result.counts.invalid_records == upstream.catalog.stats()["invalid_products"]  # the demo's own, no more


def test_a_key_that_cannot_be_stored_makes_its_record_invalid(mirror, upstream):
    assert _sync(mirror, upstream).status == "success"
    key = _public(upstream)[0]
    upstream.catalog.set_product(
        key, "SKU-\ud800", name="x", category={"name": "Filters"}, price="10.00", published=True
    )
    other, product_key = _other_changes(upstream, mirror, key)
    result = _sync(mirror, upstream)
    assert result.status == "success" and result.counts.invalid_records == 1
    _assert_other_changes_applied(mirror, other, product_key)


def test_a_row_the_database_refuses_fails_alone(mirror, upstream, monkeypatch, caplog):
    """The boundary repairs every text field; should some value still reach the database unstorable
    (a field added without its type), the database's refusal is that record's failure: found among
    its batch by halving, skipped and reported, while the rest of the batch and the run are written."""
    import mirror.sync.apply as sync_module

    assert _sync(mirror, upstream).status == "success"
    key = _public(upstream)[0]
    doomed = [p["sku"] for p in _priced(upstream, key)[:2]]
    for product in _priced(upstream, key):
        upstream.catalog.set_product(key, product["sku"], description="rewritten " + product["sku"])
    other, product_key = _other_changes(upstream, mirror, key)
    product_values = sync_module._product_values

    def unstorable_for_two(record):
        values = product_values(record)
        if record.sku in doomed:  # what no driver can encode, past the boundary's repair
            values = {**values, "description": "lone \ud800"}
        return values

    monkeypatch.setattr(sync_module, "_product_values", unstorable_for_two)
    held = {sku: _product(mirror, key, sku).description for sku in doomed}
    result = _sync(mirror, upstream)
    assert result.status == "success", result.error
    assert result.counts.invalid_records == 2
    for sku in doomed:  # the last valid version is kept
        assert _product(mirror, key, sku).description == held[sku]
    for product in _priced(upstream, key):
        if product["sku"] not in doomed:
            assert _product(mirror, key, product["sku"]).description == "rewritten " + product["sku"]
    _assert_other_changes_applied(mirror, other, product_key)
    [summary] = [r.getMessage() for r in caplog.records if "refused by the database" in r.getMessage()]
    assert "skipped 2 invalid records" in summary and all(f"{key}/{sku}" in summary for sku in doomed)


def test_a_new_company_the_database_refuses_fails_alone_with_its_catalog(mirror, upstream, monkeypatch):
    import mirror.sync.apply as sync_module

    assert _sync(mirror, upstream).status == "success"
    added = upstream.catalog.add_company(products=4)["plugin_key"]
    other, product_key = _other_changes(upstream, mirror, added)
    company_values = sync_module._company_values

    def unstorable_for_the_new_one(record):
        values = company_values(record)
        return {**values, "name": "lone \udfff"} if record.plugin_key == added else values

    monkeypatch.setattr(sync_module, "_company_values", unstorable_for_the_new_one)
    result = _sync(mirror, upstream)
    assert result.status == "success", result.error
    # The mirror does not hold it, so its products are what any product of an unknown company is.
    catalog = upstream.catalog.products_of(added)
    assert result.counts.invalid_records == 1 and result.counts.orphan_products == len(catalog)
    assert _company(mirror, added) is None and _held_count(mirror, added) == 0
    _assert_other_changes_applied(mirror, other, product_key)
    monkeypatch.undo()
    upstream.catalog.touch_company(added, name="Fixed Upstream")  # its next change brings it in, whole
    assert _sync(mirror, upstream).status == "success"
    assert _company(mirror, added).name == "Fixed Upstream" and _held_count(mirror, added) == len(catalog)


def _held_count(mirror, key: str) -> int:
    with mirror.Session() as session:
        return session.scalar(select(func.count()).select_from(Product).where(Product.plugin_key == key))


def test_a_description_too_large_for_the_search_index_is_cut_to_its_cap(mirror, upstream):
    """Postgres refuses a tsvector over 1 MB: the description's cap keeps every product's far below it."""
    assert _sync(mirror, upstream).status == "success"
    key = _public(upstream)[0]
    product = _priced(upstream, key)[0]
    huge = " ".join(f"w{n:07d}x" for n in range(160_000))  # ~1.6 MB of distinct words
    upstream.catalog.set_product(key, product["sku"], description=huge)
    other, product_key = _other_changes(upstream, mirror, key)
    result = _sync(mirror, upstream)
    assert result.status == "success", result.error
    assert result.counts.invalid_records == 0 and result.counts.capped_records == 1
    assert _product(mirror, key, product["sku"]).description == cut_at_word(huge, DESCRIPTION_MAX_CHARS)
    _assert_other_changes_applied(mirror, other, product_key)


def test_the_cli_sync_exits_0_and_counts_the_repaired_record(database_url, upstream):
    key = _public(upstream)[0]
    _set_company_text(upstream, key, "price_description", BAD["nul"])
    result = run_cli("sync", "--json", database_url=database_url, upstream_url=upstream.url)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["status"] == "success" and summary["counts"]["repaired_records"] == 1
    assert "replaced unstorable characters" in result.stderr and key in result.stderr


def test_a_record_nested_deeper_than_the_parsers_costs_that_field_not_the_page():
    """A page the parsers refuse for depth alone is still read: the too-deep value becomes null,
    every other record of the page is intact, and the record model then treats the field as missing."""
    from mirror.sync.upstream import _parse_page

    deep = "[" * 5000 + '"]\\"[ text with brackets in it"' + "]" * 5000
    record = json.dumps({**PRODUCT, "sku": "DEEP"})[:-1] + f', "specs": {{"deep": {deep}, "seer2": 16}}}}'
    other = json.dumps({**PRODUCT, "sku": "PLAIN", "description": 'a "quoted" [bracketed] {text}'})
    body = f'{{"data": [{record}, {other}], "next_cursor": null, "server_time": "2026-09-01T17:30:17Z"}}'.encode()
    page = _parse_page(body)
    deep_record, plain_record = page.data
    assert plain_record == json.loads(other)
    assert deep_record["specs"]["seer2"] == 16
    parsed = parse_product(deep_record)
    assert isinstance(parsed, ProductRecord) and parsed.specs == {}
