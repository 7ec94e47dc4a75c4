"""Answers in a sentence (issue 24): NLWeb /ask and the A2A agents, over real HTTP.

The demo's example companies (demo/examples.py, no seeded ones, so every
business near 63376 is known) are synced and served on a real port. Each
answer form is asked as a homeowner would, of `POST /companies/{key}/ask`
(requests built and answers validated with nlweb-core's own models:
AskRequest, AnswerResponseChatGPT, AnswerResponseConvSearch, FailureResponse)
and of the A2A agent (the official a2a-sdk client), and every number in the
sentence is checked against the catalog as the mirror holds it, never
against a number written here. The items are the JSON-LD graph's own nodes.
"""

from __future__ import annotations

import json

import pytest
import requests
from a2a.types.a2a_pb2 import Part
from nlweb_core.protocol.models import (
    AnswerResponseChatGPT,
    AnswerResponseConvSearch,
    AskRequest,
    FailureResponse,
    Prefer,
    Query,
)

from demo.examples import CHURNED_KEY, NO_FUNNEL_KEY, STOREFRONT_ONLY_KEY, TUDI_KEY
from mirror.read.catalog import category_products
from mirror.values.money import format_cents as money
from tests.a2a_server.test_a2a import data_part, send, text_of
from tests.mcp_helpers import call_tool, module_database, serve_app

HP, ACGF, FILTERS, CENTRAL_AC = "hp-air-handler", "ac-gas-furnace", "air-filters", "central-ac"
A2A_OFF = "ask-a2a-off-test"
PRICE_NOTE = "Fully-installed price. Includes installation and permits."  # Tudi's, as demo/examples.py publishes it


@pytest.fixture(scope="module")
def demo(request):
    """The example companies synced (and one with its a2a switch off); the app on a real port."""
    from demo.catalog import DemoCatalog
    from demo.server import start_in_thread

    upstream = start_in_thread(DemoCatalog(companies=0, products=8, seed=7, examples=True))
    upstream.catalog.add_company(
        products=4,
        plugin_key=A2A_OFF,
        name="Variant a2a-off",
        status="active",
        storefront_live=True,
        settings={"currency": "USD", "channels": {"a2a": False}},
    )
    database = module_database(request)
    try:
        with serve_app(database, upstream.url) as live:
            assert live.mirror.sync().status == "success"
            yield live
    finally:
        upstream.stop()


def products(demo, key: str, slug: str):
    """A category's public products as the mirror holds them."""
    with demo.mirror.Session() as session:
        return category_products(session, key, slug)


def cheapest(rows, tier: str, **specs) -> int:
    """The lowest price (cents) of a tier among rows whose specs hold `specs`."""
    return min(p.price_cents for p in rows if p.tier == tier and all(p.specs.get(k) == v for k, v in specs.items()))


def ask(demo, text: str, key: str | None = TUDI_KEY, **prefer) -> requests.Response:
    """POST an AskRequest built with nlweb-core's own models."""
    body = AskRequest(query=Query(text=text), prefer=Prefer(**prefer) if prefer else None)
    url = f"{demo.url}/companies/{key}/ask" if key else f"{demo.url}/ask"
    return requests.post(url, json=body.model_dump(mode="json", exclude_none=True, by_alias=True), timeout=30)


def answer(demo, text: str, key: str | None = TUDI_KEY) -> AnswerResponseChatGPT:
    """The summarize-mode answer, validated by nlweb-core's ChatGPT-app model."""
    response = ask(demo, text, key, mode="summarize")
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"] == "application/json"
    parsed = AnswerResponseChatGPT.model_validate(response.json())
    assert parsed.field_meta.response_type == "Answer" and parsed.field_meta.version == "0.54"
    return parsed


def sentence(parsed: AnswerResponseChatGPT) -> str:
    (text,) = parsed.content
    return text.Text


def items(parsed) -> list[dict]:
    return [item.model_dump(by_alias=True, exclude_none=True) for item in parsed.structuredData]


def graph(demo, key: str = TUDI_KEY) -> dict:
    """The company's JSON-LD nodes by @id."""
    return {
        node["@id"]: node for node in requests.get(f"{demo.url}/companies/{key}.jsonld", timeout=10).json()["@graph"]
    }


def quote_url(demo, key: str = TUDI_KEY) -> str:
    return f"{demo.url}/companies/{key}/quote"


def test_a_price_question_answers_with_each_tiers_price_of_that_size(demo):
    rows = products(demo, TUDI_KEY, HP)
    parsed = answer(demo, "How much is a new 3 ton heat pump?")
    tiers = ", ".join(
        f"{money(cheapest(rows, tier, tonnage=3), 'USD')} ({tier.title()})" for tier in ("good", "better", "best")
    )
    text = sentence(parsed)
    assert text.startswith(
        f"Tudi Mechanical Systems' installed price for a 3-ton heat pump (“HP & Air Handler”) starts at {tiers}."
    )
    assert f"price note: “{PRICE_NOTE}”" in text and text.endswith(f"Quote: {quote_url(demo)}")
    # The 3-ton prices, not the category's cheapest (the 2-ton ones).
    assert money(cheapest(rows, "good"), "USD") not in text
    nodes = graph(demo)
    found = items(parsed)
    assert [item["@id"] for item in found] == [
        next(i for i in nodes if i.endswith("#category-hp-air-handler")),
        next(i for i in nodes if i.endswith("#business")),
    ]
    for item in found:  # the JSON-LD graph's own nodes, with their @context and where they come from
        assert {k: v for k, v in item.items() if k not in ("@context", "grounding")} == nodes[item["@id"]]
        assert item["@context"] == "https://schema.org"
        assert item["grounding"] == {"source_urls": [f"{demo.url}/companies/{TUDI_KEY}.jsonld"]}


def test_a_size_not_offered_is_said_absent_and_the_largest_answered_under_its_own_label(demo):
    """Issue 34's row: Tudi's largest A/C is 4 ton. Never the 3-ton prices under a 5-ton label."""
    rows = products(demo, TUDI_KEY, ACGF)
    tiers = ", ".join(
        f"{money(cheapest(rows, tier, tonnage=4), 'USD')} ({tier.title()})" for tier in ("good", "better", "best")
    )
    expected = (
        "Tudi Mechanical Systems lists no 5-ton air conditioner; the largest is 4-ton. Tudi Mechanical Systems' "
        f"installed price for a 4-ton air conditioner (“A/C & Gas Furnace”) starts at {tiers}."
    )
    text = sentence(answer(demo, "what does a 5 ton AC cost?"))
    assert text.startswith(expected) and "5-ton air conditioner (" not in text, text
    assert money(cheapest(rows, "good", tonnage=3), "USD") not in text
    # The A2A text answer says the same.
    (reply,) = send(f"{demo.url}/companies/{TUDI_KEY}", Part(text="what does a 5 ton AC cost?"))
    assert text_of(reply).startswith(expected)
    # Across the directory: no business near 63376 lists a 5-ton; the 4-ton range, under the 4-ton label.
    four_tons = [p.price_cents for p in rows if p.specs.get("tonnage") == 4]
    near = sentence(answer(demo, "how much is a 5 ton AC near 63376?", key=None))
    assert near.startswith(
        "No business serving 63376 lists a 5-ton air conditioner; the largest is 4-ton. Published installed prices "
        f"for a 4-ton air conditioner near 63376: {money(min(four_tons), 'USD')} to {money(max(four_tons), 'USD')} "
        "across 1 business."
    ), near
    (reply,) = send(demo.url, Part(text="how much is a 5 ton AC near 63376?"))
    assert text_of(reply).startswith(near)


def test_coverage_questions(demo):
    served = sentence(answer(demo, "do you serve 63376?"))
    assert served == f"Yes: Tudi Mechanical Systems serves 63376. Quote: {quote_url(demo)}"
    parsed = answer(demo, "Do you work in 90210?")
    assert sentence(parsed).startswith(
        "No: Tudi Mechanical Systems does not list 90210 in its service area; it serves 63301,"
    )
    (business,) = items(parsed)
    assert business["@type"] == "HVACBusiness" and "90210" not in business["areaServed"]
    near = sentence(answer(demo, "how much is a heat pump near 63376?"))
    assert "Tudi Mechanical Systems serves 63376." in near and "starts at" in near


def test_a_comparison_names_each_tiers_price_and_product_and_the_difference(demo):
    rows = products(demo, TUDI_KEY, ACGF)
    good = min((p for p in rows if p.tier == "good"), key=lambda p: p.price_cents)
    best = min((p for p in rows if p.tier == "best"), key=lambda p: p.price_cents)
    text = sentence(answer(demo, "good vs best furnace"))
    assert text.startswith(
        f"Tudi Mechanical Systems' “A/C & Gas Furnace” (air conditioner and gas furnace) tiers: Good from {money(good.price_cents, 'USD')} (“{good.name}”); "
        f"Best from {money(best.price_cents, 'USD')} (“{best.name}”). "
        f"Best costs {money(best.price_cents - good.price_cents, 'USD')} more than Good."
    )
    assert "Better" not in text.split(". ")[0]  # only the tiers asked
    accessory = sentence(answer(demo, "compare air filters"))
    assert "has no Good/Better/Best tiers" in accessory


def test_what_is_included_quotes_the_contractors_own_words(demo):
    assert sentence(answer(demo, "what is included?")).startswith(
        f"Tudi Mechanical Systems says its prices include: “{PRICE_NOTE}”"
    )
    text = sentence(answer(demo, "what's included with a heat pump?"))
    assert "Its “HP & Air Handler” listing" in text and "permits and start-up testing" in text


def test_no_match_says_what_the_contractor_does_carry(demo):
    parsed = answer(demo, "roofing?")
    published = requests.get(f"{demo.url}/companies/{TUDI_KEY}/pricing.json", timeout=10).json()["categories"]
    categories = [c["name"] for c in published]
    # Contractor-written names, quoted, each with the plain name pricing.json publishes for it (the one glossary).
    carried = ", ".join(
        f"“{c['name']}”" + (f" ({c['plain_name'][:1].lower()}{c['plain_name'][1:]})" if c["plain_name"] else "")
        for c in published
    )
    assert "(heat pump and air handler)" in carried
    assert (
        sentence(parsed) == f"Tudi Mechanical Systems publishes no roofing prices. It publishes prices for: {carried}."
    )
    assert [item["name"] for item in items(parsed)] == [*categories, "Tudi Mechanical Systems"]


def test_the_answer_says_what_it_did_not_understand(demo):
    text = sentence(answer(demo, "xyzzy heat pump"))
    assert "starts at" in text and "Not understood: “xyzzy”." in text
    # A brand no product of the kind asked is: said first, the kind's prices under their own label.
    bosch = sentence(answer(demo, "Bosch heat pump"))
    assert bosch.startswith("Tudi Mechanical Systems lists no “bosch” heat pump. ") and "(“HP & Air Handler”)" in bosch


def test_contractor_text_is_quoted_data(demo):
    # A price note reads as the contractor's words, never as part of the answer's own sentence.
    text = sentence(answer(demo, "best air conditioner"))
    assert f"Tudi Mechanical Systems' price note: “{PRICE_NOTE}”" in text
    assert "(Best)" in text and "(Good)" not in text


def test_list_mode_and_conv_search(demo):
    listed = AnswerResponseChatGPT.model_validate(ask(demo, "heat pump").json())
    assert listed.content == [] and items(listed)[0]["name"] == "HP & Air Handler"
    response = ask(demo, "heat pump", response_format="conv_search", mode="list,summarize")
    parsed = AnswerResponseConvSearch.model_validate(response.json())
    assert parsed.field_meta.response_format == "conv_search"
    *found, summary = [r.model_dump(by_alias=True, exclude_none=True) for r in parsed.results]
    assert summary == {"@type": "Summary", "text": sentence(answer(demo, "heat pump"))}
    assert [r["name"] for r in found] == ["HP & Air Handler", "Tudi Mechanical Systems"]


def sse_parts(response: requests.Response) -> list[dict]:
    """The JSON objects of a server-sent event stream's data lines."""
    parts = []
    for line in response.iter_lines(decode_unicode=True):
        if line.startswith("data: "):
            parts.append(json.loads(line.removeprefix("data: ")))
        else:
            assert line == "", line  # nothing but data lines and the blank lines between events
    return parts


def merged(parts: list[dict]) -> dict:
    whole: dict = {}
    for part in parts:
        for key, value in part.items():
            whole[key] = whole.get(key, []) + value if isinstance(value, list) else value
    return whole


@pytest.mark.parametrize("response_format", ["chatgpt_app", "conv_search"])
def test_streaming_sends_server_sent_events_that_merge_into_the_answer(demo, response_format):
    body = AskRequest(
        query=Query(text="How much is a new 3 ton heat pump?"),
        prefer=Prefer(streaming=True, response_format=response_format, mode="summarize"),
    )
    payload = body.model_dump(mode="json", exclude_none=True, by_alias=True)
    url = f"{demo.url}/companies/{TUDI_KEY}/ask"
    with requests.post(url, json=payload, stream=True, timeout=30) as response:
        assert response.status_code == 200
        assert response.headers["Content-Type"].startswith("text/event-stream")
        assert response.headers["Cache-Control"] == "no-store"
        parts = sse_parts(response)
    assert list(parts[0]) == ["_meta"] and parts[0]["_meta"]["version"] == "0.54"  # the meta block first
    model = AnswerResponseChatGPT if response_format == "chatgpt_app" else AnswerResponseConvSearch
    model.model_validate(merged(parts))
    whole = requests.post(url, json={**payload, "prefer": {**payload["prefer"], "streaming": False}}, timeout=30)
    assert merged(parts) == whole.json()
    # Without prefer.streaming, an Accept header preferring event-stream asks for it; accepting both does not.
    plain = {"query": {"text": "heat pump"}}
    events = requests.post(url, json=plain, headers={"Accept": "text/event-stream"}, timeout=30)
    assert events.headers["Content-Type"].startswith("text/event-stream")
    both = requests.post(url, json=plain, headers={"Accept": "application/json, text/event-stream"}, timeout=30)
    assert both.headers["Content-Type"] == "application/json"


def test_the_a2a_text_answer_is_the_same_sentence_and_keeps_the_data_part(demo):
    base = f"{demo.url}/companies/{TUDI_KEY}"
    for question, skill in (
        ("How much is a new 3 ton heat pump?", "search_catalog"),
        ("do you serve 63376?", "check_service_area"),
        ("good vs best furnace", "search_catalog"),
        ("what is included?", "search_catalog"),
        ("roofing?", "search_catalog"),
    ):
        (reply,) = send(base, Part(text=question))
        assert reply["message"]["metadata"]["skill"] == skill
        assert text_of(reply).startswith(sentence(answer(demo, question)) + " ")
        assert "never instructions" in text_of(reply)
    (reply,) = send(base, Part(text="How much is a new 3 ton heat pump?"))
    expected = call_tool(f"{base}/mcp", "search_catalog", {"query": "How much is a new 3 ton heat pump?"})
    assert data_part(reply) == expected["structuredContent"]


def test_the_directory_answers_with_each_businesss_range_near_a_zip(demo):
    # Every business of the feed serving 63376 that sells an air conditioner: Prairie (Central AC) and
    # Tudi (A/C & Gas Furnace); Liberty serves 63366 only and is churned; Gateway is a plumber.
    ranges = {}
    for key, slug in ((NO_FUNNEL_KEY, CENTRAL_AC), (TUDI_KEY, ACGF)):
        prices = [p.price_cents for p in products(demo, key, slug)]
        ranges[key] = (min(prices), max(prices))
    low = min(r[0] for r in ranges.values())
    high = max(r[1] for r in ranges.values())
    parsed = answer(demo, "how much does an air conditioner cost near 63376?", key=None)
    text = sentence(parsed)
    order = sorted(ranges, key=lambda k: ranges[k][0])
    names = {NO_FUNNEL_KEY: "Prairie Heating & Cooling", TUDI_KEY: "Tudi Mechanical Systems"}
    each = "; ".join(
        f"{names[k]}: {money(ranges[k][0], 'USD')} to {money(ranges[k][1], 'USD')}, quote: {quote_url(demo, k)}"
        for k in order
    )
    assert text == (
        f"Published installed prices for an air conditioner near 63376: {money(low, 'USD')} to {money(high, 'USD')} "
        f"across 2 businesses. {each}"
    )
    assert CHURNED_KEY not in json.dumps(items(parsed)) and STOREFRONT_ONLY_KEY not in json.dumps(items(parsed))
    business_nodes = [i["name"] for i in items(parsed) if i["@type"] == "HVACBusiness"]
    assert business_nodes == [names[k] for k in order]
    # The directory agent answers the same sentence over A2A.
    (reply,) = send(demo.url, Part(text="how much does an air conditioner cost near 63376?"))
    assert text_of(reply).startswith(text) and reply["message"]["metadata"]["skill"] == "search_businesses"
    assert "Which ZIP code?" in sentence(answer(demo, "how much does a heat pump cost?", key=None))


def test_search_businesses_with_a_category_gives_the_range_across_businesses(demo):
    result = call_tool(f"{demo.url}/mcp", "search_businesses", {"postal_code": "63376", "category": "central-ac"})
    found = result["structuredContent"]
    ranges = [(r["price_range"]["price_low"], r["price_range"]["price_high"]) for r in found["results"]]
    assert ranges and all(r["quote_url"] for r in found["results"])
    spread = found["installed_price_range"]
    assert (spread["price_low"], spread["price_high"], spread["business_count"]) == (
        min(low for low, _ in ranges),
        max(high for _, high in ranges),
        len(ranges),
    )
    # "central-ac" names a kind: the businesses listing air conditioners under other names are found too, each
    # priced from its own air conditioners, and the range across them is said under the kind's label.
    kinds = {r["price_range"]["slug"]: r["price_range"]["kind"] for r in found["results"]}
    assert kinds.pop("central-ac") is None and set(kinds.values()) == {"air conditioner"}, found["results"]
    assert found["message"].startswith("Published installed prices for an air conditioner serving 63376:")
    assert (
        call_tool(f"{demo.url}/mcp", "search_businesses", {"postal_code": "63376"})["structuredContent"][
            "installed_price_range"
        ]
        is None
    )


BAD_REQUESTS = [
    ({"query": {}}, "query.text: required field is missing"),
    ({"query": {"text": "   "}}, "query.text"),
    ({"query": {"text": 5}}, "query.text"),
    ({"query": {"text": "x" * 501}}, "query.text"),
    ({"query": {"text": "heat pump\u0000"}}, "query.text: text contains a NUL"),
    ({"query": {"text": "heat pump"}, "prefer": {"mode": "poem"}}, "prefer.mode"),
    ({"query": {"text": "heat pump"}, "prefer": {"response_format": "html"}}, "prefer.response_format"),
    ({"query": {"text": "heat pump"}, "prefer": {"streaming": "yes"}}, "prefer.streaming"),
    ({"query": {"text": "heat pump"}, "meta": "x"}, "meta"),
    ([], "must be a JSON object"),
]


@pytest.mark.parametrize("body, needle", BAD_REQUESTS)
def test_bad_requests_are_a_failure_naming_the_field(demo, body, needle):
    for url in (f"{demo.url}/companies/{TUDI_KEY}/ask", f"{demo.url}/ask"):
        response = requests.post(url, json=body, timeout=10)
        assert response.status_code == 400, response.text
        failure = FailureResponse.model_validate(response.json())
        assert failure.field_meta.response_type == "Failure" and failure.error.code == "INVALID_REQUEST"
        assert needle in failure.error.message


def test_lone_surrogates_not_json_size_and_media_type(demo):
    url = f"{demo.url}/ask"
    surrogate = b'{"query": {"text": "heat pump \\ud800"}}'
    cases = [
        (surrogate, "application/json", 400, "query.text"),
        (b"{", "application/json", 400, "not valid UTF-8 JSON"),
        (b'{"query": {"text": NaN}}', "application/json", 400, "not valid UTF-8 JSON"),
        (b'{"query": {"text": "' + b"x" * 17000 + b'"}}', "application/json", 413, "16384 bytes"),
        (b'{"query": {"text": "heat pump"}}', "text/plain", 415, "Content-Type"),
    ]
    for raw, media, status, needle in cases:
        response = requests.post(url, data=raw, headers={"Content-Type": media}, timeout=10)
        assert response.status_code == status, (raw[:40], response.text)
        assert needle in FailureResponse.model_validate(response.json()).error.message


def test_closed_and_unknown_keys_get_the_one_404(demo):
    unknown = requests.post(f"{demo.url}/companies/nope/ask", json={"query": {"text": "x"}}, timeout=10)
    for key in (A2A_OFF, CHURNED_KEY):
        closed = requests.post(f"{demo.url}/companies/{key}/ask", json={"query": {"text": "heat pump"}}, timeout=10)
        assert (closed.status_code, closed.content) == (404, unknown.content) == (404, unknown.content)
    # The a2a switch closes the contractor's /ask, not the directory's answers about others.
    assert ask(demo, "heat pump near 63376", key=None).status_code == 200
