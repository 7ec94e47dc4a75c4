"""The MCP server card (/.well-known/mcp.json) against the official server-card schema (SEP-2127).

`make test` checks what the card says (tests/mcp_server/test_mcp_discovery.py); here its
shape is held to the schema in MCP_SERVER_CARD_SCHEMA_DIR.
"""

from __future__ import annotations

import pytest
import requests
from jsonschema import Draft202012Validator, FormatChecker

from tests.conformance.official import server_card_schema
from tests.mcp_helpers import live_mcp, module_database


@pytest.fixture(scope="module")
def live(request):
    with live_mcp(module_database(request)) as server:
        yield server


def test_the_server_card_is_valid_under_the_official_schema(live):
    card = requests.get(f"{live.url}/.well-known/mcp.json", timeout=10).json()
    # schema.json is a bundle of $defs; the card is its ServerCard.
    schema = {**server_card_schema(), "$ref": "#/$defs/ServerCard"}
    Draft202012Validator.check_schema(schema)
    assert list(Draft202012Validator(schema).iter_errors({})), "the ServerCard definition accepts anything"
    validator = Draft202012Validator(schema, format_checker=FormatChecker())
    errors = [f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}" for e in validator.iter_errors(card)]
    assert not errors, "the server card violates the official schema:\n" + "\n".join(errors[:20])
