"""What each product is (`products.kinds`, `measures`, `kind_evidence`, migration 0011; `features`, 0012) and the
labels a page shows of it (`labels`, 0017), read by the sync that writes it.

Every product a run writes is read there (mirror/query/product_reading.py:
its kinds from its name, category, slug, model numbers and specs keys, and
the trade abbreviations its contractor's trades read; its sizes and ratings),
and the reading goes into the same rows, in the run's one transaction. A
reading depends on more than the product's record, so when a run finishes
(mirror/sync/rebuild.py) the products are read again where that moved:

- every product, when the reading's rules (the vocabulary, the units table,
  the reader: `rules_version`) differ from those the stored readings were made
  with (the first run of a release that changed them; 0.1 ms a product);
- a company's products, when its trades changed (an abbreviation it reads
  may mean something else to it now).

Only the rows whose reading changed are written, set-wise, without touching
the columns the search vector is made of. `explain` is the operator's view of
one product's reading (`flask --app wsgi products explain KEY SKU`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from sqlalchemy import select
from sqlalchemy.orm import Session

from mirror.catalog.product_facts import product_facts, product_labels
from mirror.catalog.records import ProductRecord
from mirror.query.product_reading import read_product, rules_version
from mirror.store import state as st
from mirror.store.models import Company, Product
from mirror.sync.bulk import batches, keys_in, update_rows

COLUMNS = ("kinds", "measures", "kind_evidence", "features", "labels")


def reading_values(
    name: str, category_name: str, category_slug: str, model_numbers, specs, trades: Iterable[str] | None
) -> dict:
    """The stored columns of a product's reading (COLUMNS): new objects each call, the caller's to keep."""
    trades = None if trades is None else tuple(trades)
    try:
        reading = _reading(
            _Read(
                (name, category_name, category_slug, repr(model_numbers), repr(specs), trades),
                (name, category_name, category_slug, model_numbers, specs, trades),
            )
        )
    except TypeError:  # an unhashable value where text was expected: read it uncached
        reading = _read(name, category_name, category_slug, model_numbers, specs, trades)
    kinds, measures, (decided_by, overruled), features, labels = reading
    return {
        "kinds": list(kinds),
        "measures": dict(measures),
        "kind_evidence": {"decided_by": [list(e) for e in decided_by], "overruled": [list(e) for e in overruled]},
        "features": list(features),
        "labels": product_labels(labels),
    }


def _read(name, category_name, category_slug, model_numbers, specs, trades) -> tuple:
    """A product's reading, in an immutable form (each COLUMNS value as a tuple, the measures as pairs)."""
    reading = read_product(name, category_name, category_slug, model_numbers, specs, trades)
    record = reading.evidence_record()
    return (
        reading.kinds,
        tuple(reading.measures.items()),
        tuple(tuple(tuple(e) for e in record[part]) for part in ("decided_by", "overruled")),
        reading.features,
        product_facts(specs, name),
    )


class _Read:
    """One product's reading inputs, hashed and compared by `key` (its values, their types told apart by repr:
    `{"tons": 2}` is not `{"tons": 2.0}` nor `{"tons": true}`); `args` are read on a miss."""

    __slots__ = ("key", "args")

    def __init__(self, key: tuple, args: tuple) -> None:
        self.key, self.args = key, args

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other) -> bool:
        return isinstance(other, _Read) and self.key == other.key


# A catalog's products are read alike, and catalogs alike (a distributor's lines, one template): the sync's full
# run of the benchmark's 200,000 products reads 9,574 distinct inputs, and a reading costs ~50 us where the
# cache's lookup costs ~3 us. read_product is a pure function of its inputs and the rules (fixed per process).
READINGS_CACHED = 16384
_reading = lru_cache(maxsize=READINGS_CACHED)(lambda read: _read(*read.args))


def record_values(record: ProductRecord, trades: Iterable[str] | None) -> dict:
    """The reading of a product record the sync is about to write."""
    return reading_values(
        record.name, record.category_name, record.category_slug, record.model_numbers, record.specs, trades
    )


def company_trades(session: Session, keys: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """The trades of the companies `keys` the mirror holds."""
    wanted = sorted(set(keys))
    found: dict[str, tuple[str, ...]] = {}
    for some in batches(wanted):
        statement = select(Company.plugin_key, Company.trades).where(keys_in(Company.plugin_key, some))
        found.update((row.plugin_key, tuple(row.trades or ())) for row in session.execute(statement))
    return found


def refresh(session: Session, keys: Iterable[str], columns: tuple[str, ...] = COLUMNS) -> None:
    """Read again the products of the companies `keys`; of every company when the rules changed since the
    stored readings were made (see the module docstring). `columns`: those written (a migration writes the
    columns of its own revision)."""
    if st.read_state(session).get(st.FACTS_VERSION) != rules_version():
        keys = list(session.scalars(select(Company.plugin_key).order_by(Company.plugin_key)))
        st.put(session, st.FACTS_VERSION, rules_version())
    for some in batches(sorted(set(keys))):
        _refresh_some(session, list(some), columns)


def read_rows_already_there(bind, columns: tuple[str, ...]) -> None:
    """Read every product the database holds, in the transaction of `bind` (a migration's connection: nothing is
    committed here), writing the reading `columns` a migration adds (0011 its kinds, 0012 the features)."""
    session = Session(bind=bind)
    try:
        refresh(session, [], columns)  # the migration removed the rules' version: every company's products
        session.flush()
    finally:
        session.close()


def _refresh_some(session: Session, keys: list[str], written: tuple[str, ...]) -> None:
    trades = company_trades(session, keys)
    columns = (
        Product.plugin_key,
        Product.sku,
        Product.name,
        Product.category_name,
        Product.category_slug,
        Product.model_numbers,
        Product.specs,
        *(getattr(Product, column) for column in written),
    )
    changed = []
    for row in session.execute(select(*columns).where(keys_in(Product.plugin_key, keys))):
        values = reading_values(
            row.name, row.category_name, row.category_slug, row.model_numbers, row.specs, trades.get(row.plugin_key)
        )
        if any(values[column] != getattr(row, column) for column in written):
            changed.append(
                {"plugin_key": row.plugin_key, "sku": row.sku, **{column: values[column] for column in written}}
            )
    update_rows(session, Product, changed)


@dataclass(frozen=True)
class Explained:
    """A product's stored reading, beside the one today's rules make of its stored record (`products explain`)."""

    plugin_key: str
    sku: str
    name: str
    category_name: str
    category_slug: str
    trades: tuple[str, ...]
    stored: dict  # the COLUMNS as stored (None when never read)
    current: dict  # the COLUMNS as the rules read the product now

    @property
    def up_to_date(self) -> bool:
        """Whether the stored reading is the one today's rules make (else the next sync stores that one)."""
        return self.stored == self.current


def explain(session: Session, plugin_key: str, sku: str) -> Explained | None:
    """What the mirror holds a product to be and why; None when it holds no such product."""
    columns = (
        Product.name,
        Product.category_name,
        Product.category_slug,
        Product.model_numbers,
        Product.specs,
        *(getattr(Product, column) for column in COLUMNS),
    )
    row = session.execute(select(*columns).where(Product.plugin_key == plugin_key, Product.sku == sku)).first()
    if row is None:
        return None
    trades = company_trades(session, [plugin_key]).get(plugin_key, ())
    return Explained(
        plugin_key=plugin_key,
        sku=sku,
        name=row.name,
        category_name=row.category_name,
        category_slug=row.category_slug,
        trades=trades,
        stored={column: getattr(row, column) for column in COLUMNS},
        current=reading_values(row.name, row.category_name, row.category_slug, row.model_numbers, row.specs, trades),
    )
