"""The hosted pages in headless Chromium at a phone's width, against a live app over a synced demo upstream.

A homeowner on a 390 px phone must never scroll sideways (not even for a long
website address), must see each tier's own sizes and prices beside its
Good/Better/Best starting price, with every published option listed, and
must read the date the prices were confirmed as a date, with the exact
instant kept on the <time> element. (tests/feeds/test_pricing_page_content.py
takes the screenshots of the demo's own page.)
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

import pytest
import requests

from demo.examples import NO_FUNNEL_KEY, TUDI_KEY
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


# --- pictures, plain words and the hero (issue 32), on the demo's Tudi as `make run` serves it ----------------

# The words Tudi's page shows, in the order it first shows them: "A/C & Gas Furnace" and its Good row
# ("14.3 SEER2 · 80% AFUE", "3 ton"), then "HP & Air Handler" and its Good row ("7.8 HSPF2"), then "MERV 8".
TUDI_WORDS = ["A/C", "SEER2", "AFUE", "ton", "HP", "HSPF2", "MERV"]
WORDS_PROBE = r"""() => {
  const box = (element) => { const r = element.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; };
  const glossary = document.querySelector('details.glossary');
  return {abbrs: [...document.querySelectorAll('abbr[title]')].map((a) => [a.textContent, a.title]),
          plain: [...document.querySelectorAll('.category')].map((c) => {
            const plain = c.querySelector('.plain-name'), name = c.querySelector('h3');
            return [c.dataset.slug, plain && plain.textContent, plain && box(plain)[1] >= box(name)[1] + box(name)[3]];
          }),
          names: [...document.querySelectorAll('.category-name')].map((n) => n.textContent),
          glossaryOpen: glossary.open, summary: glossary.querySelector('summary').textContent,
          summaryHeight: box(glossary.querySelector('summary'))[3],
          scrollWidth: document.documentElement.scrollWidth};
}"""
PICTURES_PROBE = r"""() => [...document.querySelectorAll('img')].map((img) => ({
  src: img.getAttribute('src'), alt: img.alt, loading: img.loading, decoding: img.decoding,
  width: img.getAttribute('width'), height: img.getAttribute('height'),
  box: [img.getBoundingClientRect().width, img.getBoundingClientRect().height],
  loaded: img.complete && img.naturalWidth > 0,
  owner: img.closest('li.option') ? img.closest('li.option').querySelector('.option-name').textContent
       : img.closest('.category').querySelector('.category-name').textContent}))"""
# Where every price and heading sits: the same whether the pictures arrive or not, when their box is set.
LAYOUT_PROBE = r"""() => [...document.querySelectorAll('h3, .range, .tier-row, li.option, .glossary')].map((e) => {
  const r = e.getBoundingClientRect(); return [e.tagName, Math.round(r.left), Math.round(r.top + scrollY), Math.round(r.height)];
})"""
HERO_PROBE = r"""() => {
  const style = (selector) => { const e = document.querySelector('.masthead ' + selector), s = getComputedStyle(e);
    return {size: parseFloat(s.fontSize), weight: parseInt(s.fontWeight), top: e.getBoundingClientRect().top}; };
  return {system: style('.headline-system'), accessory: style('.headline-accessory')};
}"""


@pytest.fixture(scope="module")
def demo(request):
    """The demo's example companies, over an upstream that stands in for their sites and pictures (`make run`'s)."""
    from demo.server import start_in_thread
    from tests.mcp_helpers import serve_app

    upstream = start_in_thread(companies=0, products=0, seed=1, examples=True, stand_ins=True)
    for product in upstream.catalog.products_of(NO_FUNNEL_KEY):  # Prairie Heating & Cooling: no picture anywhere
        upstream.catalog.set_product(NO_FUNNEL_KEY, product["sku"], image_url=None)
    try:
        with serve_app(module_database(request), upstream.url) as live:
            assert live.mirror.sync().status == "success"
            live.upstream = upstream
            yield live
    finally:
        upstream.stop()


def open_page(browser, url: str, width: int, *, pictures: bool = True):
    """A page at `width` px with every <details> opened and every picture scrolled into view (None: failed)."""
    page = browser.new_page(viewport={"width": width, "height": 844})
    if not pictures:  # the picture host is down: each picture fails, and its box must hold
        page.route(re.compile(r"/sites/images\.catalog\.example/"), lambda route: route.abort())
    assert page.goto(url).status == 200, url
    for summary in page.locator("details summary").all():
        summary.click()
    page.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")
    page.wait_for_load_state("networkidle")
    page.evaluate("() => window.scrollTo(0, 0)")
    return page


@pytest.mark.parametrize("width", [PHONE, 1280])
def test_each_word_is_explained_where_it_first_appears(demo, browser, width):
    document = requests.get(f"{demo.url}/companies/{TUDI_KEY}/pricing.json", timeout=30).json()
    assert [entry["term"] for entry in document["glossary"]] == TUDI_WORDS
    page = browser.new_page(viewport={"width": width, "height": 844})
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))
    try:
        assert page.goto(f"{demo.url}/companies/{TUDI_KEY}/pricing").status == 200
        probe = page.evaluate(WORDS_PROBE)
        # Marked once each, where the page first shows it, with pricing.json's own meaning.
        assert probe["abbrs"] == [[entry["term"], entry["meaning"]] for entry in document["glossary"]]
        # The contractor's names stay as written; the plain name goes beneath an abbreviated one only.
        assert probe["names"] == ["A/C & Gas Furnace", "HP & Air Handler", "Air Filters"]
        assert probe["plain"] == [
            ["ac-gas-furnace", "Air conditioner and gas furnace", True],
            ["hp-air-handler", "Heat pump and air handler", True],
            ["air-filters", None, None],
        ]
        # "What these words mean": closed, tappable, naming its words; open, each with its meaning.
        assert not probe["glossaryOpen"] and probe["summaryHeight"] >= 44
        assert probe["summary"] == "What these words mean" + ", ".join(TUDI_WORDS)
        glossary = page.locator("details.glossary")
        glossary.locator("summary").click()
        shown = glossary.locator("dl > div").all_inner_texts()
        assert [" ".join(text.split()) for text in shown] == [
            f"{entry['term']} {entry['meaning']}" for entry in document["glossary"]
        ]
        assert probe["scrollWidth"] <= width and page.evaluate("document.documentElement.scrollWidth") <= width
    finally:
        page.close()
    assert not console, console


@pytest.mark.parametrize("width", [PHONE, 1280])
def test_pictures_are_lazy_sized_and_named_and_nothing_moves_when_they_arrive(demo, browser, width):
    url = f"{demo.url}/companies/{TUDI_KEY}/pricing"
    document = requests.get(f"{demo.url}/companies/{TUDI_KEY}/pricing.json", timeout=30).json()
    page = open_page(browser, url, width)
    try:
        pictures = page.evaluate(PICTURES_PROBE)
        with_pictures = page.evaluate(LAYOUT_PROBE)
    finally:
        page.close()
    expected = {(c["image_url"], c["name"]) for c in document["categories"]}
    expected |= {(o["image_url"], o["name"]) for c in document["categories"] for o in c["options"]}
    assert {(p["src"], p["owner"]) for p in pictures} == expected and len(pictures) == 3 + 15
    for picture in pictures:
        assert picture["src"].startswith(f"{demo.upstream.url}/sites/images.catalog.example/"), picture
        assert picture["alt"] == picture["owner"] and picture["loaded"], picture
        assert (picture["loading"], picture["decoding"]) == ("lazy", "async"), picture
        assert [float(picture["width"]), float(picture["height"])] == picture["box"], picture  # its box, from the start
    page = open_page(browser, url, width, pictures=False)
    try:
        assert not any(p["loaded"] for p in page.evaluate(PICTURES_PROBE))
        assert page.evaluate(LAYOUT_PROBE) == with_pictures  # no layout shift: every box was already there
    finally:
        page.close()


@pytest.mark.parametrize("width", [PHONE, 1280])
@pytest.mark.parametrize("surface", ["pricing", "quote"])
def test_a_page_without_pictures_leaves_no_empty_box(demo, browser, width, surface):
    """Prairie's catalog has no picture anywhere: no <img>, no placeholder, each name from the card's own edge."""
    page = browser.new_page(viewport={"width": width, "height": 844})
    try:
        assert page.goto(f"{demo.url}/companies/{NO_FUNNEL_KEY}/{surface}").status == 200
        assert page.locator("img").count() == 0
        edges = page.evaluate(
            """() => [...document.querySelectorAll('.card.category')].map((card) =>
                 [card.querySelector('h3').getBoundingClientRect().left,
                  card.querySelector('.range-label').getBoundingClientRect().left])"""
        )
        assert edges and all(abs(name - label) < 1 for name, label in edges), edges
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    finally:
        page.close()


@pytest.mark.parametrize("width", [PHONE, 1280])
def test_installed_systems_lead_the_hero_and_parts_are_a_smaller_line(demo, browser, width):
    page = browser.new_page(viewport={"width": width, "height": 844})
    try:
        assert page.goto(f"{demo.url}/companies/{TUDI_KEY}/pricing").status == 200
        hero = page.evaluate(HERO_PROBE)
        assert page.locator(".masthead .headline-accessory").inner_text() == "Parts and add-ons from $60.05"
    finally:
        page.close()
    system, accessory = hero["system"], hero["accessory"]
    assert accessory["top"] > system["top"]  # beneath the systems' headline
    assert accessory["size"] <= 0.7 * system["size"], hero  # a smaller line, not a second headline
    assert accessory["weight"] <= 400 < system["weight"], hero
