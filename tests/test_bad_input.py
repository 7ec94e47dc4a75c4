"""Bad input everywhere: nothing answers 500; every refusal is a clear 4xx with a JSON error.

hypothesis throws keys (unicode, very long, traversal, percent-encoding,
NUL), query parameters, headers (huge, repeated If-None-Match) and request
bodies at every public endpoint, on Postgres (which refuses NUL characters
in text, a classic source of 500s). HTML routes may answer
their HTML 404; everything else that refuses answers JSON.
"""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from demo.server import start_in_thread
from tests.mcp_helpers import module_database
from tests.ops_helpers import KEYED_SURFACES, MCP_HEADERS
from tests.surface_helpers import add_company, sync

PUBLIC = "bad-input-public"
EXAMPLES = settings(
    max_examples=60,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
HOSTILE_KEYS = [
    "..",
    "../..",
    "../../etc/passwd",
    "%2e%2e%2f",
    "a%2Fb",
    "%00",
    "\x00",
    "a\x00b",
    "%ff%fe",
    "%",
    "%zz",
    "<script>alert(1)</script>",
    "' OR 1=1 --",
    "é" * 200,
    "k" * 129,
    "k" * 20000,
    "\u202e\u0000\ud7ff",
    "🔥" * 50,
    " ",
    "\t\n",
    "CON",
    "key.jsonld",
    "key/pricing.json",
]
JSON_ENDPOINTS = [
    "/v1/businesses",
    f"/companies/{PUBLIC}/pricing.json",
    f"/companies/{PUBLIC}.jsonld",
    f"/companies/{PUBLIC}/webmcp.json",
    f"/companies/{PUBLIC}/.well-known/ucp",
    "/.well-known/mcp.json",
    "/readyz",
    "/healthz",
    "/openapi.json",
]
OTHER_ENDPOINTS = [
    f"/companies/{PUBLIC}/pricing",
    f"/companies/{PUBLIC}/quote",
    f"/companies/{PUBLIC}/webmcp-demo",
    "/llms.txt",
    "/webmcp.js",
    "/metrics",
]
MCP_ENDPOINTS = [f"/companies/{PUBLIC}/mcp", "/mcp", f"/companies/{PUBLIC}/ucp/mcp"]
LATIN1 = st.characters(min_codepoint=32, max_codepoint=255, exclude_characters="\x7f")


@pytest.fixture(scope="module")
def client(request):
    """One synced app for the whole module (hypothesis runs many examples)."""
    from wsgi import create_app

    database_url = module_database(request)
    with start_in_thread(companies=3, products=8, seed=11) as upstream:
        add_company(upstream, plugin_key=PUBLIC)
        app = create_app(
            {
                "DATABASE_URL": database_url,
                "UPSTREAM_URL": upstream.url,
                "UPSTREAM_TOKEN": "demo-token",
                "PUBLIC_BASE_URL": "http://127.0.0.1:8000",
                "RATE_LIMIT_PER_COMPANY": "1000000/hour",
                "RATE_LIMIT_PER_CLIENT": "1000000/minute",
            }
        )
        app.config["TESTING"] = True
        sync(app.extensions["mirror"])
        yield app.test_client()
        app.extensions["mirror"].dispose()


def assert_clean(response, *, html_ok: bool = False) -> None:
    """Below 500; a refusal is JSON with an error, or (when allowed) the HTML 404."""
    assert response.status_code < 500, response.get_data()[:500]
    assert response.headers.get("X-Content-Type-Options") == "nosniff"
    body = response.get_data(as_text=True)
    assert "Traceback" not in body
    if response.status_code < 400:
        return
    if html_ok and response.status_code == 404 and response.mimetype == "text/html":
        return
    assert response.mimetype == "application/json", (response.status_code, response.mimetype)
    payload = json.loads(body)
    assert payload.get("error"), payload


keys = st.one_of(
    st.sampled_from(HOSTILE_KEYS),
    st.text(min_size=1, max_size=300),
    st.text(min_size=1000, max_size=4000),
    st.binary(min_size=1, max_size=40).map(lambda raw: raw.decode("latin-1")),
)


@EXAMPLES
@given(key=keys, encode=st.booleans(), surface=st.sampled_from(KEYED_SURFACES))
def test_any_key_on_any_surface_is_a_clean_404(client, key, encode, surface):
    # Encoded: the key arrives intact. Raw: '%' sequences, '/', '?' and '#' reach the router as written.
    path_key = quote(key, safe="") if encode else quote(key, safe="/%?#")
    response = surface.call(client, path_key)
    assert_clean(response, html_ok=True)
    assert response.status_code == 404 or (response.status_code == 200 and key == PUBLIC)


@EXAMPLES
@given(
    params=st.dictionaries(
        st.sampled_from(["page", "page_size", "changes_token", "source", "q", "page[]", ""]),
        st.one_of(
            st.text(max_size=200), st.integers().map(str), st.just("\x00"), st.text(min_size=5000, max_size=9000)
        ),
        max_size=4,
    ),
    path=st.sampled_from(JSON_ENDPOINTS + OTHER_ENDPOINTS),
)
def test_any_query_string_is_answered_cleanly(client, params, path):
    response = client.get(path, query_string=params)
    assert_clean(response, html_ok=True)
    if path == "/v1/businesses" and response.status_code == 400:
        assert response.get_json()["parameter"] in ("page", "page_size")


@EXAMPLES
@given(
    if_none_match=st.lists(st.text(alphabet=LATIN1, max_size=3000), min_size=1, max_size=30),
    others=st.dictionaries(
        st.sampled_from(
            [
                "Accept",
                "Accept-Encoding",
                "User-Agent",
                "Cookie",
                "Range",
                "X-Forwarded-For",
                "MCP-Protocol-Version",
                "Origin",
                "Content-Type",
            ]
        ),
        st.text(alphabet=LATIN1, max_size=2000),
        max_size=4,
    ),
    path=st.sampled_from(JSON_ENDPOINTS + OTHER_ENDPOINTS),
)
def test_huge_and_repeated_headers_are_answered_cleanly(client, if_none_match, others, path):
    headers = [("If-None-Match", value) for value in if_none_match] + list(others.items())
    assert_clean(client.get(path, headers=headers), html_ok=True)


def test_a_huge_if_none_match_is_ignored_not_matched(client):
    ours = client.get(f"/companies/{PUBLIC}/pricing.json").headers["ETag"]
    huge = ", ".join(['"x"'] * 5000 + [ours])
    assert client.get(f"/companies/{PUBLIC}/pricing.json", headers={"If-None-Match": huge}).status_code == 200
    repeated = [("If-None-Match", '"nope"')] * 100 + [("If-None-Match", ours)]
    assert client.get(f"/companies/{PUBLIC}/pricing.json", headers=repeated).status_code in (200, 304)


@EXAMPLES
@given(
    body=st.one_of(
        st.binary(max_size=3000),
        st.text(max_size=3000).map(str.encode),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=30),
            lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
            max_leaves=20,
        ).map(lambda v: json.dumps(v).encode()),
    ),
    content_type=st.sampled_from(
        [
            "application/json",
            "application/json; charset=latin-1",
            "text/plain",
            "application/x-www-form-urlencoded",
            "",
            "multipart/form-data; boundary=x",
        ]
    ),
    path=st.sampled_from(MCP_ENDPOINTS),
)
def test_any_body_on_an_mcp_endpoint_is_answered_cleanly(client, body, content_type, path):
    headers = {"Accept": "application/json"} | ({"Content-Type": content_type} if content_type else {})
    response = client.post(path, data=body, headers=headers)
    assert response.status_code < 500
    if response.status_code >= 400:
        assert response.mimetype == "application/json"
        assert "error" in response.get_json()


@pytest.mark.parametrize("size", [16 * 1024 + 1, 2 * 1024 * 1024])
@pytest.mark.parametrize("path", MCP_ENDPOINTS)
def test_oversized_bodies_are_413(client, path, size):
    response = client.post(path, data=b"{" + b" " * size + b"}", headers=MCP_HEADERS)
    assert response.status_code == 413
    assert "error" in response.get_json()


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
@pytest.mark.parametrize("path", JSON_ENDPOINTS + OTHER_ENDPOINTS)
def test_other_methods_on_read_only_routes_are_a_json_405(client, path, method):
    response = client.open(path, method=method, data=b"x" * 100)
    assert response.status_code == 405
    assert response.mimetype == "application/json" and response.get_json()["error"]
    assert "GET" in response.headers["Allow"]


@pytest.mark.parametrize("host", ["", "evil.example", "127.0.0.1:8000@evil", "[::1", "a" * 5000, "é.example"])
@pytest.mark.parametrize("path", MCP_ENDPOINTS)
def test_a_foreign_or_broken_host_is_refused_cleanly(client, path, host):
    response = client.post(
        path, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers={**MCP_HEADERS, "Host": host}
    )
    assert 400 <= response.status_code < 500 and "error" in response.get_json()
