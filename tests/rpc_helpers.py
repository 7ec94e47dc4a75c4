"""Every JSON-RPC endpoint of the service, and what a well-formed answer from one is.

`ENDPOINTS` lists them all (MCP, the provider server, UCP on its path and on a
COMPANY_HOSTS domain, webmcp.js's calls, A2A per company, on a COMPANY_HOSTS
domain and the directory), each with the headers its clients send and the
tools (or skills) it serves, for tests that must cover every one:
tests/web/test_jsonrpc_core.py and tests/web/test_jsonrpc_fuzz.py run against
`tests.ucp_helpers.ucp_live`, whose COMPANY_HOSTS maps tudi.example to TUDI.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import requests

from a2a_server.skills import COMPANY_AGENT, DIRECTORY_AGENT
from agent_tools import COMPANY_TOOLS, PROVIDER_TOOLS
from mcp_server.ucp.tools import UCP_TOOLS
from mirror.values.storable import storable
from tests.mcp_helpers import HEADERS, TUDI

A2A_HEADERS = {"Content-Type": "application/json", "A2A-Version": "1.0"}
MAPPED_HOST = "tudi.example"  # tests.ucp_helpers.HOSTS maps it to TUDI


@dataclass(frozen=True)
class Endpoint:
    """One JSON-RPC endpoint: where it is, which protocol it speaks, which tools it serves."""

    name: str
    path: str
    protocol: str  # "mcp" (MCP and UCP) or "a2a"
    tools: tuple
    host: str | None = None  # a Host header (a COMPANY_HOSTS domain); None: the server's own

    @property
    def ucp(self) -> bool:
        """A UCP catalog endpoint (its tools need an agent profile)."""
        return self.tools is UCP_TOOLS

    def headers(self, extra: dict | None = None) -> dict:
        """The headers its clients send (and the mapped Host)."""
        headers = dict(A2A_HEADERS if self.protocol == "a2a" else HEADERS)
        if self.host:
            headers["Host"] = self.host
        return {**headers, **(extra or {})}

    def post(self, http, base: str, body: bytes, extra: dict | None = None) -> requests.Response:
        """POST raw body bytes over real HTTP."""
        return http.post(base + self.path, data=body, headers=self.headers(extra), timeout=30)


ENDPOINTS = (
    Endpoint("company-mcp", f"/companies/{TUDI}/mcp", "mcp", tuple(COMPANY_TOOLS)),
    Endpoint("provider-mcp", "/mcp", "mcp", tuple(PROVIDER_TOOLS)),
    Endpoint("company-ucp", f"/companies/{TUDI}/ucp/mcp", "mcp", UCP_TOOLS),
    Endpoint("host-ucp", "/ucp/mcp", "mcp", UCP_TOOLS, host=MAPPED_HOST),
    Endpoint("company-webmcp", f"/companies/{TUDI}/webmcp/mcp", "mcp", tuple(COMPANY_TOOLS)),
    Endpoint("company-a2a", f"/companies/{TUDI}/a2a", "a2a", COMPANY_AGENT.tools),
    Endpoint("host-a2a", "/a2a", "a2a", COMPANY_AGENT.tools, host=MAPPED_HOST),
    Endpoint("directory-a2a", "/a2a", "a2a", DIRECTORY_AGENT.tools),
)
BY_NAME = {endpoint.name: endpoint for endpoint in ENDPOINTS}


def strings_in(value: Any):
    """Every string in a JSON value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)


def as_received(value: Any) -> Any:
    """A string as the server decodes the JSON it was sent as (an escaped surrogate pair is one character)."""
    return json.loads(json.dumps(value)) if isinstance(value, str) else value


def echoable_id(sent: Any) -> bool:
    """Whether an answer may echo this `id`: a string or an integer (not a boolean) that is storable text."""
    if isinstance(sent, bool) or not isinstance(sent, (str, int)):
        return False
    return not isinstance(sent, str) or storable(sent)


def assert_response_object(answer: Any, sent: Any) -> None:
    """A JSON-RPC 2.0 response object answering `sent` (the decoded message, when it was one)."""
    assert isinstance(answer, dict) and answer.get("jsonrpc") == "2.0", answer
    assert set(answer) <= {"jsonrpc", "id", "result", "error"} and "id" in answer, answer
    assert ("result" in answer) != ("error" in answer), answer
    sent_id = as_received(sent.get("id")) if isinstance(sent, dict) else None
    if "error" in answer:
        error = answer["error"]
        assert isinstance(error, dict) and isinstance(error.get("code"), int), answer
        assert not isinstance(error["code"], bool) and isinstance(error.get("message"), str), answer
        assert answer["id"] is None or (echoable_id(sent_id) and answer["id"] == sent_id), (answer, sent_id)
    else:
        assert echoable_id(sent_id) and answer["id"] == sent_id, (answer, sent_id)


def assert_well_formed(response: requests.Response, sent: Any) -> Any:
    """No 5xx; 202 with no body, or strict UTF-8 JSON holding JSON-RPC responses to `sent`; the answer.

    `sent` is the message (or batch) as the test built it, before encoding.
    """
    assert response.status_code < 500, (repr(sent)[:300], response.status_code, response.text[:500])
    if response.status_code == 202:
        assert response.content == b"", response.content[:200]
        return None
    assert response.headers["Content-Type"].startswith("application/json"), response.headers
    answer = json.loads(response.content.decode("utf-8"))  # strict UTF-8: a lone surrogate could not be sent
    assert not any(has_surrogate(text) for text in strings_in(answer)), answer  # not even escaped
    if isinstance(answer, list):  # a batch: one response per request in it, each echoing its own id or null
        assert isinstance(sent, list) and 0 < len(answer) <= len(sent), (sent, answer)
        ids = [as_received(item.get("id")) for item in sent if isinstance(item, dict)]
        ids = [sent_id for sent_id in ids if echoable_id(sent_id)]
        for item in answer:
            assert_response_object(item, {"id": item.get("id")} if item.get("id") in ids else None)
        return answer
    assert_response_object(answer, sent if isinstance(sent, dict) else None)
    return answer


def has_surrogate(text: str) -> bool:
    """Whether a string holds a surrogate code point (which no UTF-8 text can carry)."""
    return any(0xD800 <= ord(character) <= 0xDFFF for character in text)
