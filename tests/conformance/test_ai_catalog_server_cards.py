"""The AI Catalog's server cards validate against the official MCP server-card schema.

The schema is not part of this repository: `MCP_SERVER_CARD_SCHEMA_DIR`
(tests/conformance/official.py) names the folder holding `schema.json` and
its examples. Missing, `make conformance` fails, never skips.
"""

from __future__ import annotations

import json

import pytest
import requests
from jsonschema import Draft202012Validator

from tests.conformance.official import server_card_schema, server_card_schema_dir
from tests.mcp_helpers import TUDI, live_mcp, module_database

SCHEMA_DIR = server_card_schema_dir()


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    schema = server_card_schema()
    card_schema = {**schema, "$ref": "#/$defs/ServerCard"}
    return Draft202012Validator(card_schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


@pytest.fixture(scope="module")
def live(request):
    with live_mcp(module_database(request)) as server:
        yield server


def test_the_official_examples_validate(validator):
    examples = sorted((SCHEMA_DIR / "examples").glob("*.json"))
    assert examples, f"no examples in {SCHEMA_DIR / 'examples'}"
    for example in examples:
        validator.validate(json.loads(example.read_text(encoding="utf-8")))


def test_every_card_in_the_ai_catalog_validates(live, validator):
    catalog = requests.get(f"{live.url}/.well-known/ai-catalog.json", timeout=10).json()
    urls = [entry["url"] for entry in catalog["entries"]] + [f"{live.url}/companies/{TUDI}/mcp/server-card"]
    for url in urls:
        card = requests.get(url, headers={"Accept": "application/mcp-server-card+json"}, timeout=10).json()
        errors = sorted(validator.iter_errors(card), key=str)
        assert not errors, f"{url}: {errors[0].message}"


def test_a_broken_card_is_refused(validator):
    """The validator is live: a card with a bad name or a bare-host remote fails."""
    assert not validator.is_valid({"$schema": "x", "name": "no-slash", "version": "1", "description": "d"})
    assert not validator.is_valid(
        {
            "$schema": "x",
            "name": "a/b",
            "version": "1",
            "description": "d",
            "remotes": [{"type": "streamable-http", "url": "ftp://x"}],
        }
    )
