"""The plugin's PHPUnit tests (tests/wordpress/, Debian's phpunit) on a real WordPress loaded in-process,
and the checks that tie the plugin to the mirror's published contract.

PHPUnit gets a site of its own (scripts/wordpress_site.sh install, never served): its tests change
options freely and answer the plugin's HTTP requests themselves (`pre_http_request`).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from xml.etree import ElementTree

import pytest

from feeds.pages import format_phone
from mirror.catalog.public_view import PricingDocument
from mirror.catalog.trades import GENERIC_BUSINESS_TYPE, TIERS_BY_SLUG, TRADES
from mirror.catalog.urls import PRICING_JSON, WEBMCP_JS
from mirror.store.models import MAX_CENTS
from mirror.values.money import CURRENCY_SIGNS
from tests import REPO_ROOT
from tests.wordpress_helpers import WordPressSite, new_site
from web.sources import LABEL_MAX

PLUGIN = REPO_ROOT / "wordpress"
PHPUNIT_DIR = REPO_ROOT / "tests" / "wordpress"
SUITES = {
    "ConnectionTest",
    "DocumentTest",
    "PollerTest",
    "RendererTest",
    "SettingsTest",
    "SitemapTest",
    "StructuredDataTest",
    "UninstallTest",
}


@pytest.fixture
def phpunit_site():
    assert shutil.which("phpunit"), "Debian's phpunit is missing: run `make wordpress` (scripts/install_wordpress.sh)"
    site = new_site("https://mirror.example", "tudi-test")
    yield site
    site.remove()


@pytest.mark.slow
def test_phpunit_passes_on_a_real_wordpress(phpunit_site: WordPressSite, tmp_path):
    junit = tmp_path / "junit.xml"
    done = subprocess.run(
        ["phpunit", "-c", str(PHPUNIT_DIR / "phpunit.xml"), "--log-junit", str(junit)],
        env=phpunit_site.env(),
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    root = ElementTree.parse(junit).getroot()
    [suite] = list(root)
    assert {name: int(suite.get(name)) for name in ("failures", "errors", "skipped")} == {
        "failures": 0,
        "errors": 0,
        "skipped": 0,
    }
    declared = sum(path.read_text().count("public function test_") for path in PHPUNIT_DIR.glob("*Test.php"))
    assert int(suite.get("tests")) >= declared > 0  # every test method ran (data providers run some more than once)
    assert {case.get("class") for case in suite.iter("testcase")} == SUITES


def test_the_phpunit_fixture_is_a_pricing_document_the_mirror_publishes():
    document = json.loads((PHPUNIT_DIR / "fixtures" / "pricing.json").read_text())
    PricingDocument.model_validate(document)


def test_the_plugin_reads_the_mirrors_routes():
    """The plugin's paths are the mirror's route table (mirror/catalog/urls.py)."""
    script = (
        "define('ABSPATH', '/'); require $argv[1];"
        "echo json_encode([Contractor_Pricing_Settings::PRICING_JSON_PATH, Contractor_Pricing_Settings::WEBMCP_JS_PATH]);"
    )
    done = subprocess.run(
        ["php", "-r", script, str(PLUGIN / "includes" / "class-settings.php")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout) == [PRICING_JSON, WEBMCP_JS]


def test_the_plugins_tier_and_currency_words_are_the_mirrors():
    """The plugin's copies of mirror/catalog/trades.py's tier titles and generic business type, and of mirror/values/money.py's signs."""
    script = (
        "define('ABSPATH', '/'); function __($text, $domain) { return $text; }"
        "require $argv[1]; require $argv[2];"
        "echo json_encode([Contractor_Pricing_Structured_Data::UNTYPED_BUSINESS, Contractor_Pricing_Content::TIER_LABELS,"
        " Contractor_Pricing_Content::CURRENCY_SYMBOLS]);"
    )
    includes = PLUGIN / "includes"
    done = subprocess.run(
        ["php", "-r", script, str(includes / "class-pricing-content.php"), str(includes / "class-structured-data.php")],
        capture_output=True,
        text=True,
        check=True,
    )
    untyped, tiers, symbols = json.loads(done.stdout)
    assert untyped == GENERIC_BUSINESS_TYPE
    assert tiers == {slug: tier.title for slug, tier in TIERS_BY_SLUG.items()}
    assert symbols == CURRENCY_SIGNS


def test_the_plugin_keeps_no_copy_of_the_trade_table():
    """Each trade's business type and systems noun reach the plugin in pricing.json (business_types, systems_label).

    No PHP string literal of the plugin spells a trade's slug, schema.org type or
    systems noun: a second table of trades there would be one the mirror's
    mirror/catalog/trades.py could drift from.
    """
    # PHP's own tokenizer: every quoted string of the code, none of its comments.
    script = (
        "$found = [];"
        "foreach (array_slice($argv, 1) as $file) { foreach (token_get_all(file_get_contents($file)) as $token) {"
        " if (is_array($token) && T_CONSTANT_ENCAPSED_STRING === $token[0]) { $found[] = substr($token[1], 1, -1); } } }"
        "echo json_encode($found);"
    )
    files = [str(path) for path in sorted(PLUGIN.rglob("*.php"))]
    done = subprocess.run(["php", "-r", script, *files], capture_output=True, text=True, check=True)
    literals = set(json.loads(done.stdout))
    words = {word for trade in TRADES.values() for word in (trade.slug, trade.schema_type, trade.systems)}
    assert literals & words == set()
    assert {"contractor-pricing", "HomeAndConstructionBusiness"} <= literals  # the literals were read at all


def test_the_plugins_largest_price_is_the_mirrors():
    """The plugin refuses prices above the mirror's own bound (mirror/store/models.py MAX_CENTS, as dollars)."""
    script = "define('ABSPATH', '/'); require $argv[1]; echo json_encode(Contractor_Pricing_Document::MAX_PRICE);"
    done = subprocess.run(
        ["php", "-r", script, str(PLUGIN / "includes" / "class-pricing-document.php")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert float(done.stdout) == MAX_CENTS / 100


def test_the_quote_links_label_is_bounded_as_the_mirror_records_it():
    """The plugin refuses a `?source=` label longer than the mirror records whole (web/sources.py LABEL_MAX)."""
    script = (
        "define('ABSPATH', '/'); require $argv[1]; echo json_encode(Contractor_Pricing_Settings::QUOTE_SOURCE_MAX);"
    )
    done = subprocess.run(
        ["php", "-r", script, str(PLUGIN / "includes" / "class-settings.php")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout) == LABEL_MAX


@pytest.mark.parametrize("phone", ["+16365550142", "+13145550100", "+442079460958", "+1636555014", "636-555-0142"])
def test_the_plugin_shows_the_phone_as_the_hosted_page_does(phone):
    """The plugin's phone beside the quote button reads as the hosted page's (feeds/pages.py format_phone)."""
    script = (
        "define('ABSPATH', '/'); function __($text, $domain) { return $text; }"
        "require $argv[1]; echo json_encode(Contractor_Pricing_Content::phone(['phone' => $argv[2]]));"
    )
    done = subprocess.run(
        ["php", "-r", script, str(PLUGIN / "includes" / "class-pricing-content.php"), phone],
        capture_output=True,
        text=True,
        check=True,
    )
    shown = json.loads(done.stdout)
    assert shown["display"] == format_phone(phone)
    assert shown["tel"] == "tel:" + re.sub(r"[^0-9+]", "", phone)


def field(text: str, name: str) -> str:
    """A `Name: value` line of a plugin header or readme.txt."""
    return re.search(rf"^[ *]*{name}:\s*(.+?)\s*$", text, re.M).group(1)


@pytest.mark.slow
def test_the_plugin_declares_wordpress_5_5_and_php_7_4_and_its_readme_agrees():
    header = (PLUGIN / "contractor-pricing.php").read_text()
    readme = (PLUGIN / "readme.txt").read_text()
    assert field(header, "Requires at least") == field(readme, "Requires at least") == "5.5"
    assert field(header, "Requires PHP") == field(readme, "Requires PHP") == "7.4"
    assert field(header, "Version") == field(readme, "Stable tag")
    assert readme.startswith("=== Contractor Pricing ===")
    for section in ("== Description ==", "== Installation ==", "== Frequently Asked Questions ==", "== Changelog =="):
        assert section in readme
