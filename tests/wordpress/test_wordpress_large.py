"""The WordPress plugin with a large pricing.json, at a memory_limit scaled to it as 128M is to the largest.

The largest pricing.json the benchmark catalog makes is a company of 100,000 products (bench/bounds.py's
LARGE_PRODUCTS): about 20 MB, which a site at PHP's default memory_limit of 128M must poll and render
(docs/wordpress.md, "Decoded once, per poll, in 128M"). Decoded whole, that body alone takes about
100 MB of PHP arrays; the plugin reads it one option at a time and stores what the page shows.

This test proves the same bound on a quarter of that company (25,000 products, about 5 MB) at a quarter
of 128M's room above WordPress's own: the poll's memory is WordPress's base (about 20 MB, measured at
the full size: an 82 MB peak less three copies of the 20 MB body and the reader's 2 MB) plus a cost per
byte of body, so a cost per byte that breaks 128M with the full body breaks 20 + (128 - 20) / 4 = 47M with
a quarter of it. Decoding the quarter whole (about 25 MB of arrays) does not fit (checked once by adding a
json_decode of the whole body to the poll: WP-Cron's request fails at 47M and passes at 512M). Syncing and
rendering the full company cost the suite more than a minute for no more proof than this.

A real demo upstream holds the company, the mirror syncs it over HTTP and serves its pricing.json with
gunicorn, and a real WordPress served at that memory_limit polls it through WP-Cron and renders the page.
"""

from __future__ import annotations

import lxml.html
import pytest
import requests

from bench.bounds import LARGE_PRODUCTS
from demo.catalog import DemoCatalog
from demo.server import start_in_thread
from tests.mirror_helpers import fresh_mirror
from tests.ops_helpers import Gunicorn, process_env
from tests.wordpress_helpers import DEMO_SEED, TOKEN, new_site, text_of

OPTIONS_LISTED = 100  # Contractor_Pricing_Option_Listing::LISTED: each tier's list names its 100 lowest-priced
SCALE = 4  # the company here is LARGE_PRODUCTS / SCALE products
PRODUCTS = LARGE_PRODUCTS // SCALE
WORDPRESS_BASE_MB, DEFAULT_MEMORY_LIMIT_MB = 20, 128  # docs/wordpress.md: the full poll's peak, 82 MB, less 3 x 20 + 2
MEMORY_LIMIT = f"{WORDPRESS_BASE_MB + (DEFAULT_MEMORY_LIMIT_MB - WORDPRESS_BASE_MB) // SCALE}M"  # 47M
LARGEST_BODY_BYTES = 20 * 1000 * 1000  # the full company's pricing.json: about 20 MB


@pytest.mark.slow
def test_a_quarter_of_the_largest_company_polls_and_renders_at_a_quarter_of_128m(postgres_url, tmp_path, monkeypatch):
    monkeypatch.setenv("WORDPRESS_MEMORY_LIMIT", MEMORY_LIMIT)  # scripts/wordpress_site.sh serve reads it
    catalog = DemoCatalog(0, 0, DEMO_SEED)
    key = catalog.add_company(products=PRODUCTS)["plugin_key"]
    upstream = start_in_thread(catalog, token=TOKEN)
    url = postgres_url  # a fresh database of this test process
    mirror = fresh_mirror(url, upstream.url)
    server = site = None
    try:
        result = mirror.sync()
        assert result.status == "success", result.error
        with (tmp_path / "mirror.log").open("w+b") as log:
            # The first render of the full 20 MB document takes about 5 s on a quiet machine (docs/performance.md,
            # "A company of 100,000 products"); the test is about the plugin, so the render may take its time.
            env = process_env(url, upstream, REQUEST_DEADLINE_SECONDS=25)
            server = Gunicorn(env, log, 1, "--threads", "2")
            server.start()
            answer = requests.get(f"{server.base}/companies/{key}/pricing.json", timeout=120)
            assert answer.status_code == 200
            assert len(answer.content) > 0.9 * LARGEST_BODY_BYTES / SCALE, "not the large document this test is about"
            document = answer.json()
            options = sum(category["offer_count"] for category in document["categories"])
            assert options > 0.9 * PRODUCTS  # the demo's unpublished and invalid products are not options

            site = new_site(server.base, key)
            site.serve(tmp_path)
            status = site.run_cron()
            assert (status["outcome"], status["problem"]) == ("changed", ""), status
            stored = site.option("contractor_pricing_copy")
            assert "body" not in stored
            listings = {c["slug"]: c["listing"] for c in stored["document"]["categories"]}
            assert {slug: listing["count"] for slug, listing in listings.items()} == {
                category["slug"]: category["offer_count"] for category in document["categories"]
            }

            page = site.page("/our-prices/")
            shown = lxml.html.fromstring(page.encode())
            for category in document["categories"]:
                card = shown.get_element_by_id(f"contractor-pricing-{category['slug']}")
                cells = {cell.get("data-tier"): cell.text_content() for cell in card.xpath(".//td[@data-tier]")}
                expected = {tier: f"${price:,.0f}" for tier, price in (category.get("tiers") or {}).items() if price}
                assert cells == expected, category["slug"]
                listed = card.xpath(".//li[@data-sku]")
                assert 0 < len(listed) <= 4 * OPTIONS_LISTED
                # The listed options are pricing.json's, grouped by tier, each group in its order (cheapest first).
                skus = [item.get("data-sku") for item in listed]
                named = set(skus)
                tiers = ("good", "better", "best", None)
                assert skus == [
                    o["sku"] for t in tiers for o in category["options"] if o["tier"] == t and o["sku"] in named
                ]
                if category["offer_count"] > len(listed):
                    [summary] = card.xpath(".//summary")
                    assert (
                        summary.text_content()
                        == f"{category['offer_count']:,} published options, {len(listed):,} listed"
                    )
            assert text_of(page, '//p[contains(@class, "contractor-pricing__headline--system")]') == [
                f"Installed plumbing systems from ${min(c['price_low'] for c in document['categories'] if c['kind'] == 'system'):,.0f}"
            ]
            assert "Allowed memory size" not in site.debug_log()
    finally:
        if site is not None:
            site.stop()
            site.remove()
        if server is not None:
            server.stop()
        mirror.dispose()
        upstream.stop()
