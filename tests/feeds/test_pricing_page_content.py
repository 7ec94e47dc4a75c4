"""The pricing page a homeowner understands (docs/pricing-page.md), on the demo's own companies.

The demo upstream `make run` serves (its seeded contractors and the docs'
companies: Tudi Mechanical Systems, Gateway Plumbing & Drain, Prairie Heating
& Cooling, ...) is synced for real, and every page is read as a homeowner
reads it: the headline of each kind counts only that kind's categories,
each tier row names its starting option's brand, efficiency and size, and
every published option is named, as many as the published count. What the
page says is checked against the upstream's own records, not against the
mirror's view. The quote page of a contractor without a funnel follows the
same rules. Chromium takes the screenshots in docs/images/ (`make screenshots`).
"""

from __future__ import annotations

import json
import os
import re
from collections import defaultdict
from decimal import Decimal, InvalidOperation
from pathlib import Path

import lxml.html
import pytest

from demo.examples import NO_FUNNEL_KEY, STOREFRONT_ONLY_KEY, TUDI_KEY
from tests.mcp_helpers import module_database, serve_app
from tests.surface_helpers import (
    REPO_ROOT,
    extruct_graphs,
    graph_offer_prices,
    ld_json_blocks,
    money_value,
    validate_structured_data,
    visible_prices,
    wrap_in_script,
)

CHROMIUM = "/usr/bin/chromium"
BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
PRICE = re.compile(r"\$[\d,]+(?:\.\d\d)?")


@pytest.fixture(scope="module")
def demo(request):
    """The app over the demo upstream as `make run` starts it (seeded companies and the docs' examples), synced."""
    from demo.server import start_in_thread

    upstream = start_in_thread(companies=6, products=60, seed=7, examples=True, stand_ins=True)
    try:
        with serve_app(module_database(request), upstream.url) as live:
            assert live.mirror.sync().status == "success"
            live.upstream = upstream
            yield live
    finally:
        upstream.stop()


def served_pages(demo, surface: str) -> dict[str, str]:
    """Per company key, the HTML of its `surface` page wherever it answers 200 (the quote page: no funnel)."""
    client = demo.app.test_client()
    pages = {}
    for key in demo.upstream.catalog.company_keys():
        response = client.get(f"/companies/{key}/{surface}")
        if response.status_code == 200:
            pages[key] = response.get_data(as_text=True)
    return pages


def upstream_options(demo, key: str) -> dict[str, list[dict]]:
    """Per category slug, the products the upstream publishes at a valid positive price, cheapest first.

    Read from the upstream's own records: the page must name exactly these.
    """
    by_category = defaultdict(list)
    for product in demo.upstream.catalog.products_of(key):
        price = _price(product.get("price"))
        if product.get("published") is True and price is not None and price > 0 and isinstance(product["name"], str):
            by_category[product["category"]["slug"]].append({**product, "price": price})
    for products in by_category.values():
        products.sort(key=lambda p: (p["price"], p["name"], p["sku"]))
    return by_category


def _price(raw) -> Decimal | None:
    try:
        value = Decimal(str(raw))
    except InvalidOperation:
        return None
    return value if value.is_finite() and value == value.quantize(Decimal("0.01")) else None


def stated_labels(product: dict) -> list[str]:
    """The size and efficiency an upstream product's specs state, written as a homeowner reads them."""
    specs = product.get("specs") or {}
    writers = {
        "tonnage": lambda v: f"{v:g} ton",
        "btu": lambda v: f"{v:,} BTU",
        "gallons": lambda v: f"{v:g} gal",
        "gpm": lambda v: f"{v:g} GPM",
        "grains": lambda v: f"{v:,} grain",
        "hp": lambda v: f"{v} HP",
        "seer2": lambda v: f"{v:g} SEER2",
        "hspf2": lambda v: f"{v:g} HSPF2",
        "afue": lambda v: f"{v:g}% AFUE",
        "uef": lambda v: f"{v:g} UEF",
        "warranty_years": lambda v: f"{v}-year warranty",
    }
    return [write(specs[key]) for key, write in writers.items() if key in specs]


def text_of(element) -> str:
    return " ".join(element.text_content().split())


def tier_rows(category) -> dict[str, str]:
    """A system card's tier rows: tier -> the row's text."""
    return {row.get("data-tier-row"): text_of(row) for row in category.xpath(".//tr[@data-tier-row]")}


def named_options(category) -> list[tuple[str, Decimal]]:
    """Every option a category names: (name, price)."""
    return [
        (
            item.find_class("option-name")[0].text_content(),
            money_value(item.find_class("option-price")[0].text_content()),
        )
        for item in category.xpath(".//li[contains(@class, 'option')]")
    ]


def money(value: Decimal) -> str:
    """How the page writes an amount: $8,500 or $60.05."""
    return f"${value:,.0f}" if value == value.to_integral_value() else f"${value:,.2f}"


@pytest.mark.parametrize("surface", ["pricing", "quote"])
def test_the_headline_counts_only_installed_systems(demo, surface):
    pages = served_pages(demo, surface)
    client = demo.app.test_client()
    for key, html in pages.items():
        page = lxml.html.fromstring(html)
        options = upstream_options(demo, key)
        categories = client.get(f"/companies/{key}/pricing.json").get_json()["categories"]
        kinds = {c["slug"]: c["kind"] for c in categories}
        lows = defaultdict(list)
        for slug, products in options.items():
            lows[kinds[slug]].append(products[0]["price"])
        headlines = {h.get("class").split()[-1]: text_of(h) for h in page.find_class("headline")}
        if lows["system"]:
            assert headlines.pop("headline-system").endswith(f" systems from {money(min(lows['system']))}"), key
        if lows["accessory"]:
            assert headlines.pop("headline-accessory") == f"Parts and add-ons from {money(min(lows['accessory']))}"
        assert not headlines, (key, headlines)
    if surface == "pricing":
        tudi = lxml.html.fromstring(pages[TUDI_KEY])
        # The $60.05 air filters are not where installed systems start.
        assert [text_of(h) for h in tudi.find_class("headline")] == [
            "Installed heating and cooling systems from $8,500",
            "Parts and add-ons from $60.05",
        ]
        gateway = lxml.html.fromstring(pages[STOREFRONT_ONLY_KEY])
        assert [text_of(h) for h in gateway.find_class("headline")] == ["Installed plumbing systems from $2,100"]
    else:
        assert NO_FUNNEL_KEY in pages and not {TUDI_KEY, STOREFRONT_ONLY_KEY} & set(pages)  # those two redirect
        prairie = lxml.html.fromstring(pages[NO_FUNNEL_KEY])
        assert [text_of(h) for h in prairie.find_class("headline")] == [
            "Installed heating and cooling systems from $7,800"
        ]


@pytest.mark.parametrize("surface", ["pricing", "quote"])
def test_each_tier_row_names_its_starting_option_from_the_data(demo, surface):
    checked = 0
    for key, html in served_pages(demo, surface).items():
        page = lxml.html.fromstring(html)
        for slug, products in upstream_options(demo, key).items():
            card = page.get_element_by_id(slug)
            rows = tier_rows(card)
            if not rows:
                continue
            for tier, row in rows.items():
                in_tier = [p for p in products if p.get("tier") == tier]
                if not in_tier:
                    assert row.endswith("Not offered"), (key, slug, tier, row)
                    continue
                first = in_tier[0]
                if first.get("brand"):
                    assert first["brand"] in row, (key, slug, tier, row)
                for label in stated_labels(first):
                    assert label in row, (key, slug, tier, label, row)
                assert row.endswith(money(first["price"])), (key, slug, tier, row)  # "Starts at"
                # The tier's own range: its cheapest and its dearest option.
                assert money(in_tier[-1]["price"]) in PRICE.findall(row), (key, slug, tier, row)
                checked += 1
    assert checked >= (12 if surface == "pricing" else 3)


def test_tudis_tier_rows_read_as_the_issue_asks(demo):
    page = lxml.html.fromstring(served_pages(demo, "pricing")[TUDI_KEY])
    heat_pump = tier_rows(page.get_element_by_id("hp-air-handler"))
    assert heat_pump["good"] == "Good Lennox · 15.2 SEER2 · 7.8 HSPF2 2 ton $8,500 · 3 ton $9,400 $8,500"
    assert heat_pump["best"] == "Best Lennox · 19 SEER2 · 9.5 HSPF2 2 ton $12,750 · 3 ton $15,200 $12,750"
    furnace = tier_rows(page.get_element_by_id("ac-gas-furnace"))
    assert furnace["better"] == "Better Carrier · 16 SEER2 · 96% AFUE 3 ton $14,074 · 4 ton $15,990 $14,074"
    assert furnace["best"].startswith("Best Lennox · 22 SEER2 · 98% AFUE 3 ton $26,540 · 4 ton $29,644")


@pytest.mark.parametrize("surface", ["pricing", "quote"])
def test_every_published_option_is_named_as_many_as_the_published_count(demo, surface):
    client = demo.app.test_client()
    for key, html in served_pages(demo, surface).items():
        page = lxml.html.fromstring(html)
        document = client.get(f"/companies/{key}/pricing.json").get_json()
        published = upstream_options(demo, key)
        assert {c["slug"] for c in document["categories"]} == set(published)
        for category in document["categories"]:
            element = page.get_element_by_id(category["slug"])
            named = named_options(element)
            expected = [(p["name"], p["price"]) for p in published[category["slug"]]]
            assert sorted(named) == sorted(expected), (key, category["slug"])
            assert len(named) == category["offer_count"] == len(category["options"])
            summary = text_of(element.xpath(".//details/summary")[0])
            count = category["offer_count"]
            assert summary == ("1 published option" if count == 1 else f"All {count} published options")
            # pricing.json's options are the same ones, cheapest first.
            assert [(o["name"], Decimal(str(o["price"]))) for o in category["options"]] == expected


def test_pricing_json_lets_a_site_follow_the_same_rules(demo):
    client = demo.app.test_client()
    document = client.get(f"/companies/{TUDI_KEY}/pricing.json").get_json()
    assert document["business"]["trades"] == ["hvac"]  # the headline's "heating and cooling systems"
    heat_pump = next(c for c in document["categories"] if c["slug"] == "hp-air-handler")
    assert heat_pump["kind"] == "system" and heat_pump["options"][:2] == [
        {
            "sku": "HPAH-2T-GOOD",
            "name": "Lennox 15.2 SEER2 Heat Pump & Air Handler, 2 ton",
            "brand": "Lennox",
            "tier": "good",
            "price": 8500,
            "size": "2 ton",
            "efficiency": ["15.2 SEER2", "7.8 HSPF2"],
            "warranty": None,
            "image_url": f"{demo.upstream.url}/sites/images.catalog.example/hp-air-handler/hpah-2t-good.jpg",
        },
        {
            "sku": "HPAH-3T-GOOD",
            "name": "Lennox 15.2 SEER2 Heat Pump & Air Handler, 3 ton",
            "brand": "Lennox",
            "tier": "good",
            "price": 9400,
            "size": "3 ton",
            "efficiency": ["15.2 SEER2", "7.8 HSPF2"],
            "warranty": None,
            "image_url": f"{demo.upstream.url}/sites/images.catalog.example/hp-air-handler/hpah-3t-good.jpg",
        },
    ]
    filters = next(c for c in document["categories"] if c["slug"] == "air-filters")
    assert filters["kind"] == "accessory" and [(o["size"], o["efficiency"], o["tier"]) for o in filters["options"]] == [
        ("16x25x1", ["MERV 8"], None),
        ("20x25x4", ["MERV 11"], None),
        ("20x25x4", ["MERV 13"], None),
    ]
    # Each tier's starting price and own range follow from the options, for every demo company.
    for key in demo.upstream.catalog.company_keys():
        response = client.get(f"/companies/{key}/pricing.json")
        if response.status_code != 200:
            continue
        for category in response.get_json()["categories"]:
            prices = [o["price"] for o in category["options"]]
            assert (min(prices), max(prices)) == (category["price_low"], category["price_high"])
            for tier, starts_at in (category.get("tiers") or {}).items():
                in_tier = [o["price"] for o in category["options"] if o["tier"] == tier]
                assert (in_tier[0] if in_tier else None) == starts_at, (key, category["slug"], tier)
    gateway = client.get(f"/companies/{STOREFRONT_ONLY_KEY}/pricing.json").get_json()
    heaters = gateway["categories"][0]["options"]
    assert [(o["tier"], o["size"], o["warranty"]) for o in heaters] == [
        ("good", "50 gal", "6-year warranty"),
        ("better", "50 gal", "9-year warranty"),
        ("best", "50 gal", "12-year warranty"),
    ]


def test_structured_data_stays_exact_and_valid(demo):
    client = demo.app.test_client()
    documents = []
    for surface in ("pricing", "quote"):
        for key, html in served_pages(demo, surface).items():
            [block] = ld_json_blocks(html)
            graph = json.loads(block)
            # The same object as the .jsonld document and as the visible prices, read back by extruct.
            assert graph == json.loads(client.get(f"/companies/{key}.jsonld").get_data())
            [extracted] = extruct_graphs(html, f"{demo.url}/companies/{key}/{surface}")
            assert extracted == graph
            assert graph_offer_prices(extracted) == visible_prices(html)
            documents.append(block)
    report = validate_structured_data("".join(wrap_in_script(block) for block in documents))
    assert report["errors"] == []


@pytest.mark.browser
def test_screenshots_at_desktop_and_phone_width(demo, tmp_path):
    """Chromium renders Tudi's page at 1280 and 390 px; every option list opens without JavaScript.

    The screenshots go to $SCREENSHOT_DIR (`make screenshots`: docs/images/), else to a temporary folder.
    """
    from playwright.sync_api import sync_playwright

    folder = Path(os.environ.get("SCREENSHOT_DIR") or tmp_path)
    if not folder.is_absolute():
        folder = REPO_ROOT / folder
    folder.mkdir(parents=True, exist_ok=True)
    url = f"{demo.url}/companies/{TUDI_KEY}/pricing"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        try:
            for width in (1280, 390):
                context = browser.new_context(java_script_enabled=False, viewport={"width": width, "height": 844})
                page = context.new_page()
                console: list[str] = []
                page.on("console", lambda message, seen=console: seen.append(message.text))
                assert page.goto(url).status == 200
                page.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")
                page.wait_for_load_state("networkidle")  # the lazy pictures of the cards, before the shot
                page.evaluate("() => window.scrollTo(0, 0)")
                page.screenshot(path=folder / f"pricing-{width}.png", full_page=True)
                lists = page.locator("details.all-options")
                assert lists.count() == 3
                for index in range(lists.count()):
                    details = lists.nth(index)
                    summary = details.locator("summary")
                    assert summary.bounding_box()["height"] >= 44  # tappable
                    assert not details.locator("li.option").first.is_visible()
                    summary.click()
                    assert details.locator("li.option").nth(details.locator("li.option").count() - 1).is_visible()
                # "What these words mean" opens the same way, below the lists.
                page.locator("details.glossary summary").click()
                assert page.locator("details.glossary dl > div").last.is_visible()
                page.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")
                page.wait_for_load_state("networkidle")  # every picture scrolled past has arrived
                assert page.evaluate("() => [...document.images].every((img) => img.complete && img.naturalWidth)")
                assert page.evaluate("() => document.documentElement.scrollWidth") <= width
                if width == 390:
                    page.screenshot(path=folder / "pricing-390-options.png", full_page=True)
                assert not console, console
                context.close()
        finally:
            browser.close()
