"""What each product is, stored by the sync with its rows (mirror/sync/facts.py, migrations 0011, 0012 and 0017), and
explained.

The sync reads every product it writes (mirror/query/product_reading.py) in
the run's transaction; it reads a company's products again when its trades
change and every product when the reading's rules change; migrations 0011
and 0012 (the features) read the rows already there on upgrade; the
directory's concept tags are the stored kinds, with their products' prices
(migration 0015 makes them again); `flask --app wsgi products
explain` says which evidence decided.
"""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select, text, update

from mirror.query.product_reading import rules_version
from mirror.store import state as st
from mirror.store.models import CompanyConcept, Product
from tests.commands.test_cli_errors import error_line, run_cli
from tests.surface_helpers import add_company, set_product

KEY = "readings-test"
HP = {"name": "HP & Air Handler", "slug": "hp-air-handler", "kind": "system"}
CATALOG = (
    {
        "sku": "HPAH-2T-GOOD",
        "name": "Lennox Good HP & Air Handler, 2 ton",
        "brand": "Lennox",
        "category": HP,
        "tier": "good",
        "price": "9400",
        "specs": {"tonnage": 2, "seer2": 14, "hspf2": 7.5},
    },
    {
        "sku": "FURN-HP",  # a name that says furnace, specs that say heat pump
        "name": "Goodman Gas Furnace, 60K BTU",
        "brand": "Goodman",
        "category": {"name": "Furnace", "slug": "furnace", "kind": "system"},
        "tier": "good",
        "price": "5100",
        "specs": {"hspf2": 8.1},
    },
)


def _sync(mirror) -> None:
    result = mirror.sync()
    assert result.status == "success", result.error


def stored(mirror, sku: str, key: str = KEY) -> tuple:
    with mirror.Session() as session:
        row = session.execute(
            select(Product.kinds, Product.measures, Product.kind_evidence).where(
                Product.plugin_key == key, Product.sku == sku
            )
        ).one()
    return tuple(row)


def tags(mirror, key: str = KEY) -> set[str]:
    with mirror.Session() as session:
        return set(session.scalars(select(CompanyConcept.concept).where(CompanyConcept.plugin_key == key)))


def test_the_sync_stores_what_each_product_is(mirror, upstream):
    add_company(upstream, CATALOG, plugin_key=KEY, trades=["hvac"])
    _sync(mirror)
    kinds, measures, evidence = stored(mirror, "HPAH-2T-GOOD")
    assert kinds == ["heat-pump", "air-handler"] and measures == {"capacity": 24000, "seer": 14, "hspf": 7.5}
    assert ["heat-pump", "name", "hp", "abbreviation"] in evidence["decided_by"]
    kinds, _, evidence = stored(mirror, "FURN-HP")
    assert kinds == ["heat-pump"] and {tuple(e[:1] + e[-1:]) for e in evidence["overruled"]} == {("furnace", "hspf2")}
    assert tags(mirror) == {"heat-pump", "air-handler"}  # the directory's tags are the stored kinds
    with mirror.Session() as session:
        assert st.read_state(session)[st.FACTS_VERSION] == rules_version()
    # Every product of the demo catalog has its reading, in the same commit as its row.
    with mirror.engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM products WHERE kinds IS NULL")).scalar() == 0
    # A changed record is read again.
    set_product(upstream, KEY, "FURN-HP", specs={"afue": 96}, price="5200")
    _sync(mirror)
    assert stored(mirror, "FURN-HP")[0] == ["furnace"]
    assert tags(mirror) == {"heat-pump", "air-handler", "furnace"}


def test_a_change_of_trades_or_of_the_rules_reads_the_products_again(mirror, upstream):
    platform_style = {**CATALOG[0], "specs": {"tonnage": 2, "seer2": 14}}  # no HSPF2: the words alone say it
    add_company(upstream, [platform_style], plugin_key=KEY, trades=["plumbing"])
    _sync(mirror)
    assert stored(mirror, "HPAH-2T-GOOD")[0] == ["air-handler"]  # a plumber's "HP" is no heat pump
    upstream.catalog.touch_company(KEY, trades=["hvac"])
    _sync(mirror)
    assert stored(mirror, "HPAH-2T-GOOD")[0] == ["heat-pump", "air-handler"]
    # A reading made by other rules (another release's) is made again by the next run, whatever it touched.
    with mirror.Session() as session:
        session.execute(update(Product).where(Product.plugin_key == KEY).values(kinds=["boiler"]))
        st.put(session, st.FACTS_VERSION, "another release")
        session.commit()
    _sync(mirror)
    assert stored(mirror, "HPAH-2T-GOOD")[0] == ["heat-pump", "air-handler"]
    assert "boiler" not in tags(mirror)


def test_migration_0011_reads_the_rows_already_there(mirror, upstream, database_url):
    from alembic import command

    from mirror.store.migrate import alembic_config

    add_company(upstream, CATALOG, plugin_key=KEY, trades=["hvac"])
    _sync(mirror)
    readings = {sku: stored(mirror, sku) for sku in ("HPAH-2T-GOOD", "FURN-HP")}
    every = text("SELECT plugin_key, sku, kinds, measures::text, kind_evidence::text FROM products ORDER BY 1, 2")
    with mirror.engine.connect() as connection:
        before = connection.execute(every).all()
    config = alembic_config(database_url)
    command.downgrade(config, "0010")
    with mirror.engine.connect() as connection:
        columns = connection.execute(
            text("SELECT column_name FROM information_schema.columns WHERE table_name = 'products'")
        )
        assert "kinds" not in set(columns.scalars())
        assert connection.execute(text("SELECT count(*) FROM products")).scalar() == len(before)  # data in it
    mirror.dispose()
    command.upgrade(config, "head")
    command.check(config)
    with mirror.engine.connect() as connection:
        assert connection.execute(every).all() == before
    assert {sku: stored(mirror, sku) for sku in readings} == readings
    with mirror.Session() as session:
        assert st.read_state(session)[st.FACTS_VERSION] == rules_version()


@pytest.mark.slow
def test_products_explain_says_which_evidence_decided(mirror, upstream, database_url):
    add_company(upstream, CATALOG, plugin_key=KEY, trades=["hvac"])
    _sync(mirror)
    result = run_cli("products", "explain", KEY, "FURN-HP", database_url=database_url)
    assert result.returncode == 0, result.stderr
    assert [" ".join(line.split()) for line in result.stdout.splitlines()] == [
        f"Goodman Gas Furnace, 60K BTU ({KEY} / FURN-HP)",
        "category Furnace (furnace)",
        "trades hvac",
        "kinds heat-pump",
        "measures capacity 60000, hspf 8.1",
        "evidence heat-pump identifies specs 'hspf2'",
        "overruled furnace name name 'gas furnace' (the specs' 'hspf2' say otherwise)",
        "furnace name category 'furnace' (the specs' 'hspf2' say otherwise)",
    ]
    as_json = json.loads(
        run_cli("products", "explain", KEY, "HPAH-2T-GOOD", "--json", database_url=database_url).stdout
    )
    assert as_json["kinds"] == ["heat-pump", "air-handler"] and as_json["up_to_date"] is True
    missing = run_cli("products", "explain", KEY, "NOPE", database_url=database_url)
    assert missing.returncode == 8 and "holds no product 'NOPE'" in error_line(missing)


def test_the_features_a_product_states_are_stored_and_migration_0012_reads_them(mirror, upstream, database_url):
    from alembic import command

    from mirror.store.migrate import alembic_config

    furnace = {**CATALOG[1], "sku": "FURN-2S", "name": "Goodman Wi-Fi Gas Furnace", "specs": {"afue": 96, "stages": 2}}
    add_company(upstream, [*CATALOG, furnace], plugin_key=KEY, trades=["hvac"])
    _sync(mirror)

    def features() -> dict:
        with mirror.Session() as session:
            rows = session.execute(select(Product.sku, Product.features).where(Product.plugin_key == KEY))
            return dict(rows.all())

    assert features() == {"HPAH-2T-GOOD": [], "FURN-HP": [], "FURN-2S": ["wifi", "two-stage"]}
    explained = run_cli("products", "explain", KEY, "FURN-2S", database_url=database_url)
    assert "features wifi, two-stage" in [" ".join(line.split()) for line in explained.stdout.splitlines()]
    config = alembic_config(database_url)
    command.downgrade(config, "0011")
    mirror.dispose()
    command.upgrade(config, "head")
    command.check(config)
    assert features()["FURN-2S"] == ["wifi", "two-stage"]
    with mirror.Session() as session:
        assert st.read_state(session)[st.FACTS_VERSION] == rules_version()


def test_the_labels_a_page_shows_are_stored_and_migration_0017_reads_them(mirror, upstream, database_url):
    """A product's size, ratings and warranty are read when it is written (the documents a run renders read them
    from the row, never from the specs again); the migration reads the rows already there."""
    from alembic import command

    from mirror.catalog.product_facts import product_facts, product_labels
    from mirror.store.migrate import alembic_config

    add_company(upstream, CATALOG, plugin_key=KEY, trades=["hvac"])
    _sync(mirror)

    def labels() -> dict:
        with mirror.Session() as session:
            return dict(session.execute(select(Product.sku, Product.labels).where(Product.plugin_key == KEY)).all())

    expected = {p["sku"]: product_labels(product_facts(p["specs"], p["name"])) for p in CATALOG}
    assert labels() == expected
    assert expected["HPAH-2T-GOOD"] == {"size": "2 ton", "efficiency": ["14 SEER2", "7.5 HSPF2"], "warranty": None}
    set_product(upstream, KEY, **{**CATALOG[0], "specs": {"tonnage": 3, "seer2": 16}})
    _sync(mirror)
    assert labels()["HPAH-2T-GOOD"] == {"size": "3 ton", "efficiency": ["16 SEER2"], "warranty": None}
    config = alembic_config(database_url)
    command.downgrade(config, "0016")
    mirror.dispose()
    command.upgrade(config, "head")
    command.check(config)
    assert labels()["HPAH-2T-GOOD"] == {"size": "3 ton", "efficiency": ["16 SEER2"], "warranty": None}
    assert labels()["FURN-HP"] == expected["FURN-HP"]


def test_migration_0015_tags_the_companies_there_with_their_prices(mirror, upstream, database_url):
    from alembic import command

    from mirror.store.migrate import alembic_config
    from mirror.sync.concepts import vocabulary_version

    add_company(upstream, CATALOG, plugin_key=KEY, trades=["hvac"])
    _sync(mirror)
    columns = "plugin_key, concept, price_low_cents, price_high_cents, offer_count, category_name, category_slug"
    every = text(f"SELECT {columns} FROM company_concepts ORDER BY 1, 2")
    with mirror.engine.connect() as connection:
        before = connection.execute(every).all()
    # Both products are heat pumps (the furnace's specs say so): the range is theirs, under the cheapest's category.
    assert (KEY, "heat-pump", 510_000, 940_000, 2, "Furnace", "furnace") in before, before
    assert (KEY, "air-handler", 940_000, 940_000, 1, HP["name"], HP["slug"]) in before, before
    config = alembic_config(database_url)
    command.downgrade(config, "0014")
    with mirror.engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM company_concepts")).scalar() == len(before)  # untouched
    mirror.dispose()
    command.upgrade(config, "head")
    command.check(config)
    with mirror.engine.connect() as connection:
        assert connection.execute(every).all() == before  # made again, as the sync makes them
    with mirror.Session() as session:
        assert st.read_state(session)[st.CONCEPTS_VERSION] == vocabulary_version()
