"""The UCP tool declarations are valid JSON Schema, and the conformance target cannot pass empty-handed.

The checks against the official UCP schema files (which this repository does
not carry) are in tests/conformance/, run by `make conformance`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from mcp_server.ucp.tools import UCP_TOOLS
from tests import REPO_ROOT

REPO_ROOT = REPO_ROOT


@pytest.mark.parametrize("tool", UCP_TOOLS, ids=lambda t: t.name)
def test_tool_schemas_are_valid_json_schema(tool):
    Draft202012Validator.check_schema(tool.input_schema)
    Draft202012Validator.check_schema(tool.output_schema)
    assert tool.input_schema["type"] == tool.output_schema["type"] == "object"


def run_conformance(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    """pytest on tests/conformance with the given directories, as `make conformance` runs it."""
    environ = {
        **os.environ,
        "UCP_SCHEMAS_DIR": str(tmp_path / "no-ucp"),
        "MCP_SERVER_CARD_SCHEMA_DIR": str(tmp_path / "no-card"),
        **env,
    }
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "tests/conformance"],
        cwd=REPO_ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
def test_conformance_without_the_ucp_schemas_fails_naming_the_variable(tmp_path):
    result = run_conformance(tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    output = result.stdout + result.stderr
    assert f"UCP_SCHEMAS_DIR={tmp_path / 'no-ucp'}: no UCP 2026-04-08 release there" in output
    assert "skipped" not in output and "passed" not in output


def fake_release(root: Path, version: str) -> None:
    """The files `make conformance` looks for first, for one UCP release (empty ones)."""
    release = root / version
    (release / "schemas").mkdir(parents=True)
    (release / "services" / "shopping").mkdir(parents=True)
    (release / "services" / "shopping" / "mcp.openrpc.json").write_text("{}")


@pytest.mark.slow
def test_conformance_without_the_2026_08_25_release_fails_naming_it(tmp_path):
    fake_release(tmp_path / "ucp", "2026-04-08")  # the older release alone is not enough
    result = run_conformance(tmp_path, UCP_SCHEMAS_DIR=str(tmp_path / "ucp"))
    assert result.returncode == 1, result.stdout + result.stderr
    output = result.stdout + result.stderr
    assert f"UCP_SCHEMAS_DIR={tmp_path / 'ucp'}: no UCP 2026-08-25 release there" in output
    assert "skipped" not in output and "passed" not in output


@pytest.mark.slow
def test_conformance_without_the_server_card_schema_fails_naming_the_variable(tmp_path):
    for version in ("2026-04-08", "2026-08-25"):
        fake_release(tmp_path / "ucp", version)
    result = run_conformance(tmp_path, UCP_SCHEMAS_DIR=str(tmp_path / "ucp"))
    assert result.returncode == 1, result.stdout + result.stderr
    output = result.stdout + result.stderr
    assert f"MCP_SERVER_CARD_SCHEMA_DIR={tmp_path / 'no-card'}: no schema.json there" in output
    assert "skipped" not in output and "passed" not in output
