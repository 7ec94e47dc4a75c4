"""The companies the docs name: fixed keys, fixed catalogs, every case the docs show.

The demo upstream `make run` starts (`demo-upstream`, `--examples` on by
default) holds these beside its seeded companies, so every example in
README.md and docs/ can be pasted against the demo and print what it shows.
They are hand-written, not drawn from a seed, so no seed or size changes them:

- Tudi Mechanical Systems: the contractor the platform's own public docs use
  (pluginKey `000qeNvgDSrmHEbIejt1beAWureP3Z5HrsB3NZFq`, HVAC, ZIP 63376
  among others). Its quote funnel is a verified estimate URL, so
  `/companies/<key>/quote` is a 302 with `ref=ai_interfaces`.
- Gateway Plumbing & Drain: a storefront only (its estimate URL is not
  verified, so the quote redirect goes to `concom_shop_url`).
- Prairie Heating & Cooling: no funnel; the quote page itself answers 200.
- Liberty Comfort Systems: churned; every surface answers 404.
- Cardinal Air Conditioning: its `mcp` channel switched off; its MCP endpoint
  answers 404 while its other surfaces serve.

`EXAMPLE_KEYS` names them for tests and docs.
"""

from __future__ import annotations

from demo.generator import GeneratedCompany
from demo.records import ProductRow, ProductTemplate, iso_utc, money_to_cents

TUDI_KEY = "000qeNvgDSrmHEbIejt1beAWureP3Z5HrsB3NZFq"
STOREFRONT_ONLY_KEY = "1GtwyPlmbDrnStrfrntnLy7Qk2mXc9vRb4sTdWzH"
NO_FUNNEL_KEY = "2PrrHtngCLnoFunnel8sKd3nVw6yQm1xRt5bLcJg"
CHURNED_KEY = "3LbrtyCmfrtChurned4hTn9wXq2zPk7vMs1dRfYb"
CHANNEL_OFF_KEY = "4CrdnlArCndMcpOff6pWv2kLt9sQx3nBh8jZr5mD"

EXAMPLE_KEYS = {
    "tudi": TUDI_KEY,
    "storefront_only": STOREFRONT_ONLY_KEY,
    "no_funnel": NO_FUNNEL_KEY,
    "churned": CHURNED_KEY,
    "channel_off": CHANNEL_OFF_KEY,
}

_INSTALLED = " Fully installed, including removal of the old equipment, permits and start-up testing."
_CATEGORIES = {
    "hp-air-handler": {"name": "HP & Air Handler", "slug": "hp-air-handler", "kind": "system"},
    "ac-gas-furnace": {"name": "A/C & Gas Furnace", "slug": "ac-gas-furnace", "kind": "system"},
    "air-filters": {"name": "Air Filters", "slug": "air-filters", "kind": "accessory"},
    "central-ac": {"name": "Central AC", "slug": "central-ac", "kind": "system"},
    "tank-water-heater": {"name": "Tank Water Heater", "slug": "tank-water-heater", "kind": "system"},
}

# (sku, category slug, tier, brand, name, price, specs)
_TUDI_PRODUCTS = (
    (
        "HPAH-2T-GOOD",
        "hp-air-handler",
        "good",
        "Lennox",
        "Lennox 15.2 SEER2 Heat Pump & Air Handler, 2 ton",
        "8500.00",
        {"tonnage": 2, "seer2": 15.2, "hspf2": 7.8},
    ),
    (
        "HPAH-3T-GOOD",
        "hp-air-handler",
        "good",
        "Lennox",
        "Lennox 15.2 SEER2 Heat Pump & Air Handler, 3 ton",
        "9400.00",
        {"tonnage": 3, "seer2": 15.2, "hspf2": 7.8},
    ),
    (
        "HPAH-2T-BETTER",
        "hp-air-handler",
        "better",
        "Lennox",
        "Lennox 16.2 SEER2 Heat Pump & Air Handler, 2 ton",
        "10200.00",
        {"tonnage": 2, "seer2": 16.2, "hspf2": 8.1},
    ),
    (
        "HPAH-3T-BETTER",
        "hp-air-handler",
        "better",
        "Lennox",
        "Lennox 16.2 SEER2 Heat Pump & Air Handler, 3 ton",
        "11350.00",
        {"tonnage": 3, "seer2": 16.2, "hspf2": 8.1},
    ),
    (
        "HPAH-2T-BEST",
        "hp-air-handler",
        "best",
        "Lennox",
        "Lennox 19 SEER2 Heat Pump & Air Handler, 2 ton",
        "12750.00",
        {"tonnage": 2, "seer2": 19.0, "hspf2": 9.5},
    ),
    (
        "HPAH-3T-BEST",
        "hp-air-handler",
        "best",
        "Lennox",
        "Lennox 19 SEER2 Heat Pump & Air Handler, 3 ton",
        "15200.00",
        {"tonnage": 3, "seer2": 19.0, "hspf2": 9.5},
    ),
    (
        "ACGF-3T-GOOD",
        "ac-gas-furnace",
        "good",
        "Carrier",
        "Carrier 14.3 SEER2 A/C & 80% AFUE Gas Furnace, 3 ton",
        "11006",
        {"tonnage": 3, "seer2": 14.3, "afue": 80},
    ),
    (
        "ACGF-4T-GOOD",
        "ac-gas-furnace",
        "good",
        "Carrier",
        "Carrier 14.3 SEER2 A/C & 80% AFUE Gas Furnace, 4 ton",
        "12480",
        {"tonnage": 4, "seer2": 14.3, "afue": 80},
    ),
    (
        "ACGF-3T-BETTER",
        "ac-gas-furnace",
        "better",
        "Carrier",
        "Carrier 16 SEER2 A/C & 96% AFUE Gas Furnace, 3 ton",
        "14074",
        {"tonnage": 3, "seer2": 16.0, "afue": 96},
    ),
    (
        "ACGF-4T-BETTER",
        "ac-gas-furnace",
        "better",
        "Carrier",
        "Carrier 16 SEER2 A/C & 96% AFUE Gas Furnace, 4 ton",
        "15990",
        {"tonnage": 4, "seer2": 16.0, "afue": 96},
    ),
    (
        "ACGF-3T-BEST",
        "ac-gas-furnace",
        "best",
        "Lennox",
        "Lennox 22 SEER2 A/C & 98% AFUE Gas Furnace, 3 ton",
        "26540",
        {"tonnage": 3, "seer2": 22.0, "afue": 98},
    ),
    (
        "ACGF-4T-BEST",
        "ac-gas-furnace",
        "best",
        "Lennox",
        "Lennox 22 SEER2 A/C & 98% AFUE Gas Furnace, 4 ton",
        "29644",
        {"tonnage": 4, "seer2": 22.0, "afue": 98},
    ),
    (
        "ACC-FLT-M8-16x25x1",
        "air-filters",
        None,
        None,
        "MERV 8 Air Filter 16x25x1 (12-pack)",
        "60.05",
        {"merv": 8, "size": "16x25x1"},
    ),
    (
        "ACC-FLT-M11-20x25x4",
        "air-filters",
        None,
        None,
        "MERV 11 Air Filter 20x25x4 (4-pack)",
        "112.40",
        {"merv": 11, "size": "20x25x4"},
    ),
    (
        "ACC-FLT-M13-20x25x4",
        "air-filters",
        None,
        None,
        "MERV 13 Air Filter 20x25x4 (6-pack)",
        "186.04",
        {"merv": 13, "size": "20x25x4"},
    ),
)
_HVAC_PRODUCTS = (
    (
        "CAC-3T-GOOD",
        "central-ac",
        "good",
        "Trane",
        "Trane 14.3 SEER2 Central Air Conditioner, 3 ton",
        "7800.00",
        {"tonnage": 3, "seer2": 14.3},
    ),
    (
        "CAC-3T-BETTER",
        "central-ac",
        "better",
        "Trane",
        "Trane 16.2 SEER2 Central Air Conditioner, 3 ton",
        "9500.00",
        {"tonnage": 3, "seer2": 16.2},
    ),
    (
        "CAC-3T-BEST",
        "central-ac",
        "best",
        "Trane",
        "Trane 20.5 SEER2 Central Air Conditioner, 3 ton",
        "11700.00",
        {"tonnage": 3, "seer2": 20.5},
    ),
)
_PLUMBING_PRODUCTS = (
    (
        "TWH-50G-GOOD",
        "tank-water-heater",
        "good",
        "Rheem",
        "Rheem 50-gallon gas Water Heater, 6-year warranty",
        "2100.00",
        {"gallons": 50, "fuel": "gas", "warranty_years": 6},
    ),
    (
        "TWH-50G-BETTER",
        "tank-water-heater",
        "better",
        "Rheem",
        "Rheem 50-gallon gas Water Heater, 9-year warranty",
        "2550.00",
        {"gallons": 50, "fuel": "gas", "warranty_years": 9},
    ),
    (
        "TWH-50G-BEST",
        "tank-water-heater",
        "best",
        "Rheem",
        "Rheem 50-gallon gas Water Heater, 12-year warranty",
        "3150.00",
        {"gallons": 50, "fuel": "gas", "warranty_years": 12},
    ),
)

_ALL_CHANNELS = dict.fromkeys(("jsonld", "mcp", "webmcp", "feed", "pricing", "quote"), True)


def _address(line1: str, city: str, postal_code: str, latitude: float, longitude: float, updated_at: int) -> dict:
    return {
        "line1": line1,
        "line2": None,
        "city": city,
        "state": "MO",
        "postal_code": postal_code,
        "country": "US",
        "latitude": latitude,
        "longitude": longitude,
        "updated_at": iso_utc(updated_at),
    }


def _company(
    key: str,
    name: str,
    trades: list,
    ts: int,
    *,
    status: str = "active",
    phone: str,
    host: str,
    address: dict,
    zips: list,
    settings: dict,
) -> dict:
    return {
        "plugin_key": key,
        "internal_id": 90000 + int(key[0]),  # private upstream field: the mirror drops it at the boundary
        "name": name,
        "trades": trades,
        "status": status,
        "storefront_live": True,
        "phone": phone,
        "website": f"https://www.{host}/",
        "address": address,
        "service_area": {"postal_codes": zips},
        "settings": {"currency": "USD", "channels": dict(_ALL_CHANNELS), **settings},
        "owner": {"name": f"Owner of {name}", "email": f"owner@{host}", "phone": "+16365550100"},
    }


def _rows(key: str, products: tuple, ts: int) -> list[ProductRow]:
    rows = []
    for sku, slug, tier, brand, name, price, specs in products:
        category = _CATEGORIES[slug]
        description = f"{name}. Supplied and fitted by our technicians." if tier is None else f"{name}." + _INSTALLED
        template = ProductTemplate(
            sku=sku,
            name=name,
            category=category,
            tier=tier,
            brand=brand,
            model_numbers=() if brand is None else (f"{brand[:2].upper()}{sku.replace('-', '')[:10]}",),
            description=description,
            dealer_notes="Distributor price locked through Q4.",  # private: the mirror drops it
            image_url=f"https://images.catalog.example/{slug}/{sku.lower()}.jpg",
            specs=specs,
            base_cents=money_to_cents(price),
        )
        cost = f"{money_to_cents(price) * 60 // 10000}.00"
        rows.append(ProductRow(key, sku, template, price, cost, True, ts))
    return rows


def example_companies(ts: int) -> list[GeneratedCompany]:
    """The docs' companies, each record and product stamped `ts`."""
    wentzville = ["63301", "63303", "63304", "63341", "63348", "63366", "63367", "63368", "63376", "63385"]
    tudi = _company(
        TUDI_KEY,
        "Tudi Mechanical Systems",
        ["hvac"],
        ts,
        phone="(636) 555-0142",
        host="tudimechanical.example",
        address=_address("1200 Mid Rivers Mall Dr", "St. Peters", "63376", 38.7875, -90.6299, ts),
        zips=wentzville,
        settings={
            "price_description": "Fully-installed price. Includes installation and permits.",
            "systems_estimate_url": "https://www.tudimechanical.example/estimate?ref=site",
            "systems_estimate_url_verified": True,
        },
    )
    storefront = _company(
        STOREFRONT_ONLY_KEY,
        "Gateway Plumbing & Drain",
        ["plumbing"],
        ts,
        phone="(314) 555-0187",
        host="gatewayplumbing.example",
        address=_address("415 Market St", "St. Louis", "63103", 38.6270, -90.1994, ts),
        zips=["63101", "63102", "63103", "63104", "63110"],
        settings={
            "price_description": "Installed price including removal of your old equipment.",
            "systems_estimate_url": "https://www.gatewayplumbing.example/estimate",
            "systems_estimate_url_verified": False,  # not verified: never a redirect target
            "concom_shop_url": "https://shop.example/gatewayplumbing/?utm_source=concom",
        },
    )
    no_funnel = _company(
        NO_FUNNEL_KEY,
        "Prairie Heating & Cooling",
        ["hvac"],
        ts,
        phone="(636) 555-0163",
        host="prairieheating.example",
        address=_address("88 Veterans Pkwy", "Wentzville", "63385", 38.8114, -90.8529, ts),
        zips=["63376", "63385", "63386"],
        settings={"price_description": "Installed price including removal of your old equipment."},
    )
    churned = _company(
        CHURNED_KEY,
        "Liberty Comfort Systems",
        ["hvac"],
        ts,
        status="churned",
        phone="(636) 555-0119",
        host="libertycomfort.example",
        address=_address("9 Commerce Blvd", "O'Fallon", "63366", 38.8106, -90.6998, ts),
        zips=["63366", "63368"],
        settings={"price_description": "Fully-installed price. Includes installation and permits."},
    )
    channel_off = _company(
        CHANNEL_OFF_KEY,
        "Cardinal Air Conditioning",
        ["hvac"],
        ts,
        phone="(636) 555-0174",
        host="cardinalair.example",
        address=_address("2301 Highway 40", "St. Charles", "63303", 38.7881, -90.5300, ts),
        zips=["63301", "63303", "63304"],
        settings={"price_description": "Fully-installed price. Includes installation and permits."},
    )
    channel_off["settings"]["channels"]["mcp"] = False
    plan = (
        (tudi, _TUDI_PRODUCTS),
        (storefront, _PLUMBING_PRODUCTS),
        (no_funnel, _HVAC_PRODUCTS),
        (churned, _HVAC_PRODUCTS),
        (channel_off, _HVAC_PRODUCTS),
    )
    return [GeneratedCompany(record, ts, _rows(record["plugin_key"], products, ts)) for record, products in plan]


# The docs' UCP example (docs/ucp.md) names an agent profile the mirror must fetch; on a
# laptop there is none, so the demo upstream serves this one (a shopping agent declaring
# the two Catalog capabilities of UCP 2026-08-25) and `make run` allows loopback `http`
# profiles from the demo upstream's host:port only (UCP_ALLOW_INSECURE_PROFILES,
# UCP_INSECURE_PROFILE_HOSTS).
AGENT_PROFILE_PATH = "/agent-profile.json"


def agent_profile(version: str = "2026-08-25") -> dict:
    """The demo's UCP agent (platform) profile of one release."""
    base = f"https://ucp.dev/{version}"
    service = {
        "version": version,
        "spec": f"{base}/specification/overview",
        "transport": "mcp",
        "schema": f"{base}/services/shopping/mcp.openrpc.json",
    }
    capabilities = {
        f"dev.ucp.shopping.catalog.{name}": [
            {
                "version": version,
                "spec": f"{base}/specification/catalog/{name}",
                "schema": f"{base}/schemas/shopping/catalog_{name}.json",
            }
        ]
        for name in ("search", "lookup")
    }
    return {
        "ucp": {
            "version": version,
            "services": {"dev.ucp.shopping": [service]},
            "capabilities": capabilities,
            "payment_handlers": {},
        }
    }
