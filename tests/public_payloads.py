"""Every public payload of the demo's example companies, as text with the clock taken out.

    DATABASE_URL=postgresql://… .venv/bin/python -m tests.public_payloads OUT.json   # write them (two trees compared)

Builds the app on an empty Postgres database (migrated here), syncs the demo upstream's example
companies (demo/examples.py: fixed keys and catalogs, whatever the seed) and
asks every public surface for them through the app's own WSGI interface: the
bodies a client gets. Times (every RFC 3339 timestamp) and what is derived
from them (ETags, the feed's changes token, the page's human dates) are
replaced by placeholders, so two runs of one tree give the same text and two
trees differ only where their payloads do (tests/test_payloads_stable.py
holds the current tree to tests/golden/public_payloads.json).
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

TUDI = "000qeNvgDSrmHEbIejt1beAWureP3Z5HrsB3NZFq"
EXAMPLE_KEYS = (
    TUDI,
    "1GtwyPlmbDrnStrfrntnLy7Qk2mXc9vRb4sTdWzH",
    "2PrrHtngCLnoFunnel8sKd3nVw6yQm1xRt5bLcJg",
    "4CrdnlArCndMcpOff6pWv2kLt9sQx3nBh8jZr5mD",
)
_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})")
_TOKEN = re.compile(r"chg_\d+_\d+")
_HUMAN_DATE = re.compile(
    r"(January|February|March|April|May|June|July|August|September|October|November|December) \d{1,2}, \d{4}"
)
_ETAG = re.compile(r'"[0-9a-f]{16,64}"')
MCP = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
A2A = {"Content-Type": "application/json", "A2A-Version": "1.0"}


def _normalised(text: str) -> str:
    text = _TIME.sub("<time>", text)
    text = _TOKEN.sub("chg_<clock>", text)
    return _HUMAN_DATE.sub("<date>", text)


def _rpc(client, path: str, method: str, params: dict | None = None, headers=MCP) -> str:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}}
    return client.post(path, data=json.dumps(body), headers=headers).get_data(as_text=True)


def collect(database_url: str) -> dict[str, str]:
    """{surface name: normalised body} for the demo's example companies, mirrored into an empty database."""
    from demo.server import start_in_thread
    from mirror.store.migrate import upgrade
    from wsgi import create_app

    upstream = start_in_thread(companies=0, products=0, seed=1, examples=True)
    upgrade(database_url)
    app = create_app(
        {
            "DATABASE_URL": database_url,
            "UPSTREAM_URL": upstream.url,
            "UPSTREAM_TOKEN": "demo-token",
            "PUBLIC_BASE_URL": "http://127.0.0.1:8000",
            "SCHEDULER_ENABLED": "false",
            "RATE_LIMIT_STORAGE_URI": "memory://",
            "RATE_LIMIT_PER_COMPANY": "1000000/hour",
            "RATE_LIMIT_PER_CLIENT": "1000000/minute",
        }
    )
    try:
        assert app.extensions["mirror"].sync().status == "success"
        return _payloads(app.test_client())
    finally:
        app.extensions["mirror"].dispose()
        upstream.stop()


def _payloads(client) -> dict[str, str]:
    seen: dict[str, str] = {}

    def get(name: str, path: str) -> None:
        response = client.get(path)
        seen[name] = f"{response.status_code} {response.mimetype}\n" + _normalised(response.get_data(as_text=True))

    for key in EXAMPLE_KEYS:
        base = f"/companies/{key}"
        for suffix in ("/pricing.json", "/pricing", "/quote", "/webmcp.json", "/.well-known/agent-card.json",
                       "/mcp/server-card", "/.well-known/ucp"):  # fmt: skip
            get(f"{key}{suffix}", base + suffix)
        get(f"{key}.jsonld", f"{base}.jsonld")
        mcp = f"{base}/mcp"
        seen[f"{key} mcp tools/list"] = _normalised(_rpc(client, mcp, "tools/list"))
        for tool, arguments in (
            ("get_business_info", {}),
            ("list_categories", {}),
            ("check_service_area", {"postal_code": "63376"}),
        ):
            seen[f"{key} mcp {tool}"] = _normalised(
                _rpc(client, mcp, "tools/call", {"name": tool, "arguments": arguments})
            )
    for tool, arguments in (("compare_tiers", {"category": "hp-air-handler"}), ("search_catalog", {"query": "Lennox"})):
        seen[f"{TUDI} mcp {tool}"] = _normalised(
            _rpc(client, f"/companies/{TUDI}/mcp", "tools/call", {"name": tool, "arguments": arguments})
        )
    for path in ("/v1/businesses?page=1&page_size=50", "/llms.txt", "/.well-known/ai-catalog.json",
                 "/.well-known/mcp.json", "/mcp/server-card", "/.well-known/agent-card.json"):  # fmt: skip
        get(path, path)
    seen["provider tools/list"] = _normalised(_rpc(client, "/mcp", "tools/list"))
    seen["provider request_service"] = _normalised(
        _rpc(client, "/mcp", "tools/call", {"name": "request_service", "arguments": {"business_id": TUDI}})
    )
    return {name: _ETAG.sub('"<etag>"', text) for name, text in seen.items()}


if __name__ == "__main__":
    Path(sys.argv[1]).write_text(
        json.dumps(collect(os.environ["DATABASE_URL"]), indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    )
