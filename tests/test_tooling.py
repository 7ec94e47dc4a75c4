"""The test tooling that `make test` installs is present and works.

These tests FAIL (never skip) when a tool is missing: `make test` installs
tools/node_modules (npm ci) and Debian's chromium before running pytest, so a
missing tool means the install layer is broken.
"""

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests import REPO_ROOT

TOOLS_DIR = REPO_ROOT / "tools"
NODE_BIN_DIR = TOOLS_DIR / "node_modules" / ".bin"
NODE22 = NODE_BIN_DIR / "node"
VALIDATOR_SCRIPT = TOOLS_DIR / "validate_structured_data.mjs"
POLYFILL = TOOLS_DIR / "node_modules" / "@mcp-b" / "webmcp-polyfill" / "dist" / "index.iife.js"
CHROMIUM = Path("/usr/bin/chromium")

INSTALL_HINT = "run `make tools` (cd tools && npm ci --no-audit --no-fund)"


def node_env():
    """Environment in which `node` (and every #!/usr/bin/env node bin) is Node 22."""
    env = dict(os.environ)
    env["PATH"] = f"{NODE_BIN_DIR}{os.pathsep}{env.get('PATH', '')}"
    return env


def run(cmd, **kw):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=120, env=node_env(), **kw)


def validate_html(html):
    assert NODE22.exists(), f"{NODE22} missing: {INSTALL_HINT}"
    proc = run([NODE22, VALIDATOR_SCRIPT], input=html)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def product_page(offers):
    data = {
        "@context": "https://schema.org",
        "@type": "Product",
        "name": "Blue Widget",
        "description": "A widget.",
        "image": "https://example.com/widget.jpg",
        "sku": "W-1",
        "brand": {"@type": "Brand", "name": "Acme"},
        "offers": offers,
    }
    return (
        "<!doctype html><html><head><title>Blue Widget</title>"
        f'<script type="application/ld+json">{json.dumps(data)}</script>'
        "</head><body><h1>Blue Widget</h1></body></html>"
    )


def test_node22_binary():
    assert NODE22.exists(), f"{NODE22} missing: {INSTALL_HINT}"
    proc = run([NODE22, "--version"])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().startswith("v22."), proc.stdout


@pytest.mark.parametrize("name", ["node", "conformance", "mcp-inspector", "ucp"])
def test_tool_bins_installed(name):
    assert (NODE_BIN_DIR / name).exists(), f"{NODE_BIN_DIR / name} missing: {INSTALL_HINT}"


def test_conformance_lists_server_scenarios():
    assert (NODE_BIN_DIR / "conformance").exists(), f"conformance missing: {INSTALL_HINT}"
    proc = run([NODE_BIN_DIR / "conformance", "list", "--server"])
    assert proc.returncode == 0, proc.stderr
    assert "server-initialize" in proc.stdout
    assert "tools-list" in proc.stdout


def test_webmcp_polyfill_file_exists():
    assert POLYFILL.is_file(), f"{POLYFILL} missing: {INSTALL_HINT}"
    assert POLYFILL.stat().st_size > 1000


def test_structured_data_valid_product_has_no_errors():
    out = validate_html(
        product_page(
            {
                "@type": "AggregateOffer",
                "lowPrice": "9.99",
                "highPrice": "19.99",
                "priceCurrency": "USD",
                "offerCount": "3",
            }
        )
    )
    assert out["errors"] == []
    assert out["extracted"]["Product"][0]["name"] == "Blue Widget"
    assert all(w["severity"] == "WARNING" for w in out["warnings"])


def test_structured_data_offer_without_price_is_an_error():
    out = validate_html(
        product_page({"@type": "Offer", "priceCurrency": "USD", "availability": "https://schema.org/InStock"})
    )
    assert out["errors"], out
    assert any("price" in e["issueMessage"] for e in out["errors"]), out["errors"]
    assert all(e["severity"] == "ERROR" for e in out["errors"])


def test_structured_data_unparsable_jsonld_is_an_error():
    out = validate_html('<html><head><script type="application/ld+json">{"@type": "Product", </script></head></html>')
    assert any(e["issueMessage"] == "Could not parse JSON-LD" for e in out["errors"]), out


def test_debian_chromium_installed():
    assert CHROMIUM.exists(), f"{CHROMIUM} missing: run scripts/install_browser.sh"
    proc = subprocess.run([str(CHROMIUM), "--version"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Chromium "), proc.stdout
