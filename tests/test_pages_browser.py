"""The hosted pages in headless Chromium at a phone's width, against a live app over a synced demo upstream.

A homeowner on a 390 px phone must never scroll sideways (not even for a long
website address), must see each tier's own sizes and prices beside its
Good/Better/Best starting price, with every published option listed, and
must read the date the prices were confirmed as a date, with the exact
instant kept on the <time> element. (tests/test_pricing_page_content.py
takes the screenshots of the demo's own page.)
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

import pytest
import requests

from tests.mcp_helpers import TUDI, live_mcp, module_database
from tests.surface_helpers import answer_pictures

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
PHONE = 390
LONG_URL = "long-url-test"
# A deep path with long unbroken segments: the kind of address that pushes a page sideways.
LONG_WEBSITE = (
    "https://www.tudimechanicalsystems-heating-and-cooling.example/residential/heat-pumps/"
    "requestafreeinhomeestimatefromourcomfortadvisors0123456789abcdefghijklmnopqrstuvwxyz?utm_campaign=x"
)
HUMAN_DATE = re.compile(
    r"(January|February|March|April|May|June|July|August|September|October|November|December)"
    r" [1-9]\d?, \d{4}"
)

# In the page: what overflows, the dates as shown and as stamped, and where the website link ends.
PROBE = r"""() => {
  const link = document.querySelector('dd a.website');
  return {scrollWidth: document.documentElement.scrollWidth,
          times: [...document.querySelectorAll('time')].map((t) => [t.textContent, t.getAttribute('datetime')]),
          notes: [...document.querySelectorAll('.range-note')].map((n) => n.textContent),
          tiers: [...document.querySelectorAll('tr[data-tier-row]')].map((r) => r.innerText.split(/\s+/).join(' ')),
          options: document.querySelectorAll('li.option').length,
          linkRight: link ? link.getBoundingClientRect().right : null};
}"""


@pytest.fixture(scope="module")
def live(request):
    """The app over a synced demo upstream, plus a company whose website is a long address."""
    with live_mcp(module_database(request)) as server:
        server.upstream.catalog.add_company(
            products=6,
            plugin_key=LONG_URL,
            name="Long Address Heating",
            trades=["hvac"],
            status="active",
            storefront_live=True,
            phone="(636) 555-0100",
            website=LONG_WEBSITE,
            settings={"currency": "USD", "price_description": None, "channels": {}},
        )
        assert server.mirror.sync().status == "success"
        yield server


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    assert CHROMIUM.exists(), "Debian's chromium is missing: run `make browser` (scripts/install_browser.sh)"
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=BROWSER_ARGS)
        yield launched
        launched.close()


def visit(browser, url: str, width: int = PHONE) -> dict:
    """Load a page at `width` px; its probe, after checking it loaded quietly (no CSP report, no error)."""
    page = browser.new_page(viewport={"width": width, "height": 844})
    answer_pictures(page)
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))
    try:
        assert page.goto(url).status == 200, url
        probe = page.evaluate(PROBE)
    finally:
        page.close()
    assert not console, console
    return probe


def assert_dates_read_as_dates(probe: dict) -> None:
    assert probe["times"], "no <time> on the page"
    for shown, stamped in probe["times"]:
        assert HUMAN_DATE.fullmatch(shown), shown
        instant = datetime.fromisoformat(stamped.replace("Z", "+00:00"))
        assert shown == f"{instant:%B} {instant.day}, {instant.year}"  # the same day as the machine value


@pytest.mark.parametrize("width", [PHONE, 1280])
def test_pricing_page_fits_and_explains_the_range(live, browser, width):
    probe = visit(browser, f"{live.url}/companies/{TUDI}/pricing", width)
    assert probe["scrollWidth"] <= width, probe
    # Central AC: Best starts at $11,700 (3 ton, Trane) and has a 4-ton Lennox at $13,500.50.
    assert "Best Trane · 20.5 SEER2 3 ton $11,700 · 4 ton $13,500.50 $11,700" in probe["tiers"], probe["tiers"]
    assert "“Starts at” is each tier's lowest-priced option." in probe["notes"], probe["notes"]
    assert probe["options"] == published_count(live, TUDI)
    assert_dates_read_as_dates(probe)


def published_count(live, key: str) -> int:
    """How many options the company publishes, by its pricing.json."""
    document = requests.get(f"{live.url}/companies/{key}/pricing.json", timeout=30).json()
    return sum(category["offer_count"] for category in document["categories"])


@pytest.mark.parametrize("width", [PHONE, 1280])
def test_quote_page_wraps_a_long_website_address(live, browser, width):
    probe = visit(browser, f"{live.url}/companies/{LONG_URL}/quote", width)
    assert probe["scrollWidth"] <= width, probe
    assert probe["linkRight"] is not None and probe["linkRight"] <= width, probe
    assert probe["tiers"] and probe["options"] == published_count(live, LONG_URL), probe
    assert_dates_read_as_dates(probe)
