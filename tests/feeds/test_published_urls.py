"""Published URLs over real HTTP: the host a browser would go to, in the form every consumer's check accepts.

The unit tests of the rule are in tests/mirror/catalog/test_records.py; these follow an
upstream URL through a sync to what the mirror serves: the quote redirect's
Location, pricing.json's `website`, `quote_url` and `image_url`, and a row
stored before the rule was complete.
"""

from __future__ import annotations

import pytest
from sqlalchemy import update

from mirror.catalog.records import URL_MAX_LENGTH
from mirror.catalog.urls import PRICING_JSON, QUOTE_PAGE, company_path
from mirror.store.models import Company
from tests.hardening_helpers import serving
from tests.surface_helpers import DEFAULT_PRODUCTS, add_company, set_settings, sync

BACKSLASH_ESTIMATE = "https://evil.example\\.tudi.example/estimate"  # a browser's host: evil.example


@pytest.fixture
def live(app):
    with serving(app) as base:
        yield base


def _quote(http, live: str, key: str):
    return http.get(live + company_path(QUOTE_PAGE, key), allow_redirects=False, timeout=20)


@pytest.mark.parametrize(
    "estimate",
    [
        BACKSLASH_ESTIMATE,
        "https://tudi\u00ad.example/estimate",  # a soft hyphen in the host
        "https://tu\u200bdi.example/estimate",  # a zero-width space in the host
        "https://tudi.example/estimate?q=" + "a" * URL_MAX_LENGTH,  # a Location nginx answers 502 for
    ],
)
def test_an_estimate_url_naming_another_host_than_it_shows_is_never_the_redirect(
    upstream, mirror, live, http, estimate
):
    key = add_company(upstream)
    set_settings(upstream, key, systems_estimate_url=estimate, systems_estimate_url_verified=True)
    sync(mirror)
    response = _quote(http, live, key)
    assert response.status_code == 200 and "Location" not in response.headers
    assert "evil.example" not in response.text


def test_urls_are_published_with_scheme_and_host_in_lower_case(upstream, mirror, live, http):
    products = [{**product, "image_url": "Https://IMG.Example/a.jpg"} for product in DEFAULT_PRODUCTS]
    key = add_company(upstream, products=products, website="HTTPS://WWW.UPPER.EXAMPLE/")
    set_settings(
        upstream, key, systems_estimate_url="HTTPS://Quote.Upper.Example/Start", systems_estimate_url_verified=True
    )
    sync(mirror)
    response = _quote(http, live, key)
    assert response.status_code == 302
    assert response.headers["Location"] == "https://quote.upper.example/Start"
    document = http.get(live + company_path(PRICING_JSON, key), timeout=20).json()
    assert document["business"]["website"] == "https://www.upper.example/"
    images = {category["image_url"] for category in document["categories"]} - {None}
    assert images == {"https://img.example/a.jpg"}


@pytest.mark.parametrize(
    "stored, location",
    [
        (BACKSLASH_ESTIMATE, None),
        ("HTTPS://Quote.Upper.Example/Start", "https://quote.upper.example/Start"),
    ],
)
def test_a_row_stored_before_the_rule_is_held_to_it_at_the_redirect(upstream, mirror, live, http, stored, location):
    key = add_company(upstream)
    sync(mirror)
    with mirror.Session() as session:  # as a row synced before the rule was complete
        session.execute(update(Company).where(Company.plugin_key == key).values(estimate_url=stored))
        session.commit()
    response = _quote(http, live, key)
    assert response.headers.get("Location") == location
    assert response.status_code == (302 if location else 200)
