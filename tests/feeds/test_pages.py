"""Hosted pages: the pricing page, the quote page and redirect, the HTML 404, and a real browser."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal

import lxml.html
import pytest
from sqlalchemy import update
from werkzeug.serving import make_server

from feeds.pages import display_url, human_date
from mirror.store import state as st
from mirror.store.models import Company
from tests.surface_helpers import (
    BASE_URL,
    DEFAULT_PRODUCTS,
    PRICE_DESCRIPTION,
    add_company,
    answer_pictures,
    extruct_graphs,
    graph_offer_prices,
    ld_json_blocks,
    money_value,
    response_signature,
    set_settings,
    sync,
    validate_structured_data,
    visible_prices,
)


def pricing(key: str) -> str:
    return f"/companies/{key}/pricing"


def quote(key: str) -> str:
    return f"/companies/{key}/quote"


def published_prices(client, key: str) -> dict:
    """pricing.json's prices per category name, as Decimals."""
    document = json.loads(client.get(f"/companies/{key}/pricing.json").get_data(), parse_float=Decimal)
    return {
        c["name"]: {
            "low": Decimal(c["price_low"]),
            "high": Decimal(c["price_high"]),
            "tiers": {t: Decimal(p) for t, p in (c.get("tiers") or {}).items() if p is not None},
        }
        for c in document["categories"]
    }


def test_pricing_page_shows_the_view(upstream, mirror, client):
    key = add_company(upstream)
    sync(mirror)
    response = client.get(pricing(key))
    assert response.status_code == 200 and response.mimetype == "text/html"
    assert response.headers["Cache-Control"] == "public, max-age=300" and response.headers["ETag"]
    assert "default-src 'none'" in response.headers["Content-Security-Policy"]
    html = response.get_data(as_text=True)
    page = lxml.html.fromstring(html)

    assert page.find_class("business-name")[0].text_content() == "Ridgeline Heating & Air"
    # A headline per kind: the $24.50 filters never set where installed systems start. With two
    # trades the headline does not say whose systems they are.
    assert [h.text_content() for h in page.find_class("headline")] == [
        "Installed systems from $2,499",
        "Parts and add-ons from $24.50",
    ]
    assert page.xpath("//meta[@name='description']/@content") == [
        "Ridgeline Heating & Air: installed systems from $2,499; parts and add-ons from $24.50."
    ]
    assert visible_prices(html) == published_prices(client, key)
    softener = page.get_element_by_id("water-softener")
    assert [c.text_content() for c in softener.find_class("none")] == ["Not offered", "Not offered"]
    assert page.find_class("price-description")[0].text_content() == PRICE_DESCRIPTION
    assert {a.get("href") for a in page.find_class("quote-cta")} == {f"{BASE_URL}/companies/{key}/quote"}
    assert page.xpath("//a[starts-with(@href, 'tel:')]/@href")[0] == "tel:+16365550134"
    # The date as a person reads it; the exact instant stays machine-readable on <time>.
    synced = client.get(f"/companies/{key}/pricing.json").get_json()["last_synced_at"]
    [when] = page.find_class("freshness")[0].iter("time")
    assert when.get("datetime") == synced
    day = datetime.fromisoformat(synced.replace("Z", "+00:00"))
    assert page.find_class("freshness")[0].text_content() == f"Prices last confirmed {day:%B} {day.day}, {day.year}."


def test_each_tier_row_says_what_it_is_and_its_own_range(upstream, mirror, client):
    # The heat pump's Best has two options: a 5-ton one above the cheapest Best.
    bigger = {
        "sku": "HP-BEST-5T",
        "name": "Heat pump, best, 5 ton",
        "category": DEFAULT_PRODUCTS[0]["category"],
        "tier": "best",
        "price": "15200",
    }
    sized = {"brand": "Lennox", "specs": {"tonnage": 2, "seer2": 15.2}}
    products = [{**p, **sized} if p["sku"] == "HP-GOOD" else p for p in (*DEFAULT_PRODUCTS, bigger)]
    key = add_company(upstream, products=products)
    sync(mirror)
    page = lxml.html.fromstring(client.get(pricing(key)).get_data(as_text=True))
    heat_pump = page.get_element_by_id("heat-pump-system")
    assert heat_pump.find_class("range-label")[0].text_content() == "Installed price range"
    assert heat_pump.find_class("range")[0].text_content() == "$8,500 – $15,200"
    assert [td.text_content() for td in heat_pump.xpath(".//td[@data-tier]")] == ["$8,500", "$11,006", "$14,200.50"]
    rows = {row.get("data-tier-row"): row for row in heat_pump.xpath(".//tr[@data-tier-row]")}
    # What the catalog states of the starting option: its brand, rating and size.
    assert rows["good"].find_class("what")[0].text_content() == "Lennox\xa0· 15.2 SEER2\xa0· 2 ton"
    # No brand and no fact: the option's own name says what it is.
    assert rows["better"].find_class("what")[0].text_content() == "Heat pump, better"
    # Two options, only one of them with a stated size: how many, and the tier's own range.
    assert rows["best"].find_class("span")[0].text_content() == "2 options: $14,200.50 – $15,200"
    assert heat_pump.find_class("range-note")[0].text_content() == "“Starts at” is each tier's lowest-priced option."
    # Every option is named, by tier, as many as the published count.
    assert heat_pump.xpath(".//details/summary")[0].text_content() == "All 4 published options"
    assert [g.text_content() for g in heat_pump.find_class("group-title")] == ["Good", "Better", "Best"]
    assert len(heat_pump.xpath(".//li[@class='option']")) == 4
    # One price is not a range, and one option per tier needs no note.
    softener = page.get_element_by_id("water-softener")
    assert softener.find_class("range-label")[0].text_content() == "Installed price"
    assert not softener.find_class("range-note")
    assert [c.text_content() for c in softener.find_class("none")] == ["Not offered", "Not offered"]
    # Accessories: apart, with no tiers, their options listed cheapest first.
    filters = page.get_element_by_id("air-filters")
    assert filters.xpath(".//details/summary")[0].text_content() == "All 2 published options"
    assert [o.text_content() for o in filters.find_class("option-name")] == ["Filter 4 inch", "Filter 1 inch"]
    assert not filters.xpath(".//tr")


def test_dates_and_addresses_read_as_a_person_reads_them():
    assert human_date(datetime(2026, 12, 1, 23, 59, tzinfo=UTC)) == "December 1, 2026"
    # The UTC date, whatever zone the instant arrives in.
    assert human_date(datetime(2026, 2, 28, 20, 0, tzinfo=timezone(timedelta(hours=-5)))) == "March 1, 2026"
    assert display_url("https://www.ridgeline.example/") == "ridgeline.example"
    assert display_url("https://ridgeline.example/contact/?utm_source=x#top") == "ridgeline.example/contact"
    # Whatever precedes an @ is not the host a person would be sent to.
    assert display_url("https://ridgeline.example@evil.example/x") == "evil.example/x"
    assert display_url(None) is None


def test_pricing_page_has_no_javascript_and_loads_nothing_external(upstream, mirror, client):
    key = add_company(upstream)
    sync(mirror)
    page = lxml.html.fromstring(client.get(pricing(key)).get_data(as_text=True))
    assert [s.get("type") for s in page.iter("script")] == ["application/ld+json"]
    # The catalog's own pictures are the one thing it loads, each only when scrolled to (docs/pricing-page.md).
    pictures = page.xpath("//img")
    assert pictures and all(img.get("loading") == "lazy" for img in pictures)
    assert {img.get("src") for img in pictures} <= {
        f"https://images.example/{p['sku'].lower()}.jpg" for p in DEFAULT_PRODUCTS
    }
    assert not page.xpath("//*[@src][not(self::img)] | //link[@rel='stylesheet'] | //iframe | //form")
    assert not [a for element in page.iter() for a in element.attrib if a.lower().startswith("on")]
    assert not page.xpath("//a[starts-with(translate(@href, 'JAVSCRIPT', 'javscript'), 'javascript:')]")


def test_pricing_page_jsonld_is_the_graph_and_matches_the_visible_prices(upstream, mirror, client):
    key = add_company(upstream)
    sync(mirror)
    html = client.get(pricing(key)).get_data(as_text=True)
    [block] = ld_json_blocks(html)
    graph = json.loads(block)
    assert graph == json.loads(client.get(f"/companies/{key}.jsonld").get_data())

    report = validate_structured_data(html)
    assert report["errors"] == []
    assert {n["name"] for n in report["extracted"]["Product"]} == {"Heat Pump System", "Air Filters"}

    [extracted] = extruct_graphs(html, f"{BASE_URL}{pricing(key)}")
    assert extracted == graph
    assert graph_offer_prices(extracted) == visible_prices(html)


def test_switches_remove_jsonld_and_the_quote_call_to_action(upstream, mirror, client):
    no_jsonld = add_company(upstream)
    set_settings(upstream, no_jsonld, channels={"jsonld": False})
    no_quote = add_company(upstream)
    set_settings(upstream, no_quote, channels={"quote": False})
    no_pricing = add_company(upstream)
    set_settings(upstream, no_pricing, channels={"pricing": False})
    sync(mirror)

    html = client.get(pricing(no_jsonld)).get_data(as_text=True)
    assert "application/ld+json" not in html and "<script" not in html
    assert visible_prices(html) == published_prices(client, no_jsonld)

    html = client.get(pricing(no_quote)).get_data(as_text=True)
    page = lxml.html.fromstring(html)
    assert not page.find_class("quote-cta") and "/quote" not in html
    assert len(ld_json_blocks(html)) == 1

    html = client.get(quote(no_pricing)).get_data(as_text=True)
    assert pricing(no_pricing) not in html  # no link to a page that would 404
    assert client.get(quote(no_quote)).status_code == 404


def test_stale_prices_say_so(upstream, mirror, client):
    key = add_company(upstream)
    sync(mirror)
    # Age the last success past FRESHNESS_THRESHOLD_SECONDS (one day by default).
    two_days_ago = datetime.now(UTC) - timedelta(days=2)
    with mirror.WriterSession() as session, session.begin():
        st.put(session, st.LAST_SUCCESS_AT, two_days_ago)
        session.execute(update(Company).values(last_synced_at=None))
    assert client.get(f"/companies/{key}/pricing.json").get_json()["freshness_state"] == "stale"
    note = lxml.html.fromstring(client.get(pricing(key)).get_data(as_text=True)).find_class("freshness")[0]
    assert "may have changed" in note.text_content() and "stale" in note.get("class")


FUNNELS = [
    # (systems_estimate_url, verified, concom_shop_url, expected Location or None for the page)
    (
        "https://ridgeline.example/estimate?Ref=abc&zip=63385#top",
        True,
        None,
        "https://ridgeline.example/estimate?Ref=ai_interfaces&zip=63385#top",
    ),
    (
        "https://ridgeline.example/e?utm_source=x&UTM_SOURCE=y&referrer=z&other=1",
        True,
        None,
        "https://ridgeline.example/e?utm_source=ai_interfaces&UTM_SOURCE=ai_interfaces&referrer=ai_interfaces&other=1",
    ),
    (
        "https://ridgeline.example/estimate?zip=63385",
        True,
        "https://shop.example/r/",
        "https://ridgeline.example/estimate?zip=63385",
    ),
    (
        "https://ridgeline.example/estimate?ref=a",
        False,
        "https://shop.example/r/?utm_source=concom",
        "https://shop.example/r/?utm_source=ai_interfaces",
    ),
    ("javascript:alert(1)", True, "https://shop.example/r/", "https://shop.example/r/"),
    ("https://ridgeline.example/estimate", False, None, None),
    (None, False, "ftp://shop.example/r/", None),
]


def test_quote_redirects_to_the_stamped_funnel_or_shows_the_page(upstream, mirror, client):
    keys = []
    for estimate, verified, shop, _ in FUNNELS:
        key = add_company(upstream)
        settings = {"systems_estimate_url": estimate, "systems_estimate_url_verified": verified}
        set_settings(upstream, key, **settings, **({"concom_shop_url": shop} if shop else {}))
        keys.append(key)
    sync(mirror)
    for key, (*_, expected) in zip(keys, FUNNELS):
        for response in (client.get(quote(key)), client.head(quote(key))):
            if expected is None:
                assert response.status_code == 200, key
                assert response.headers["Cache-Control"] == "public, max-age=300"
            else:
                assert response.status_code == 302
                assert response.headers["Location"] == expected
                assert response.headers["Cache-Control"] == "no-store"


def test_referrer_stamp_is_configurable(make_app, upstream, mirror):
    key = add_company(upstream)
    set_settings(upstream, key, systems_estimate_url="https://r.example/q?REF=x", systems_estimate_url_verified=True)
    sync(mirror)
    response = make_app(REFERRER_STAMP="partner_x").test_client().get(quote(key))
    assert response.headers["Location"] == "https://r.example/q?REF=partner_x"


@pytest.mark.parametrize("stored", ["javascript:alert(1)", "//evil.example/x", "https://", "data:text/html,hi"])
def test_an_unsafe_stored_url_is_never_redirected_to(upstream, mirror, client, stored):
    key = add_company(upstream)
    sync(mirror)
    # Bypass the sync's normalisation: the route must refuse on its own.
    with mirror.WriterSession() as session, session.begin():
        session.execute(update(Company).where(Company.plugin_key == key).values(estimate_url=stored))
    response = client.get(quote(key))
    assert response.status_code == 200 and "Location" not in response.headers
    assert stored not in lxml.html.fromstring(response.get_data(as_text=True)).xpath("//a/@href")


def test_quote_page_shows_how_to_reach_the_contractor(upstream, mirror, client):
    key = add_company(upstream)
    sync(mirror)
    response = client.get(quote(key))
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    page = lxml.html.fromstring(html)
    assert page.find_class("business-name")[0].text_content() == "Ridgeline Heating & Air"
    assert page.find_class("address")[0].text_content() == "12 Main St, Suite 200, Wentzville, MO 63385"
    assert "tel:+16365550134" in page.xpath("//a/@href")
    assert "(636) 555-0134" in page.text_content()
    assert {a.get("href") for a in page.find_class("website")} == {"https://ridgeline.example"}
    assert page.xpath("//dd/a[contains(@class, 'website')]")[0].text_content() == "ridgeline.example"
    assert page.xpath("//p[contains(@class, 'freshness-line')]/time/@datetime") == [
        client.get(f"/companies/{key}/pricing.json").get_json()["last_synced_at"]
    ]
    ranges = {
        row.find_class("category-name")[0].text_content(): [
            money_value(p) for p in row.find_class("range")[0].text_content().split("–")
        ]
        for row in page.find_class("category")
    }
    published = published_prices(client, key)
    assert ranges == {name: sorted({p["low"], p["high"]}) for name, p in published.items()}
    assert f"{BASE_URL}{pricing(key)}" in page.xpath("//a/@href")
    # The same headlines, tier rows and options as the pricing page, so its JSON-LD describes them too.
    assert [h.text_content() for h in page.find_class("headline")] == [
        "Installed systems from $2,499",
        "Parts and add-ons from $24.50",
    ]
    assert visible_prices(html) == published_prices(client, key)
    assert len(page.xpath("//li[@class='option']")) == len(DEFAULT_PRODUCTS)
    [block] = ld_json_blocks(html)
    graph = json.loads(block)
    assert graph == json.loads(client.get(f"/companies/{key}.jsonld").get_data())
    [extracted] = extruct_graphs(html, f"{BASE_URL}{quote(key)}")
    assert extracted == graph and graph_offer_prices(extracted) == visible_prices(html)
    assert validate_structured_data(html)["errors"] == []
    assert [s.get("type") for s in page.iter("script")] == ["application/ld+json"]


@pytest.mark.parametrize("surface, channel", [(pricing, "pricing"), (quote, "quote")])
def test_html_404_is_identical_for_every_closed_case(upstream, mirror, client, surface, channel):
    churned = add_company(upstream, status="churned")
    not_live = add_company(upstream, storefront_live=False)
    switched_off = add_company(upstream)
    set_settings(upstream, switched_off, channels={channel: False})
    sync(mirror)
    keys = ("no-such-company", "x" * 300, churned, not_live, switched_off)
    answers = [client.get(surface(key)) for key in keys]
    assert answers[0].status_code == 404 and answers[0].mimetype == "text/html"
    assert len({response_signature(a) for a in answers}) == 1
    # The same page on every HTML surface.
    assert response_signature(client.get(pricing("nobody"))) == response_signature(client.get(quote("nobody")))
    heads = [client.head(surface(key)) for key in keys]
    assert len({response_signature(h) for h in heads}) == 1 and heads[0].get_data() == b""
    assert client.get(f"/companies/{switched_off}.jsonld").status_code == 200  # only that surface closed


def test_head_works_like_get(upstream, mirror, client):
    key = add_company(upstream)
    sync(mirror)
    get, head = client.get(pricing(key)), client.head(pricing(key))
    assert head.status_code == 200 and head.get_data() == b""
    assert head.headers["ETag"] == get.headers["ETag"]
    assert head.headers["Content-Length"] == get.headers["Content-Length"]
    assert client.get(pricing(key), headers={"If-None-Match": get.headers["ETag"]}).status_code == 304


@pytest.fixture
def live_server(app):
    """The app over real HTTP (werkzeug), for the browser."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join(5)


LAYOUT_PROBE = """() => {
  const cta = document.querySelector('.quote-cta, .button');
  const box = cta.getBoundingClientRect();
  return {scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth,
          ctaHeight: box.height, ctaVisible: box.width > 0 && box.top < window.innerHeight,
          fontSize: parseFloat(getComputedStyle(document.body).fontSize),
          headingSize: parseFloat(getComputedStyle(document.querySelector('h1')).fontSize)};
}"""


@pytest.mark.browser
def test_pages_fit_phone_and_desktop_in_chromium(upstream, mirror, live_server, tmp_path):
    from playwright.sync_api import sync_playwright

    key = add_company(upstream, name="Ridgeline Heating, Air Conditioning & Geothermal Comfort Specialists")
    sync(mirror)
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            for width in (390, 1280):
                for name, url in (("pricing", pricing(key)), ("quote", quote(key))):
                    page = browser.new_page(viewport={"width": width, "height": 844})
                    answer_pictures(page)
                    console = []
                    page.on("console", lambda message, seen=console: seen.append(message.text))
                    assert page.goto(live_server + url).status == 200
                    page.screenshot(path=tmp_path / f"{name}-{width}.png", full_page=True)
                    probe = page.evaluate(LAYOUT_PROBE)
                    assert probe["scrollWidth"] <= probe["innerWidth"], (name, width, probe)  # no sideways scrolling
                    assert probe["ctaVisible"] and probe["ctaHeight"] >= 44, (
                        name,
                        width,
                        probe,
                    )  # tappable, above the fold
                    assert probe["fontSize"] >= 16 and probe["headingSize"] >= 28, (name, width, probe)
                    assert not console, console  # e.g. a CSP violation
                    page.close()
        finally:
            browser.close()
