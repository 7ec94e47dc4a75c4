"""Seeded contractor catalogs for the demo upstream (docs/contracts/upstream.md).

`CatalogGenerator` turns a seed into companies and products that look like
real HVAC and plumbing contractors, with a small, seeded share of the mess the
real platform holds (local-format phones, bare hosts, ZIP+4, odd tiers,
invalid prices, tombstones, hostile text). `messiness=0` gives clean data.

As the real platform does, the generated records carry private fields; the
private ones (`internal_id`, `owner`, `cost`, `dealer_notes`) are served so the
tests can prove the mirror never stores or shows them.
"""

from __future__ import annotations

import random
import re
import zlib
from typing import Any, NamedTuple

from demo.records import _KEY_ALPHABET, MISSING, ProductRow, ProductTemplate, format_cents, iso_utc, money_to_cents
from demo.vocabulary import (
    ACCESSORIES,
    BRANDS,
    CITIES,
    DEALER_NOTES,
    FIRST_NAMES,
    HOSTILE_TEXT,
    LAST_NAMES,
    PRICE_DESCRIPTIONS,
    STEMS,
    STREETS,
    SUFFIXES,
    SYSTEM_LINES,
    TIER_MULTIPLIER,
    VARIANT_NAMES,
    Accessory,
    SystemLine,
)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower().replace("'", "")).strip("-")[:40]


def _model_numbers(brand: str, line: SystemLine, code: str, tier: str, variant: int) -> tuple:
    prefix = "".join(word[0] for word in brand.replace(".", " ").split())[:2].upper()
    size = re.sub(r"\D", "", code).zfill(3)
    tier_code = {"good": "1", "better": "2", "best": "3"}[tier]
    first = f"{prefix}{line.sku_prefix[:2]}{tier_code}{variant}-{size}"
    if line.sku_prefix == "HPAH":  # a split system: outdoor unit and air handler
        return (first, f"{prefix}AH{tier_code}-{size}")
    return (first,)


class GeneratedCompany(NamedTuple):
    """A company as generated: record (without updated_at), stamp, products."""

    record: dict
    ts: int
    products: list


class CatalogGenerator:
    """Deterministic companies and products for one seed.

    Each company and each catalog draws from its own `random.Random` seeded by
    (seed, index), so company 7 is the same whether 10 or 10,000 are made.
    Every irregularity rate is multiplied by `messiness` (0 = clean data).
    """

    def __init__(self, seed: int, messiness: float, base_time: int, upper_time: int):
        self.seed = seed
        self.messiness = messiness
        self.base_time = base_time
        self.upper_time = upper_time
        self._templates: dict[tuple, ProductTemplate] = {}
        self._strings: dict[str, str] = {}  # interned money strings: few distinct values

    def quirk(self, rng: random.Random, rates: dict[str, float]) -> str | None:
        """Pick at most one irregularity; each has `rate * messiness` odds."""
        roll = rng.random()
        for name, rate in rates.items():
            roll -= rate * self.messiness
            if roll < 0:
                return name
        return None

    def company(self, index: int, products: int, stamp: int | None = None) -> GeneratedCompany:
        """Generate company number `index` with `products` live products."""
        rng = random.Random(f"{self.seed}:company:{index}")
        trades = rng.choice((("hvac",),) * 11 + (("plumbing",),) * 5 + (("hvac", "plumbing"),) * 4)
        city = rng.choice(CITIES)
        name = self._company_name(rng, trades)
        host = _slug(name) + ".example"
        ts = stamp if stamp is not None else rng.randint(self.base_time, self.upper_time)
        record = {
            "plugin_key": "".join(rng.choices(_KEY_ALPHABET, k=40)),
            "internal_id": 40000
            + index * 3
            + rng.randrange(3),  # private upstream field: the mirror drops it at the boundary
            "name": name,
            "trades": self._trades_field(rng, trades),
            **self._status(rng),
            "phone": self._phone(rng, city[5]),
            "website": self._website(rng, host),
            "address": self._address(rng, city, ts),
            "service_area": self._service_area(rng, city[2]),
            "settings": self._settings(rng, host),
            "owner": self._owner(rng, host, city[5]),
        }
        record = {k: v for k, v in record.items() if v is not MISSING}
        rows = self.products(record["plugin_key"], index, trades, products, stamp)
        return GeneratedCompany(record, ts, rows)

    def _company_name(self, rng: random.Random, trades: tuple) -> str:
        style = rng.random()
        last = rng.choice(LAST_NAMES)
        base = (
            rng.choice(STEMS)
            if style < 0.6
            else f"{last} & Sons"
            if style < 0.8
            else f"{last} Brothers"
            if style < 0.9
            else f"{last}'s"
        )
        name = f"{base} {rng.choice(SUFFIXES[trades])}"
        if self.quirk(rng, {"hostile": 0.004}):
            name = f"{name} {rng.choice(HOSTILE_TEXT)}"
        return name

    def _trades_field(self, rng: random.Random, trades: tuple) -> Any:
        quirk = self.quirk(rng, {"missing": 0.03, "empty": 0.02, "string": 0.02, "upper": 0.06, "extra": 0.03})
        if quirk == "missing":
            return MISSING
        if quirk == "empty":
            return []
        if quirk == "string":
            return trades[0]  # not a list: counts as missing
        if quirk == "upper":
            return [t.upper() if t == "hvac" else t.capitalize() for t in trades]
        if quirk == "extra":
            return list(trades) + [rng.choice(("electrical", "roofing", "solar"))]
        return list(trades)

    def _status(self, rng: random.Random) -> dict:
        status = "churned" if self.quirk(rng, {"churned": 0.05}) else "active"
        live = self.quirk(rng, {"off": 0.06, "missing": 0.03})
        if live == "missing":
            return {"status": status}
        return {"status": status, "storefront_live": live is None}

    def _phone(self, rng: random.Random, area: int) -> Any:
        line = rng.randrange(10000)
        quirk = self.quirk(rng, {"spaced": 0.08, "dotted": 0.03, "missing": 0.04, "empty": 0.01, "garbage": 0.02})
        if quirk == "spaced":
            return f"+1 {area} 555 {line:04d}"
        if quirk == "dotted":
            return f"{area}.555.{line:04d}"
        if quirk in ("missing", "empty"):
            return MISSING if quirk == "missing" else ""
        if quirk == "garbage":
            return rng.choice(("call us!", "555-CALL-NOW", "+44 20 7946 0958", "n/a"))
        return f"({area}) 555-{line:04d}"

    def _website(self, rng: random.Random, host: str) -> Any:
        style = rng.random()
        quirk = self.quirk(rng, {"missing": 0.06, "garbage": 0.03, "empty": 0.01})
        if quirk == "missing":
            return MISSING
        if quirk == "garbage":
            return rng.choice(("tudi mechanical", "htp:/broken", "javascript:alert(1)", "www."))
        if quirk == "empty":
            return ""
        if style < 0.55:
            return host  # a bare host: the mirror adds https://
        return f"https://www.{host}/" if style < 0.92 else f"http://{host}"

    def _address(self, rng: random.Random, city: tuple, ts: int) -> Any:
        name, state, zip5, lat, lon, _ = city
        quirk = self.quirk(
            rng, {"missing": 0.04, "zip4": 0.03, "bad_latitude": 0.02, "no_line1": 0.015, "no_city": 0.01}
        )
        address = {
            "line1": f"{rng.randrange(1, 9900)} {rng.choice(STREETS)}",
            "line2": "Suite 200" if rng.random() < 0.2 else None,
            "city": name,
            "state": state,
            "postal_code": f"{zip5 + rng.randrange(30):05d}",
            "country": "US",
            "latitude": round(lat + rng.uniform(-0.05, 0.05), 4),
            "longitude": round(lon + rng.uniform(-0.05, 0.05), 4),
            "updated_at": iso_utc(max(self.base_time, ts - rng.randrange(5 * 86400))),
        }
        if quirk == "missing":
            return MISSING
        if quirk == "zip4":
            address["postal_code"] += f"-{rng.randrange(10000):04d}"
        elif quirk == "bad_latitude":
            address["latitude"] = 138.8
        elif quirk in ("no_line1", "no_city"):
            del address["line1" if quirk == "no_line1" else "city"]
        return address

    def _service_area(self, rng: random.Random, zip5: int) -> Any:
        codes = sorted({f"{zip5 + rng.randrange(-20, 40):05d}" for _ in range(rng.randint(3, 12))})
        quirk = self.quirk(rng, {"missing": 0.03, "empty": 0.02, "messy": 0.08})
        if quirk == "missing":
            return MISSING
        if quirk == "messy":  # duplicates, padding and ZIP+4, as owners type them
            codes = codes + [codes[0], f" {codes[-1]} ", f"{codes[0]}-{rng.randrange(10000):04d}"]
        return {"postal_codes": [] if quirk == "empty" else codes}

    def _settings(self, rng: random.Random, host: str) -> dict:
        settings: dict[str, Any] = {"currency": "USD", "price_description": rng.choice(PRICE_DESCRIPTIONS)}
        if self.quirk(rng, {"no_description": 0.1}):
            settings["price_description"] = rng.choice((None, MISSING))
        if rng.random() < 0.6:
            query = rng.choice(
                ("", "?ref=site", "?utm_source=platform&utm_medium=web", "?Ref=abc&zip=63385", "?referrer=home#top")
            )
            settings["systems_estimate_url"] = f"https://{host}/estimate{query}"
            settings["systems_estimate_url_verified"] = rng.random() < 0.7
            if self.quirk(rng, {"bad_url": 0.05}):
                settings["systems_estimate_url"] = rng.choice(
                    ("javascript:alert(1)", f"{host}/estimate", "ftp://files.example/quote", "https://")
                )
        if rng.random() < 0.3:
            settings["concom_shop_url"] = f"https://shop.example/{host.split('.')[0]}/" + rng.choice(
                ("", "?utm_source=concom")
            )
        channels = self._channels(rng)
        if channels is not MISSING:
            settings["channels"] = channels
        return {k: v for k, v in settings.items() if v is not MISSING}

    def _channels(self, rng: random.Random) -> Any:
        names = ("jsonld", "mcp", "webmcp", "feed", "pricing", "quote")
        channels = dict.fromkeys(names, True)
        quirk = self.quirk(rng, {"some_off": 0.08, "keys_missing": 0.05, "no_channels": 0.02})
        if quirk == "some_off":
            for name in rng.sample(names, rng.randint(1, 2)):
                channels[name] = False
        elif quirk == "keys_missing":  # a missing key means on
            for name in rng.sample(names, rng.randint(1, 3)):
                del channels[name]
        return MISSING if quirk == "no_channels" else channels

    def _owner(self, rng: random.Random, host: str, area: int) -> dict:
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        return {
            "name": f"{first} {last}",
            "email": f"{first.lower()}@{host}",
            "phone": f"+1{area}555{rng.randrange(10000):04d}",
        }

    # --- products ------------------------------------------------------------

    def products(
        self, plugin_key: str, index: int, trades: tuple, count: int, stamp: int | None = None
    ) -> list[ProductRow]:
        """`count` live products for a company, then its tombstones."""
        rng = random.Random(f"{self.seed}:products:{index}")
        brands = {pool: rng.choice(names) for pool, names in BRANDS.items()}
        markup = rng.uniform(0.92, 1.25)
        # A third of contractors bulk-imported their catalog: every product
        # shares one updated_at, which exercises ties across page boundaries.
        bulk_ts = rng.randint(self.base_time, self.upper_time) if rng.random() < 0.33 else None
        rows = []
        for item, size, tier, variant in self._lineup(rng, trades, count):
            template = (
                self._accessory_template(item)
                if size is None
                else self._system_template(item, size, tier, brands[item.brand_pool], variant)
            )
            ts = stamp or bulk_ts or rng.randint(self.base_time, self.upper_time)
            rows.append(self._product_row(rng, plugin_key, template, markup, ts))
        return rows + self._tombstones(rng, plugin_key, rows, stamp or bulk_ts)

    def _lineup(self, rng: random.Random, trades: tuple, count: int) -> list[tuple]:
        # Whole good/better/best groups first, so a short catalog still has full tiers.
        groups = [
            [(line, size, tier) for tier in ("good", "better", "best")]
            for line in SYSTEM_LINES
            if line.trade in trades
            for size in line.sizes
        ]
        groups += [[(acc, None, None)] for acc in ACCESSORIES if acc.trade in trades]
        rng.shuffle(groups)
        picked = [(item, size, tier, 0) for group in groups for item, size, tier in group]
        systems = [group for group in groups if group[0][1] is not None]
        variant = 1
        while len(picked) < count:  # more products than items: model variants of systems
            picked.extend((item, size, tier, variant) for group in systems for item, size, tier in group)
            variant += 1
        return picked[:count]

    def _system_template(self, line: SystemLine, size: tuple, tier: str, brand: str, variant: int) -> ProductTemplate:
        key = (line.sku_prefix, size[1], tier, brand, variant)
        if key in self._templates:
            return self._templates[key]
        label, code, size_specs, dollars = size
        specs = {**size_specs, **line.tiers[tier]}
        suffix = VARIANT_NAMES[variant] if variant < len(VARIANT_NAMES) else f" – Series {variant + 1}"
        sku = f"{line.sku_prefix}-{code}-{tier.upper()}" + (f"-V{variant + 1}" if variant else "")
        template = self._templates[key] = ProductTemplate(
            sku=sku,
            name=line.name_format.format(brand=brand, size=label, **specs) + suffix,
            category={"name": line.category, "slug": line.slug, "kind": "system"},
            tier=tier,
            brand=brand,
            model_numbers=_model_numbers(brand, line, code, tier, variant),
            description=line.description_format.format(brand=brand, size=label, **specs),
            dealer_notes=DEALER_NOTES[
                zlib.crc32(f"{sku}{brand}".encode()) % len(DEALER_NOTES)
            ],  # private upstream field: the mirror drops it at the boundary
            image_url=f"https://images.catalog.example/{line.slug}/{_slug(brand)}-{tier}.jpg",
            specs=specs,
            base_cents=int(dollars * TIER_MULTIPLIER[tier] * (1 + 0.04 * variant)) * 100,
        )
        return template

    def _accessory_template(self, acc: Accessory) -> ProductTemplate:
        if acc.sku not in self._templates:
            self._templates[acc.sku] = ProductTemplate(
                sku=acc.sku,
                name=acc.name,
                category={"name": acc.category, "slug": acc.slug, "kind": "accessory"},
                tier=None,
                brand=None,
                model_numbers=(),
                description=f"{acc.name}. Supplied and fitted by our technicians.",
                dealer_notes=DEALER_NOTES[
                    zlib.crc32(acc.sku.encode()) % len(DEALER_NOTES)
                ],  # private upstream field: the mirror drops it at the boundary
                image_url=f"https://images.catalog.example/{acc.slug}/{_slug(acc.sku)}.jpg",
                specs=acc.specs,
                base_cents=money_to_cents(acc.price),
            )
        return self._templates[acc.sku]

    def money(self, cents: int, whole_dollars_style: bool = False) -> str:
        """An interned money string: 200,000 rows share a few thousand values."""
        text = format_cents(cents, whole_dollars_style)
        return self._strings.setdefault(text, text)

    def _product_row(
        self, rng: random.Random, plugin_key: str, template: ProductTemplate, markup: float, ts: int
    ) -> ProductRow:
        if template.tier is None:
            cents = template.base_cents  # parts sell at list price everywhere
        else:
            cents = round(template.base_cents * markup / 5000) * 5000  # systems: nearest $50
        price = self.money(cents, rng.random() < 0.1)
        cost = self.money(cents * rng.choice((55, 58, 60, 62, 65)) // 100)
        published, extra = True, None
        quirk = self.quirk(
            rng,
            {
                "unpublished": 0.04,
                "no_image": 0.04,
                "null_image": 0.01,
                "odd_tier": 0.005,
                "zero_price": 0.003,
                "bad_price": 0.002,
                "no_name": 0.001,
                "hostile": 0.003,
            },
        )
        if quirk == "unpublished":
            published = False
        elif quirk in ("no_image", "null_image"):
            extra = {"image_url": MISSING if quirk == "no_image" else None}
        elif quirk == "odd_tier":
            extra = {"tier": rng.choice(("premium", "platinum", None))}
        elif quirk == "zero_price":
            price = "0.00"  # valid, but not public
        elif quirk == "bad_price":
            price = rng.choice(("abc", "-5", "99.999"))  # an invalid record
        elif quirk == "no_name":
            extra = {"name": MISSING}  # an invalid record
        elif quirk == "hostile":
            extra = {"description": f"{template.description} {rng.choice(HOSTILE_TEXT)}"}
        return ProductRow(plugin_key, template.sku, template, price, cost, published, ts, False, extra)

    def _tombstones(self, rng: random.Random, plugin_key: str, rows: list, stamp: int | None) -> list[ProductRow]:
        """Retired SKUs (an old model year of a live SKU), about 1% of a catalog."""
        retired = {}
        for row in rows:
            if self.quirk(rng, {"retired": 0.01}):
                sku = f"{row.sku}-{rng.randint(2015, 2022)}"
                ts = stamp or rng.randint(self.base_time, self.upper_time)
                retired[sku] = ProductRow(plugin_key, sku, None, MISSING, MISSING, MISSING, ts, True)
        return list(retired.values())
