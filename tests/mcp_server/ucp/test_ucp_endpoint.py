"""The UCP surfaces over real HTTP: the gate, the business profile, COMPANY_HOSTS,
generic MCP clients, and search_catalog's mapping of the mirror (offer group -> Product, product -> Variant).

Both releases: `/.well-known/ucp` is the 2026-08-25 profile linking the 2026-04-08 one in
`supported_versions`, and 2026-08-25 answers add quantity_unit and the contractor's price terms as
policies. Every structuredContent is validated against the tool's own outputSchema (tests/ucp_helpers.py);
the profiles and responses against each release's official schemas in tests/conformance/ (`make conformance`).
"""

from __future__ import annotations

import copy
import json

import pytest
import requests

from mirror.read.company import load_company_snapshot
from tests.mcp_helpers import (
    HOSTILE_NAME,
    MCP_OFF,
    NOT_LIVE,
    QUOTE_OFF,
    TUDI,
    TUDI_PRODUCTS,
    module_database,
    post,
    rpc,
)
from tests.ucp_helpers import MANY, UCP_HEADERS, V0408, V0825, agent_profile, ucp_live

PRIVATE = ("PRIVATE-DEALER-NOTE", "internal_id", "owner", "dealer_notes", "FURN-SECRET", "Unpublished Prototype")


@pytest.fixture(scope="module")
def ucp(request):
    with ucp_live(module_database(request)) as live:
        yield live


def view_of(ucp, key: str = TUDI):
    with ucp.live.mirror.Session() as session:
        return load_company_snapshot(session, key, options=True).view(ucp.live.app.extensions["mirror"].settings)


# --- the gate ------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["no-such-company", MCP_OFF, NOT_LIVE])
def test_unknown_not_public_and_switched_off_answer_the_one_404(ucp, key):
    reference_post = post(ucp.endpoint("no-such-company"), {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    reference_get = requests.get(f"{ucp.live.url}/companies/no-such-company/.well-known/ucp", timeout=10)
    answer_post = post(ucp.endpoint(key), {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    answer_get = requests.get(f"{ucp.live.url}/companies/{key}/.well-known/ucp", timeout=10)
    for reference, answer in ((reference_post, answer_post), (reference_get, answer_get)):
        assert answer.status_code == 404
        assert answer.content == reference.content
        assert answer.headers["Content-Type"] == reference.headers["Content-Type"] == "application/json"


def test_quote_switch_off_keeps_ucp_but_drops_every_quote_link(ucp):
    result = ucp.ok("search_catalog", {"filters": {"price": {"min": 1}}}, key=QUOTE_OFF)
    assert result["products"]
    text = json.dumps(result)
    assert f"/companies/{QUOTE_OFF}/quote" not in text and "request_quote" not in text
    assert all("url" not in p and all("url" not in v for v in p["variants"]) for p in result["products"])
    assert "Contact the contractor" in result["messages"][0]["content"]


# --- the business profile ------------------------------------------------------------------


def expected_profile(version: str, endpoint: str, supported: dict | None = None) -> dict:
    """A business profile of one release, field for field and in order (2026-04-08's is the document served before
    2026-08-25 was added): an agent profile of the release (tests.ucp_helpers) with the endpoint its service answers
    at and, when given, the other releases it supports."""
    agent = copy.deepcopy(agent_profile(version)["ucp"])
    agent["services"]["dev.ucp.shopping"][0]["endpoint"] = endpoint
    ucp_field = {"version": version, **({"supported_versions": supported} if supported else {}), **agent}
    return {"ucp": ucp_field}


def test_business_profile_is_2026_08_25_linking_a_complete_2026_04_08_profile(ucp):
    url = f"{ucp.live.url}/companies/{TUDI}/.well-known/ucp"
    response = requests.get(url, timeout=10, allow_redirects=False)
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "public, max-age=300"
    assert response.headers["Content-Type"] == "application/json"
    older = f"{url}/{V0408}"
    assert response.json() == expected_profile(V0825, ucp.endpoint(TUDI), {V0408: older})
    assert list(response.json()["ucp"]) == [
        "version",
        "supported_versions",
        "services",
        "capabilities",
        "payment_handlers",
    ]
    leaf = requests.get(older, timeout=10, allow_redirects=False)
    assert leaf.status_code == 200 and leaf.headers["Cache-Control"] == "public, max-age=300"
    # Byte for byte the 2026-04-08 document served before 2026-08-25 was added (compact JSON, this key order).
    assert leaf.content == json.dumps(expected_profile(V0408, ucp.endpoint(TUDI)), separators=(",", ":")).encode()
    newest = requests.get(f"{url}/{V0825}", timeout=10, allow_redirects=False)
    assert newest.status_code == 200 and newest.content == response.content
    for document in (response, leaf):
        etag = document.headers["ETag"]
        again = requests.get(document.url, headers={"If-None-Match": etag}, timeout=10)
        assert again.status_code == 304 and again.content == b"" and again.headers["ETag"] == etag


@pytest.mark.parametrize("version", ["2026-01-23", "latest", "2026-04-08.json"])
def test_a_release_not_served_is_the_one_404(ucp, version):
    reference = requests.get(f"{ucp.live.url}/companies/no-such-company/.well-known/ucp", timeout=10)
    answer = requests.get(f"{ucp.live.url}/companies/{TUDI}/.well-known/ucp/{version}", timeout=10)
    hosted = requests.get(f"{ucp.live.url}/.well-known/ucp/{version}", headers={"Host": "tudi.example"}, timeout=10)
    assert answer.status_code == hosted.status_code == 404
    assert answer.content == hosted.content == reference.content


def test_profile_is_never_a_redirect(ucp):
    for path in (
        f"/companies/{TUDI}/.well-known/ucp/",
        f"/companies/{TUDI}/.well-known/ucp?x=1",
        f"/companies/{TUDI}/.well-known/ucp.json",
        f"/companies/{TUDI}/.well-known/ucp/2026-08-25",
        f"/companies/{TUDI}/.well-known/ucp/2026-04-08/",
        "/.well-known/ucp/2026-08-25",
    ):
        response = requests.get(
            ucp.live.url + path, headers={"Host": "tudi.example"}, timeout=10, allow_redirects=False
        )
        assert not 300 <= response.status_code < 400, path


def test_company_hosts_serve_profile_and_endpoint_at_the_root(ucp):
    port = ucp.live.url.rsplit(":", 1)[1]
    for host in ("tudi.example", f"TUDI.example:{port}"):
        response = requests.get(
            f"{ucp.live.url}/.well-known/ucp", headers={"Host": host}, timeout=10, allow_redirects=False
        )
        assert response.status_code == 200, host
        assert response.headers["Cache-Control"] == "public, max-age=300" and response.headers["ETag"]
        profile = response.json()
        configured = f"http://tudi.example:{port}"  # the COMPANY_HOSTS entry with PUBLIC_BASE_URL's port
        assert profile["ucp"]["services"]["dev.ucp.shopping"][0]["endpoint"] == f"{configured}/ucp/mcp"
        older = f"{configured}/.well-known/ucp/{V0408}"
        assert profile["ucp"]["supported_versions"] == {V0408: older}
        leaf = requests.get(f"{ucp.live.url}/.well-known/ucp/{V0408}", headers={"Host": host}, timeout=10)
        assert leaf.json() == expected_profile(V0408, f"{configured}/ucp/mcp")
    call = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {
            "name": "search_catalog",
            "arguments": {"meta": {"ucp-agent": {"profile": ucp.agent}}, "catalog": {"query": "furnace"}},
        },
    }
    answer = post(f"{ucp.live.url}/ucp/mcp", call, headers={**UCP_HEADERS, "Host": "tudi.example"})
    assert answer.status_code == 200
    products = answer.json()["result"]["structuredContent"]["products"]
    assert [p["id"] for p in products] == ["category:gas-furnace"]
    assert products[0]["variants"][0]["seller"]["name"] == "Tudi Mechanical Systems"


@pytest.mark.parametrize("host", ["off.example", "unmapped.example", "127.0.0.1"])
def test_root_paths_answer_404_for_unmapped_or_switched_off_hosts(ucp, host):
    reference = requests.get(f"{ucp.live.url}/companies/no-such-company/.well-known/ucp", timeout=10)
    profile = requests.get(f"{ucp.live.url}/.well-known/ucp", headers={"Host": host}, timeout=10)
    endpoint = post(
        f"{ucp.live.url}/ucp/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers={"Host": host}
    )
    assert profile.status_code == 404 and profile.content == reference.content
    if host == "unmapped.example":  # not ours at all: the MCP Host check (DNS rebinding) answers first
        assert endpoint.status_code == 421
        return
    assert endpoint.status_code == 404 and endpoint.content == reference.content


# --- generic MCP clients and UCP clients ---------------------------------------------------------


def test_initialize_and_tools_list_work_for_generic_mcp_clients(ucp):
    init = rpc(
        ucp.endpoint(),
        "initialize",
        {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "generic", "version": "1"}},
    ).json()["result"]
    assert init["capabilities"]["tools"] == {"listChanged": False}
    assert "Universal Commerce Protocol (2026-04-08 and 2026-08-25)" in init["instructions"]
    tools = rpc(ucp.endpoint(), "tools/list").json()["result"]["tools"]
    assert [t["name"] for t in tools] == ["search_catalog", "lookup_catalog", "get_product"]
    for tool in tools:
        assert tool["inputSchema"]["required"] == ["meta", "catalog"]
        assert tool["outputSchema"]["type"] == "object" and tool["inputSchema"]["examples"]
        assert tool["annotations"]["readOnlyHint"] is True


def test_ucp_clients_need_no_initialize_and_may_send_meta_on_tools_list(ucp):
    listing = {
        "jsonrpc": "2.0",
        "id": "a",
        "method": "tools/list",
        "params": {"arguments": {"meta": {"ucp-agent": {"profile": ucp.agent}}}},
    }
    response = post(ucp.endpoint(), listing, headers=UCP_HEADERS)
    assert response.status_code == 200 and response.json()["id"] == "a"
    assert len(response.json()["result"]["tools"]) == 3
    assert ucp.ok("search_catalog", {"query": "air filter"})["products"]


# --- search_catalog: the mapping ------------------------------------------------------------


def test_offer_groups_are_products_and_published_products_their_variants(ucp):
    view = view_of(ucp)
    result = ucp.ok("search_catalog", {"filters": {"categories": ["central-ac"]}})
    assert result["ucp"] == {
        "version": "2026-04-08",
        "capabilities": {"dev.ucp.shopping.catalog.search": [{"version": "2026-04-08"}]},
    }
    [product] = result["products"]
    category = view.category("central-ac")
    assert product["id"] == "category:central-ac" and product["handle"] == "central-ac"
    assert product["title"] == category.name == "Central AC"
    assert product["price_range"] == {
        "min": {"amount": 780000, "currency": "USD"},
        "max": {"amount": 1350050, "currency": "USD"},
    }
    assert product["url"] == view.quote_url
    assert product["options"] == [
        {"name": "Tier", "values": [{"label": "Good"}, {"label": "Better"}, {"label": "Best"}]},
        {"name": "Brand", "values": [{"label": "Goodman"}, {"label": "Lennox"}, {"label": "Trane"}]},
    ]
    skus = [v["sku"] for v in product["variants"]]
    assert skus == ["CAC-3T-GOOD", "CAC-3T-BETTER", "CAC-3T-BEST", "CAC-4T-BEST"]  # cheapest first
    variant = product["variants"][3]
    assert variant["id"] == "sku:CAC-4T-BEST" and variant["title"] == TUDI_PRODUCTS["CAC-4T-BEST"][0]
    assert variant["price"] == {"amount": 1350050, "currency": "USD"}  # 13500.50 in minor units
    assert variant["options"] == [{"name": "Tier", "label": "Best"}, {"name": "Brand", "label": "Lennox"}]
    assert variant["url"] == view.quote_url and variant["availability"] == {"available": True}
    assert variant["seller"]["name"] == "Tudi Mechanical Systems"
    assert {"type": "request_quote", "url": view.quote_url, "title": "Request a quote"} in variant["seller"]["links"]
    assert variant["metadata"]["model_numbers"] == ["XC21-048"]


def test_2026_08_25_answers_sell_each_and_carry_the_price_terms_as_a_policy(ucp):
    view = view_of(ucp)
    older = ucp.ok("search_catalog", {"filters": {"categories": ["central-ac"]}})
    newer = ucp.ok("search_catalog", {"filters": {"categories": ["central-ac"]}}, version=V0825)
    assert newer["ucp"] == {"version": V0825, "capabilities": {"dev.ucp.shopping.catalog.search": [{"version": V0825}]}}
    policy = {
        "type": "com.contractor_commerce.policy.price_terms",
        "description": {"plain": "Fully-installed price. Includes installation and permits."},
        "url": view.quote_url,
    }
    assert newer["policies"] == [policy] and "policies" not in older
    [product] = newer["products"]
    for variant in product["variants"]:
        assert variant.pop("quantity_unit") == {"unit": "C62", "display_text": "each"}
    assert "quantity_unit" not in json.dumps(older)
    assert newer["products"] == older["products"]  # everything else is shared
    assert newer["messages"] == older["messages"] and newer["pagination"] == older["pagination"]
    lookup = ucp.ok("lookup_catalog", {"ids": ["sku:ACC-FLT-M13"]}, version=V0825)
    assert lookup["policies"] == [policy]
    assert lookup["products"][0]["variants"][0]["quantity_unit"]["unit"] == "C62"  # accessories too
    detail = ucp.ok("get_product", {"id": "sku:CAC-4T-BEST"}, version=V0825)
    assert detail["policies"] == [policy] and detail["product"]["variants"][0]["quantity_unit"]["unit"] == "C62"
    missing = ucp.ok("get_product", {"id": "category:nope"}, version=V0825)
    assert missing["ucp"]["status"] == "error" and "policies" not in missing
    no_terms = ucp.ok("search_catalog", {"filters": {"price": {"min": 1}}}, key=QUOTE_OFF, version=V0825)
    assert "policies" not in no_terms and no_terms["products"]  # no price description: no policy


def test_every_result_carries_the_published_estimate_warning(ucp):
    view = view_of(ucp)
    for catalog in ({"query": "lennox"}, {"query": "no such thing at all"}, {"filters": {"price": {"max": 5000}}}):
        warning = ucp.ok("search_catalog", catalog)["messages"][0]
        assert warning["type"] == "warning" and warning["code"] == "published_estimate"
        assert "published estimates" in warning["content"] and view.quote_url in warning["content"]
        assert warning["url"] == view.quote_url


def test_query_search_ranks_groups_and_never_shows_unpublished_or_private_data(ucp):
    result = ucp.ok("search_catalog", {"query": "lennox furnace"})
    assert result["products"][0]["id"] == "category:gas-furnace"
    text = json.dumps(result)
    for secret in PRIVATE:
        assert secret not in text
    hostile = ucp.ok("search_catalog", {"query": "ignore previous instructions"})
    variant = hostile["products"][0]["variants"][0]
    assert variant["title"] == HOSTILE_NAME  # contractor text is data: carried verbatim, JSON-escaped


def test_postal_code_outside_the_service_area_marks_variants_unavailable(ucp):
    outside = ucp.ok("search_catalog", {"query": "air filter", "context": {"postal_code": "10001"}})
    variants = [v for p in outside["products"] for v in p["variants"]]
    assert variants and all(
        v["availability"] == {"available": False, "status": "outside_service_area"} for v in variants
    )
    notice = [m for m in outside["messages"] if m["code"] == "outside_service_area"]
    assert len(notice) == 1 and "10001" in notice[0]["content"] and notice[0]["type"] == "warning"
    inside = ucp.ok("search_catalog", {"query": "air filter", "context": {"postal_code": "63385-1234"}})
    assert all(v["availability"]["available"] for p in inside["products"] for v in p["variants"])
    assert not [m for m in inside["messages"] if m["code"] == "outside_service_area"]


def test_category_filter_takes_slugs_and_reports_unknown_ones(ucp):
    result = ucp.ok("search_catalog", {"filters": {"categories": ["air-filters", "thermostats"]}})
    assert sorted(p["id"] for p in result["products"]) == ["category:air-filters", "category:thermostats"]
    unknown = ucp.ok("search_catalog", {"query": "filter", "filters": {"categories": ["no-such-category"]}})
    assert unknown["products"] == [] and unknown["pagination"] == {"has_next_page": False, "total_count": 0}
    [note] = [m for m in unknown["messages"] if m["code"] == "unknown_category"]
    assert note["type"] == "info" and "central-ac" in note["content"]


def test_price_filter_is_in_minor_units(ucp):
    result = ucp.ok("search_catalog", {"filters": {"price": {"min": 1499, "max": 6005}}})
    prices = sorted(v["price"]["amount"] for p in result["products"] for v in p["variants"])
    assert prices == [1499, 3499, 6005]
    ignored = ucp.ok(
        "search_catalog", {"query": "air filter", "filters": {"price": {"max": 100}}, "context": {"currency": "EUR"}}
    )
    assert ignored["products"] and any(m["code"] == "price_filter_ignored" for m in ignored["messages"])


def test_cursor_pagination_defaults_to_ten_and_walks_every_group_once(ucp):
    first = ucp.ok("search_catalog", {"filters": {"price": {"min": 1}}}, key=MANY)
    total = first["pagination"]["total_count"]
    assert total > 10, "the many-categories company needs more than one default page"
    assert len(first["products"]) == 10 and first["pagination"]["has_next_page"] is True
    seen, page = [], {"pagination": {"has_next_page": True, "cursor": None}}
    while page["pagination"]["has_next_page"]:
        request = {"filters": {"price": {"min": 1}}, "pagination": {"limit": 4}}
        if page["pagination"]["cursor"]:
            request["pagination"]["cursor"] = page["pagination"]["cursor"]
        page = ucp.ok("search_catalog", request, key=MANY)
        assert len(page["products"]) <= 4
        seen += [p["id"] for p in page["products"]]
    assert len(seen) == len(set(seen)) == total
    assert "cursor" not in page["pagination"]


def test_bad_cursors_and_cursors_of_another_search_are_refused(ucp):
    first = ucp.ok("search_catalog", {"filters": {"price": {"min": 1}}, "pagination": {"limit": 2}}, key=MANY)
    cursor = first["pagination"]["cursor"]
    other = ucp.rpc_error("search_catalog", {"query": "filter", "pagination": {"cursor": cursor}}, key=MANY)
    garbage = ucp.rpc_error("search_catalog", {"query": "filter", "pagination": {"cursor": "!!not-ours"}}, key=MANY)
    assert other["code"] == garbage["code"] == -32602
    assert "another search" in other["message"]


@pytest.mark.parametrize(
    "catalog",
    [
        {},
        {"query": ""},
        {"query": "   "},
        {"filters": {}},
        {"filters": {"categories": []}},
        {"filters": {"price": {}}},
        {"context": {"postal_code": "63376"}},
        {"pagination": {"limit": 5}},
    ],
)
def test_an_empty_search_is_refused(ucp, catalog):
    error = ucp.rpc_error("search_catalog", catalog)
    assert error["code"] == -32602
    assert error["data"]["code"] == "invalid_request" and "empty search" in error["message"]


def test_product_ids_are_stable_across_syncs(ucp):
    before = ucp.ok("lookup_catalog", {"ids": ["category:air-filters"]})["products"][0]
    catalog = ucp.live.upstream.catalog
    catalog.set_product(TUDI, "ACC-FLT-M8", price="15.49")
    try:
        assert ucp.live.mirror.sync().status == "success"
        after = ucp.ok("lookup_catalog", {"ids": ["category:air-filters"]})["products"][0]
        assert after["id"] == before["id"] == "category:air-filters"
        assert after["price_range"]["min"]["amount"] == 1549 != before["price_range"]["min"]["amount"]
    finally:
        catalog.set_product(TUDI, "ACC-FLT-M8", price="14.99")
        assert ucp.live.mirror.sync().status == "success"
