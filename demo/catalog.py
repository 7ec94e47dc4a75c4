"""The demo upstream's catalog store: companies and products, kept in list order, changed on demand.

`DemoCatalog` generates its companies with `demo.generator`, keeps every list
the platform API walks (docs/contracts/upstream.md) as a sorted index of
(updated_at, key), and changes records as the admin API and the tests ask:
touch, reprice, delete, add, remove, mutate a fraction.

The record rules (`MISSING`, `MONEY_RE`, `iso_utc`, `parse_rfc3339`,
`product_is_valid`) live in `demo.records` and are importable from here too.
"""

from __future__ import annotations

import copy
import math
import random
import threading
import time
from bisect import bisect_left, bisect_right, insort
from typing import Any, NamedTuple

from demo.examples import example_companies
from demo.generator import CatalogGenerator, GeneratedCompany
from demo.records import (  # noqa: F401 - parse_rfc3339 is re-exported: the record rules are importable from here
    _KEY_ALPHABET,
    MISSING,
    MONEY_RE,
    ProductRow,
    iso_utc,
    money_to_cents,
    parse_rfc3339,
    product_is_valid,
    render_product,
    to_epoch,
)
from demo.vocabulary import PRICE_DESCRIPTIONS

# Generation-order index of the docs' example companies: after any seeded one.
EXAMPLE_INDEX = 10**9


class Page(NamedTuple):
    """One page of a list walk: rendered records and where the walk stands."""

    records: list
    last_position: tuple | None  # (updated_at, *key) of the last record, for the cursor
    has_more: bool


class _CompanyState:
    __slots__ = ("record", "ts", "index")

    def __init__(self, record: dict, ts: int, index: int):
        self.record, self.ts, self.index = record, ts, index


def _walk(index: list, since: int | None, after: tuple | None, limit: int, accept=None) -> tuple[list, bool]:
    """Up to `limit` index entries past `after` and at/after `since`.

    O(log n + limit): the index is a sorted list of (updated_at, *key) tuples.
    """
    start = 0 if since is None else bisect_left(index, (since,))
    if after is not None:
        start = max(start, bisect_right(index, after))
    taken, position = [], start
    while position < len(index) and len(taken) < limit:
        if accept is None or accept(index[position]):
            taken.append(index[position])
        position += 1
    while accept is not None and position < len(index) and not accept(index[position]):
        position += 1
    return taken, position < len(index)


def _index_remove(index: list, entry: tuple) -> None:
    position = bisect_left(index, entry)
    if position < len(index) and index[position] == entry:
        del index[position]


class DemoCatalog:
    """A seeded catalog held in memory, with the indexes the list API pages by.

    `companies` companies get `products` live products each (plus ~1% tombstones
    and a seeded share of invalid records); `empty_companies` more have none.
    Timestamps are real: generated ones fall between `base_time` (default: now
    minus `history_days`) and an hour ago; every change stamps `clock()`.
    `examples=True` adds the docs' companies (demo.examples), fixed whatever
    the seed. Thread-safe: the HTTP server reads while tests mutate.
    """

    def __init__(
        self,
        companies: int = 50,
        products: int = 100,
        seed: int = 1,
        *,
        empty_companies: int = 0,
        messiness: float = 1.0,
        base_time: Any = None,
        history_days: int = 30,
        clock=time.time,
        examples: bool = False,
    ):
        self.clock = clock
        self.seed = seed
        self.products_per_company = products
        now = math.floor(clock())
        base = to_epoch(base_time) if base_time is not None else now - history_days * 86400
        self.generator = CatalogGenerator(seed, messiness, base, max(base, now - 3600))
        self._lock = threading.RLock()
        self._companies: dict[str, _CompanyState] = {}
        self._products: dict[str, dict[str, ProductRow]] = {}
        self._company_index: list[tuple[int, str]] = []
        self._product_index: list[tuple[int, str, str]] = []
        self._per_company_index: dict[str, list[tuple[int, str]]] = {}
        self._next_index = 0
        self._mutations = 0
        for number in range(companies + empty_companies):
            self._insert(self._generate(products if number < companies else 0))
        if examples:  # after the seeded ones, so their indexes (and so their records) never move
            for offset, generated in enumerate(example_companies(self.generator.upper_time)):
                self._insert(generated, index=EXAMPLE_INDEX + offset)
        self._company_index.sort()
        self._product_index.sort()

    def now(self) -> int:
        """The server clock in whole seconds (what `server_time` shows)."""
        return math.floor(self.clock())

    # --- reading ---------------------------------------------------------------

    def company_keys(self) -> list[str]:
        """Every plugin_key, in generation order."""
        with self._lock:
            return sorted(self._companies, key=lambda key: self._companies[key].index)

    def get_company(self, plugin_key: str) -> dict | None:
        """The full upstream company record (private fields included)."""
        with self._lock:
            state = self._companies.get(plugin_key)
            return copy.deepcopy(self._render_company(state)) if state else None

    def get_product(self, plugin_key: str, sku: str) -> dict | None:
        """The upstream record of one product (a tombstone if deleted)."""
        with self._lock:
            row = self._products.get(plugin_key, {}).get(sku)
            return copy.deepcopy(render_product(row)) if row else None

    def products_of(self, plugin_key: str, include_tombstones: bool = False) -> list[dict]:
        """A company's products in (updated_at, sku) order."""
        with self._lock:
            rows = self._products[plugin_key]
            entries = self._per_company_index[plugin_key]
            return [
                copy.deepcopy(render_product(rows[sku]))
                for _, sku in entries
                if include_tombstones or not rows[sku].deleted
            ]

    def company_page(self, since: int | None, after: tuple | None, limit: int) -> Page:
        """A page of `/v1/companies`."""
        with self._lock:
            entries, more = _walk(self._company_index, since, after, limit)
            records = [self._render_company(self._companies[key]) for _, key in entries]
            return Page(records, entries[-1] if entries else after, more)

    def product_page(self, since: int | None, after: tuple | None, limit: int) -> Page:
        """A page of `/v1/products`: every company, tombstones included."""
        with self._lock:
            entries, more = _walk(self._product_index, since, after, limit)
            records = [render_product(self._products[key][sku]) for _, key, sku in entries]
            return Page(records, entries[-1] if entries else after, more)

    def company_product_page(self, plugin_key: str, since: int | None, after: tuple | None, limit: int) -> Page:
        """A page of one company's products; KeyError for an unknown company.

        Without `since` it is the current catalog, so tombstones are left out.
        """
        with self._lock:
            rows = self._products[plugin_key]
            live_only = None if since is not None else (lambda entry: not rows[entry[1]].deleted)
            entries, more = _walk(self._per_company_index[plugin_key], since, after, limit, live_only)
            records = [render_product(rows[sku]) for _, sku in entries]
            return Page(records, entries[-1] if entries else after, more)

    def stats(self) -> dict:
        """Counts a test or benchmark can compare a mirror against (renders every row)."""
        with self._lock:
            public = {
                key
                for key, state in self._companies.items()
                if state.record.get("status") == "active" and state.record.get("storefront_live") is True
            }
            counts = dict.fromkeys(
                ("products", "tombstones", "invalid_products", "valid_products", "public_products"), 0
            )
            for key, rows in self._products.items():
                for row in rows.values():
                    self._count_row(counts, render_product(row), key in public)
            return {
                "seed": self.seed,
                "companies": len(self._companies),
                "public_companies": len(public),
                **counts,
                "base_time": iso_utc(self.generator.base_time),
                "server_time": iso_utc(self.now()),
            }

    @staticmethod
    def _count_row(counts: dict, record: dict, company_public: bool) -> None:
        if record.get("deleted") is True:
            counts["tombstones"] += 1
            return
        counts["products"] += 1
        if not product_is_valid(record):
            counts["invalid_products"] += 1
            return
        counts["valid_products"] += 1
        if company_public and record["published"] is True and money_to_cents(record["price"]) > 0:
            counts["public_products"] += 1

    # --- changing ----------------------------------------------------------------

    def touch_company(self, plugin_key: str, **fields: Any) -> dict:
        """Set top-level company fields (MISSING removes one) and stamp it now.

        `updated_at=` (epoch or RFC 3339) stamps that time instead, e.g. to
        imitate a write that was in flight behind the watermark.
        """
        with self._lock:
            state = self._companies[plugin_key]
            ts = to_epoch(fields.pop("updated_at")) if "updated_at" in fields else self.now()
            fields.pop("plugin_key", None)  # the key is the identity; it never changes
            for name, value in fields.items():
                if value is MISSING:
                    state.record.pop(name, None)
                else:
                    state.record[name] = copy.deepcopy(value)
            _index_remove(self._company_index, (state.ts, plugin_key))
            state.ts = ts
            insort(self._company_index, (ts, plugin_key))
            return copy.deepcopy(self._render_company(state))

    def set_product(self, plugin_key: str, sku: str, **fields: Any) -> dict:
        """Change (or create, or revive) a product and stamp it now.

        Any field may be given, valid or not (price="abc" makes an invalid
        record); MISSING removes a field; `updated_at=` stamps that time. A new
        SKU starts with no fields but plugin_key and sku.
        """
        with self._lock:
            rows = self._products[plugin_key]
            ts = to_epoch(fields.pop("updated_at")) if "updated_at" in fields else self.now()
            old = rows.get(sku) or ProductRow(plugin_key, sku, None, MISSING, MISSING, MISSING, ts)
            core = {name: fields.pop(name) for name in ("price", "cost", "published") if name in fields}
            for identity in ("plugin_key", "sku", "deleted"):  # set by the call, not by fields
                fields.pop(identity, None)
            extra = {**(old.extra or {}), **copy.deepcopy(fields)} or None
            new = old._replace(ts=ts, deleted=False, extra=extra, **core)
            self._replace_rows([new])
            return copy.deepcopy(render_product(new))

    def delete_product(self, plugin_key: str, sku: str, updated_at: Any = None) -> dict:
        """Delete a product: it becomes a tombstone stamped now (KeyError if unknown)."""
        with self._lock:
            old = self._products[plugin_key][sku]
            ts = self.now() if updated_at is None else to_epoch(updated_at)
            new = ProductRow(plugin_key, sku, old.template, old.price, old.cost, old.published, ts, True, old.extra)
            self._replace_rows([new])
            return copy.deepcopy(render_product(new))

    def add_company(self, products: int | None = None, **fields: Any) -> dict:
        """Generate a new company (and its catalog) stamped now; fields override.

        `plugin_key=` chooses the key; `products=` the catalog size (default:
        the catalog's per-company count).
        """
        with self._lock:
            count = self.products_per_company if products is None else products
            generated = self._generate(count, stamp=self.now())
            record = generated.record
            if "plugin_key" in fields:
                key = fields.pop("plugin_key")
                rows = [row._replace(plugin_key=key) for row in generated.products]
                generated = generated._replace(record={**record, "plugin_key": key}, products=rows)
            if generated.record["plugin_key"] in self._companies:
                raise ValueError("plugin_key already exists")
            self._insert(generated, indexed=True)
            fields.setdefault("updated_at", generated.ts)
            return self.touch_company(generated.record["plugin_key"], **fields)

    def remove_company(self, plugin_key: str) -> None:
        """Purge a company and its products, as if the platform hard-deleted it.

        Nothing on any list says so: only a full resync can notice.
        """
        with self._lock:
            state = self._companies.pop(plugin_key)
            _index_remove(self._company_index, (state.ts, plugin_key))
            del self._products[plugin_key], self._per_company_index[plugin_key]
            self._product_index = [entry for entry in self._product_index if entry[1] != plugin_key]

    def mutate(self, fraction: float = 0.01, seed: Any = None, company_fraction: float = 0.0) -> list:
        """Reprice (and sometimes rename or unpublish) `fraction` of the valid live products.

        Returns the (plugin_key, sku) pairs changed; all are stamped now.
        `company_fraction` of the companies also get a new phone and price note.
        """
        with self._lock:
            self._mutations += 1
            rng = random.Random(f"{self.seed}:mutate:{self._mutations}" if seed is None else seed)
            candidates = [
                row
                for rows in self._products.values()
                for row in rows.values()
                if not row.deleted and isinstance(row.price, str) and MONEY_RE.match(row.price)
            ]
            chosen = rng.sample(candidates, min(len(candidates), math.ceil(len(candidates) * fraction)))
            now = self.now()
            self._replace_rows([self._mutated(rng, row, now) for row in chosen])
            keys = sorted(self._companies)
            for key in rng.sample(keys, math.ceil(len(keys) * company_fraction)):
                self.touch_company(
                    key,
                    phone=f"({rng.randint(201, 989)}) 555-{rng.randrange(10000):04d}",
                    settings={
                        **self._companies[key].record.get("settings", {}),
                        "price_description": rng.choice(PRICE_DESCRIPTIONS),
                    },
                )
            return [(row.plugin_key, row.sku) for row in chosen]

    def _mutated(self, rng: random.Random, row: ProductRow, now: int) -> ProductRow:
        cents = money_to_cents(row.price) * rng.randint(92, 112) // 100
        if row.template is not None and row.template.tier is not None:
            cents -= cents % 100  # systems sell in whole dollars
        extra = dict(row.extra or {})
        roll = rng.random()
        if roll < 0.15 and row.template is not None:
            extra["name"] = row.template.name + rng.choice((" (2026 model)", " – Spring Special"))
        published = (not row.published) if roll > 0.97 else row.published
        return row._replace(
            price=self.generator.money(max(cents, 100)), published=published, ts=now, extra=extra or None
        )

    # --- storage -------------------------------------------------------------------

    def _generate(self, products: int, stamp: int | None = None) -> GeneratedCompany:
        generated = self.generator.company(self._next_index, products, stamp)
        self._next_index += 1
        while generated.record["plugin_key"] in self._companies:  # 62**40: never, but cheap
            generated.record["plugin_key"] = "".join(random.choices(_KEY_ALPHABET, k=40))
        return generated

    def _insert(self, generated: GeneratedCompany, indexed: bool = False, index: int | None = None) -> None:
        """Store a generated company; `indexed=False` appends (caller sorts once)."""
        key = generated.record["plugin_key"]
        index = self._next_index - 1 if index is None else index
        self._companies[key] = _CompanyState(generated.record, generated.ts, index)
        rows = self._products[key] = {
            row.sku: row if row.plugin_key == key else row._replace(plugin_key=key) for row in generated.products
        }
        self._per_company_index[key] = sorted((row.ts, row.sku) for row in rows.values())
        add = insort if indexed else list.append
        add(self._company_index, (generated.ts, key))
        for row in rows.values():
            add(self._product_index, (row.ts, key, row.sku))

    def _replace_rows(self, new_rows: list[ProductRow]) -> None:
        """Store changed rows and move their index entries to the new stamps."""
        old_entries = []
        for new in new_rows:
            rows = self._products[new.plugin_key]
            old = rows.get(new.sku)
            per_company = self._per_company_index[new.plugin_key]
            if old is not None:
                old_entries.append((old.ts, old.plugin_key, old.sku))
                _index_remove(per_company, (old.ts, old.sku))
            rows[new.sku] = new
            insort(per_company, (new.ts, new.sku))
        new_entries = [(row.ts, row.plugin_key, row.sku) for row in new_rows]
        if len(new_rows) > 64:  # one filtered rebuild beats thousands of O(n) list shifts
            gone = set(old_entries)
            self._product_index = [e for e in self._product_index if e not in gone] + new_entries
            self._product_index.sort()  # Timsort: two sorted runs merge in O(n)
        else:
            for entry in old_entries:
                _index_remove(self._product_index, entry)
            for entry in new_entries:
                insort(self._product_index, entry)

    @staticmethod
    def _render_company(state: _CompanyState) -> dict:
        return {**state.record, "updated_at": iso_utc(state.ts)}
