"""The official schema files `make conformance` checks against (not in this repository).

UCP_SCHEMAS_DIR holds the UCP releases (`2026-04-08/schemas/**.json` and
`2026-04-08/services/shopping/mcp.openrpc.json`); MCP_SERVER_CARD_SCHEMA_DIR
holds the MCP server-card schema (`schema.json`). Both default to
`../shared/...` beside the repository, where this project's CI keeps them.
The UCP files are loaded into a `referencing.Registry` keyed by each schema's
`$id`, so `$ref`s resolve offline.
"""
from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path

from jsonschema import Draft202012Validator, FormatChecker
from referencing import Registry, Resource

from tests.ucp_helpers import BASE

REPO_ROOT = Path(__file__).resolve().parents[2]
UCP_VERSION = "2026-04-08"  # the release under tests/ucp_helpers.BASE


def ucp_schemas_dir() -> Path:
    """The directory of the UCP releases (UCP_SCHEMAS_DIR, default ../shared/ucp)."""
    return Path(os.environ.get("UCP_SCHEMAS_DIR") or REPO_ROOT.parent / "shared" / "ucp")


def server_card_schema_dir() -> Path:
    """The directory of the MCP server-card schema (MCP_SERVER_CARD_SCHEMA_DIR, default ../shared/mcp-server-card)."""
    return Path(os.environ.get("MCP_SERVER_CARD_SCHEMA_DIR") or REPO_ROOT.parent / "shared" / "mcp-server-card")


def missing() -> str | None:
    """One line naming the variable whose directory lacks the files, or None when both are there."""
    release = ucp_schemas_dir() / UCP_VERSION
    if not (release / "schemas").is_dir() or not (release / "services" / "shopping" / "mcp.openrpc.json").is_file():
        return (f"UCP_SCHEMAS_DIR={ucp_schemas_dir()}: no UCP {UCP_VERSION} release there "
                f"({UCP_VERSION}/schemas and {UCP_VERSION}/services/shopping/mcp.openrpc.json)")
    if not (server_card_schema_dir() / "schema.json").is_file():
        return f"MCP_SERVER_CARD_SCHEMA_DIR={server_card_schema_dir()}: no schema.json there (the MCP server-card schema)"
    return None


SEARCH_RESPONSE = f"{BASE}/schemas/shopping/catalog_search.json#/$defs/search_response"
SEARCH_REQUEST = f"{BASE}/schemas/shopping/catalog_search.json#/$defs/search_request"
LOOKUP_RESPONSE = f"{BASE}/schemas/shopping/catalog_lookup.json#/$defs/lookup_response"
LOOKUP_REQUEST = f"{BASE}/schemas/shopping/catalog_lookup.json#/$defs/lookup_request"
GET_PRODUCT_RESPONSE = f"{BASE}/schemas/shopping/catalog_lookup.json#/$defs/get_product_response"
GET_PRODUCT_REQUEST = f"{BASE}/schemas/shopping/catalog_lookup.json#/$defs/get_product_request"
ERROR_RESPONSE = f"{BASE}/schemas/shopping/types/error_response.json"
BUSINESS_PROFILE = f"{BASE}/schemas/discovery/profile.json#/$defs/business_profile"
PLATFORM_PROFILE_REF = f"{BASE}/schemas/discovery/profile.json#/$defs/platform_profile"
PROFILE = f"{BASE}/schemas/discovery/profile.json"
REQUESTS = {"search_catalog": SEARCH_REQUEST, "lookup_catalog": LOOKUP_REQUEST, "get_product": GET_PRODUCT_REQUEST}
RESPONSES = {"search_catalog": SEARCH_RESPONSE, "lookup_catalog": LOOKUP_RESPONSE, "get_product": GET_PRODUCT_RESPONSE}


@lru_cache(maxsize=1)
def official() -> tuple[Registry, dict]:
    """The registry of the official UCP schemas and the OpenRPC document (conftest made sure they exist)."""
    release = ucp_schemas_dir() / UCP_VERSION
    resources = []
    for path in sorted((release / "schemas").rglob("*.json")):
        contents = json.loads(path.read_text(encoding="utf-8"))
        resources.append((contents["$id"], Resource.from_contents(contents)))
    openrpc = json.loads((release / "services" / "shopping" / "mcp.openrpc.json").read_text(encoding="utf-8"))
    return Registry().with_resources(resources), openrpc


def official_errors(instance, ref: str) -> list[str]:
    """Every violation of an official UCP schema (by absolute $ref), as readable lines."""
    registry, _ = official()
    validator = Draft202012Validator({"$ref": ref}, registry=registry, format_checker=FormatChecker())
    return [f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}" for e in validator.iter_errors(instance)]


def assert_official(instance, ref: str, what: str) -> None:
    """The instance is valid under the official UCP schema at `ref`."""
    errors = official_errors(instance, ref)
    assert not errors, f"{what} violates {ref}:\n" + "\n".join(errors[:20])


@lru_cache(maxsize=1)
def server_card_schema() -> dict:
    """The official MCP server-card JSON Schema."""
    return json.loads((server_card_schema_dir() / "schema.json").read_text(encoding="utf-8"))
