"""The OpenAPI 3.1 document at /openapi.json is true: every route is in it, everything in it is a route,
and schemathesis finds no 5xx and no answer that breaks the document on any operation.

schemathesis (4.x) runs in-process against the WSGI app, with a fixed seed
and a bounded number of examples per operation, positive and negative: a quarter of the
Hypothesis profile's count (tests/conftest.py: 10 under `make test`'s "suite", more under
`make fuzz`'s "fuzz", which runs this test too). The
mirror holds real companies, and the `key` parameter's examples are real
keys (public, closed and unknown), so the 200, 304 and 404 paths are all
exercised, not only 404s.
"""

from __future__ import annotations

import re

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.ops_helpers import UNKNOWN_KEY
from tests.surface_helpers import add_company, set_settings, sync

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
# Per operation and mode, from the loaded profile (every operation runs, so the profile's count is shared out):
# "suite" 40 -> 10, "fuzz" 2,500 -> 625.
EXAMPLES_PER_OPERATION = settings.default.max_examples // 4


def _documented(document: dict) -> set[tuple[str, str]]:
    return {(path, method.upper()) for path, item in document["paths"].items() for method in item}


def _routed(app) -> set[tuple[str, str]]:
    routed = set()
    for rule in app.url_map.iter_rules():
        path = re.sub(r"<(?:[^:>]+:)?([^>]+)>", r"{\1}", rule.rule)
        explicit_options = rule.endpoint.endswith("preflight")
        for method in rule.methods - {"HEAD"}:
            if method == "OPTIONS" and not explicit_options:
                continue  # Flask's automatic OPTIONS
            routed.add((path, method))
    return routed


def test_every_route_is_documented_and_everything_documented_is_a_route(app, client):
    document = client.get("/openapi.json").get_json()
    assert document["openapi"] == "3.1.0"
    assert _documented(document) == _routed(app)


def test_the_document_is_valid_openapi_3_1(app):
    schema = schemathesis.openapi.from_wsgi("/openapi.json", app)
    schema.validate()


def test_servers_and_urls_follow_public_base_url(make_app):
    document = make_app(PUBLIC_BASE_URL="https://prices.example").test_client().get("/openapi.json").get_json()
    assert document["servers"] == [{"url": "https://prices.example"}]


PUBLIC_KEY = "fuzz-public"


@pytest.fixture
def fuzzed_app(make_app, upstream):
    """An app over a synced mirror with one public, one switched-off and one churned company.

    schemathesis calls the app as Host "localhost", mapped to the public
    company so the COMPANY_HOSTS routes answer too.
    """
    app = make_app(
        RATE_LIMIT_PER_COMPANY="100000/hour",
        RATE_LIMIT_PER_CLIENT="100000/minute",
        COMPANY_HOSTS=f"localhost={PUBLIC_KEY}",
    )
    add_company(upstream, plugin_key=PUBLIC_KEY)
    switched_off = add_company(upstream)
    set_settings(upstream, switched_off, channels={"pricing": False, "mcp": False, "quote": False})
    churned = add_company(upstream, status="churned")
    sync(app.extensions["mirror"])
    return app, [PUBLIC_KEY, switched_off, churned, UNKNOWN_KEY]


def _fuzz(operation, mode: GenerationMode, keys: list[str]) -> set[int]:
    """Run one operation's examples; the statuses seen."""
    seen: set[int] = set()

    # Mostly real keys (public, closed, unknown), sometimes whatever schemathesis made up.
    @settings(
        max_examples=EXAMPLES_PER_OPERATION,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.explicit, Phase.generate],
    )
    @given(case=operation.as_strategy(generation_mode=mode), key=st.sampled_from([*keys, *keys, None]))
    def run(case, key):
        if key is not None and "key" in (case.path_parameters or {}):
            case.path_parameters["key"] = key
        seen.add(case.call_and_validate(checks=CHECKS).status_code)

    run()
    return seen


@pytest.mark.slow
@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE], ids=["positive", "negative"])
def test_schemathesis_finds_no_server_error_and_no_schema_violation(fuzzed_app, mode):
    app, keys = fuzzed_app
    schema = schemathesis.openapi.from_wsgi("/openapi.json", app)
    operations = [result.ok() for result in schema.get_all_operations()]
    # schemathesis leaves out the operation serving the schema itself.
    assert {op.label for op in operations} | {"GET /openapi.json"} == {
        f"{method} {path}" for path, method in _documented(schema.raw_schema)
    }
    seen = {operation.label: _fuzz(operation, mode, keys) for operation in operations}
    if mode == GenerationMode.POSITIVE:  # the answers checked include real content, not only refusals
        served = [
            label
            for label in seen
            if "{key}" in label
            and (label.startswith("POST") or (label.startswith("GET") and not label.endswith("/mcp")))
        ]
        missing = {
            label: seen[label] for label in served if "webmcp.json" not in label and not {200, 404} <= seen[label]
        }
        assert not missing, missing
