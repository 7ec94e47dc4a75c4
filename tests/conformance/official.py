"""The official schema files `make conformance` checks against (not in this repository).

UCP_SCHEMAS_DIR holds the UCP releases, one folder each: `2026-04-08/` and
`2026-08-25/`, each with `schemas/**.json` and `services/shopping/mcp.openrpc.json`;
MCP_SERVER_CARD_SCHEMA_DIR holds the MCP server-card schema (`schema.json`).
Both default to `../shared/...` beside the repository, where this project's
CI keeps them. Every release's schemas are loaded into one
`referencing.Registry` keyed by each schema's `$id` (absolute, with the
release in its path), so `$ref`s of both releases resolve offline side by side.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from urllib.parse import urljoin

from jsonschema import Draft202012Validator, FormatChecker
from referencing import Registry, Resource

from tests import REPO_ROOT
from tests.ucp_helpers import RELEASES

OPENRPC = "services/shopping/mcp.openrpc.json"


def ucp_schemas_dir() -> Path:
    """The directory of the UCP releases (UCP_SCHEMAS_DIR, default ../shared/ucp)."""
    return Path(os.environ.get("UCP_SCHEMAS_DIR") or REPO_ROOT.parent / "shared" / "ucp")


def server_card_schema_dir() -> Path:
    """The directory of the MCP server-card schema (MCP_SERVER_CARD_SCHEMA_DIR, default ../shared/mcp-server-card)."""
    return Path(os.environ.get("MCP_SERVER_CARD_SCHEMA_DIR") or REPO_ROOT.parent / "shared" / "mcp-server-card")


def missing() -> str | None:
    """One line naming the variable whose directory lacks the files, or None when all are there."""
    for version in RELEASES:
        release = ucp_schemas_dir() / version
        if not (release / "schemas").is_dir() or not (release / OPENRPC).is_file():
            return (
                f"UCP_SCHEMAS_DIR={ucp_schemas_dir()}: no UCP {version} release there "
                f"({version}/schemas and {version}/{OPENRPC})"
            )
    if not (server_card_schema_dir() / "schema.json").is_file():
        return (
            f"MCP_SERVER_CARD_SCHEMA_DIR={server_card_schema_dir()}: no schema.json there (the MCP server-card schema)"
        )
    return None


@dataclass(frozen=True)
class Release:
    """Where one release's official schemas put what the UCP tests check (absolute `$ref`s)."""

    version: str

    @property
    def base(self) -> str:
        return f"https://ucp.dev/{self.version}"

    @property
    def openrpc_url(self) -> str:
        """The OpenRPC document's own URL (its relative `$ref`s resolve against it)."""
        return f"{self.base}/{OPENRPC}"

    @property
    def shopping(self) -> str:
        return f"{self.base}/schemas/shopping"

    @property
    def shopping_types(self) -> str:
        return f"{self.shopping}/types"

    @property
    def common_types(self) -> str:
        """Shared types: under shopping/types in 2026-04-08, moved to common/types in 2026-08-25."""
        return self.shopping_types if self.version == "2026-04-08" else f"{self.base}/schemas/common/types"

    @property
    def requests(self) -> dict[str, str]:
        return {
            "search_catalog": f"{self.shopping}/catalog_search.json#/$defs/search_request",
            "lookup_catalog": f"{self.shopping}/catalog_lookup.json#/$defs/lookup_request",
            "get_product": f"{self.shopping}/catalog_lookup.json#/$defs/get_product_request",
        }

    @property
    def responses(self) -> dict[str, str]:
        return {
            "search_catalog": f"{self.shopping}/catalog_search.json#/$defs/search_response",
            "lookup_catalog": f"{self.shopping}/catalog_lookup.json#/$defs/lookup_response",
            "get_product": f"{self.shopping}/catalog_lookup.json#/$defs/get_product_response",
        }

    @property
    def error_response(self) -> str:
        return f"{self.common_types}/error_response.json"

    @property
    def profile(self) -> str:
        """The variant-neutral profile document (discovery/profile.json, moved to profile.json in 2026-08-25)."""
        return f"{self.base}/schemas/" + ("discovery/profile.json" if self.version == "2026-04-08" else "profile.json")

    @property
    def business_profile(self) -> str:
        return self.profile + (
            "#/$defs/business_profile" if self.version == "2026-04-08" else "#/$defs/business_schema"
        )

    @property
    def platform_profile(self) -> str:
        return self.profile + (
            "#/$defs/platform_profile" if self.version == "2026-04-08" else "#/$defs/platform_schema"
        )

    def openrpc(self) -> dict:
        """The release's official MCP binding (OpenRPC), with `$ref`s made absolute."""
        return absolute_refs(official()[1][self.version], self.openrpc_url)


OFFICIAL = {version: Release(version) for version in RELEASES}


def absolute_refs(node, base: str):
    """A copy of `node` whose non-local `$ref`s are absolute URLs (resolved against `base`)."""
    if isinstance(node, dict):
        return {
            key: (
                urljoin(base, value)
                if key == "$ref" and isinstance(value, str) and not value.startswith("#")
                else absolute_refs(value, base)
            )
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [absolute_refs(item, base) for item in node]
    return node


@lru_cache(maxsize=1)
def official() -> tuple[Registry, dict[str, dict]]:
    """One registry of every release's official UCP schemas, and each release's OpenRPC document (conftest made
    sure they exist)."""
    resources, openrpc = [], {}
    for version in RELEASES:
        release = ucp_schemas_dir() / version
        for path in sorted((release / "schemas").rglob("*.json")):
            contents = json.loads(path.read_text(encoding="utf-8"))
            resources.append((contents["$id"], Resource.from_contents(contents)))
        openrpc[version] = json.loads((release / OPENRPC).read_text(encoding="utf-8"))
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
