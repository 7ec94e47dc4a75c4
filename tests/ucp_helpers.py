"""Helpers for the UCP tests: an agent-profile server, UCP tool calls, a live app with UCP on.

Everything here runs on what the repository and the package registries hold.
Checks against the official UCP schema files live in tests/conformance/
(`make conformance`); here every structuredContent is checked against the
tool's own outputSchema, which tests/conformance/test_ucp_schemas.py holds to
the official schemas.
"""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from jsonschema import Draft202012Validator, FormatChecker

from mcp_server.ucp.agent_profile import FetchPolicy, fetch_policy
from mirror.runtime.config import load_settings
from tests.mcp_helpers import post, serve_app

V0408, V0825 = "2026-04-08", "2026-08-25"
RELEASES = (V0408, V0825)
BASE = f"https://ucp.dev/{V0408}"


def agent_profile(version: str) -> dict:
    """A platform (agent) profile of one release declaring the two Catalog capabilities (valid under its
    official schema)."""
    base = f"https://ucp.dev/{version}"
    return {
        "ucp": {
            "version": version,
            "services": {
                "dev.ucp.shopping": [
                    {
                        "version": version,
                        "spec": f"{base}/specification/overview",
                        "transport": "mcp",
                        "schema": f"{base}/services/shopping/mcp.openrpc.json",
                    }
                ]
            },
            "capabilities": {
                f"dev.ucp.shopping.catalog.{name}": [
                    {
                        "version": version,
                        "spec": f"{base}/specification/catalog/{name}",
                        "schema": f"{base}/schemas/shopping/catalog_{name}.json",
                    }
                ]
                for name in ("search", "lookup")
            },
            "payment_handlers": {},
        }
    }


AGENT_PROFILE = agent_profile(V0408)
AGENT_PATHS = {V0408: "/agent.json", V0825: f"/agent-{V0825}.json"}


def assert_own_schema(instance, tool: str, what: str) -> None:
    """The instance is valid under the UCP tool's own outputSchema."""
    validator = Draft202012Validator(output_schema(tool), format_checker=FormatChecker())
    errors = [
        f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}" for e in validator.iter_errors(instance)
    ]
    assert not errors, f"{what} violates the outputSchema of {tool}:\n" + "\n".join(errors[:20])


def assert_urls(instance) -> None:
    """Every url/endpoint/schema/spec string is an absolute http(s) URL (format: uri, which jsonschema
    checks only with optional packages)."""
    if isinstance(instance, dict):
        for key, value in instance.items():
            if key in ("url", "endpoint", "schema", "spec", "continue_url") and isinstance(value, str):
                parts = urlsplit(value)
                assert parts.scheme in ("http", "https") and parts.netloc, f"{key}: {value!r} is not absolute"
            assert_urls(value)
    elif isinstance(instance, list):
        for item in instance:
            assert_urls(item)


# --- development profiles: the one way the tests allow loopback http --------------------------


def insecure_profiles(*hosts: str) -> dict[str, str]:
    """The settings that let the app fetch agent profiles over loopback http from these host:port only."""
    assert hosts, "name the profile servers: insecure profiles are allowed per host, never for any"
    return {"UCP_ALLOW_INSECURE_PROFILES": "true", "UCP_INSECURE_PROFILE_HOSTS": ",".join(hosts)}


def insecure_policy(*hosts: str, **fields) -> FetchPolicy:
    """The fetch policy those settings give the app (plus FetchPolicy `fields`, e.g. a shorter timeout)."""
    return dataclasses.replace(fetch_policy(load_settings(insecure_profiles(*hosts))), **fields)


# --- an agent-profile server on loopback ----------------------------------------------------


@dataclass
class Route:
    """How the agent-profile server answers one path."""

    body: bytes = b""
    status: int = 200
    headers: dict = field(default_factory=dict)
    delay: float = 0.0  # seconds before the status line
    trickle: float = 0.0  # seconds between body bytes
    length: bool = True  # False: no Content-Length, the body ends when the connection closes


@dataclass
class ProfileServer:
    """A real HTTP server on 127.0.0.1 serving agent profiles (and misbehaving on demand)."""

    url: str
    routes: dict
    hits: list

    @property
    def host(self) -> str:
        """Its host:port, as UCP_INSECURE_PROFILE_HOSTS lists it."""
        return urlsplit(self.url).netloc

    def add(self, path: str, route: Route) -> str:
        """Serve `route` at `path`; its absolute URL."""
        self.routes[path] = route
        return self.url + path

    def json(self, path: str, document, cache_control: str = "public, max-age=300") -> str:
        """Serve a JSON document at `path`; its absolute URL."""
        return self.add(
            path,
            Route(
                body=json.dumps(document).encode(),
                headers={"Content-Type": "application/json", "Cache-Control": cache_control},
            ),
        )

    def count(self, path: str) -> int:
        """How many GETs `path` received."""
        return sum(1 for hit in self.hits if hit["path"] == path)


def _handler(routes: dict, hits: list):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            hits.append({"path": self.path, "host": self.headers.get("Host")})
            route = routes.get(self.path, Route(body=b"not found", status=404))
            time.sleep(route.delay)
            self.send_response(route.status)
            for name, value in route.headers.items():
                self.send_header(name, value)
            if route.length:
                self.send_header("Content-Length", str(len(route.body)))
            else:
                self.send_header("Connection", "close")
                self.close_connection = True
            self.end_headers()
            if route.trickle:
                for byte in route.body:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(route.trickle)
            else:
                self.wfile.write(route.body)

        def log_message(self, *args):
            pass

    return Handler


class _QuietServer(ThreadingHTTPServer):
    """Clients that hang up early (refusing a large body) are expected here, not errors to print."""

    def handle_error(self, request, client_address):
        pass


@contextmanager
def profile_server():
    """A ProfileServer on 127.0.0.1:<free port> serving an agent profile of each release (AGENT_PATHS)."""
    routes, hits = {}, []
    server = _QuietServer(("127.0.0.1", 0), _handler(routes, hits))
    server.daemon_threads = True
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="ucp-agent-profiles", daemon=True
    )
    thread.start()
    profiles = ProfileServer(url=f"http://127.0.0.1:{server.server_port}", routes=routes, hits=hits)
    for version, path in AGENT_PATHS.items():
        profiles.json(path, agent_profile(version))
    try:
        yield profiles
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


# --- UCP calls ------------------------------------------------------------------------------

UCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json"}  # what UCP clients send


def ucp_call(url: str, tool: str, catalog: dict, profile: str | None, *, meta: dict | None = None, id=1) -> dict:
    """tools/call with no initialize, `Accept: application/json` only; the JSON-RPC response body."""
    arguments = {"catalog": catalog}
    if meta is not None:
        arguments["meta"] = meta
    elif profile is not None:
        arguments["meta"] = {"ucp-agent": {"profile": profile}}
    body = {"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
    response = post(url, body, headers=UCP_HEADERS)
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"].startswith("application/json")
    return response.json()


def output_schema(tool: str) -> dict:
    """The outputSchema a UCP tool declares."""
    from mcp_server.ucp.tools import UCP_TOOLS

    return next(t.output_schema for t in UCP_TOOLS if t.name == tool)


# --- a live app with UCP enabled --------------------------------------------------------------

MANY = "ucp-many-test"  # a company with more categories than one default page (10)
MANY_CATEGORIES = 13
HOSTS = {"tudi.example": "tudi-test", "off.example": "mcp-off-test"}


@dataclass
class UcpLive:
    """The running app (tests.mcp_helpers.Live) and an agent-profile server."""

    live: object
    profiles: ProfileServer

    @property
    def agent(self) -> str:
        """The URL of the valid 2026-04-08 agent profile."""
        return self.agent_of(V0408)

    def agent_of(self, version: str) -> str:
        """The URL of the valid agent profile of one release."""
        return self.profiles.url + AGENT_PATHS[version]

    def endpoint(self, key: str = "tudi-test") -> str:
        """A company's UCP endpoint."""
        return f"{self.live.url}/companies/{key}/ucp/mcp"

    def call(
        self,
        tool: str,
        catalog: dict,
        *,
        key: str = "tudi-test",
        profile: str | None = "agent",
        version: str = V0408,
        **kwargs,
    ) -> dict:
        """A UCP tools/call as the valid agent of `version` (`profile=None` sends no meta)."""
        url = self.agent_of(version) if profile == "agent" else profile
        return ucp_call(self.endpoint(key), tool, catalog, url, **kwargs)

    def ok(self, tool: str, catalog: dict, *, version: str = V0408, **kwargs) -> dict:
        """A successful call's structuredContent, checked against the tool's outputSchema (the valid agent of
        `version` answers in that release)."""
        body = self.call(tool, catalog, version=version, **kwargs)
        assert "result" in body, body
        result = body["result"]
        assert result["isError"] is False
        structured = result["structuredContent"]
        assert result["content"] == [{"type": "text", "text": json.dumps(structured, indent=2, ensure_ascii=False)}]
        assert_own_schema(structured, tool, f"{tool} structuredContent")
        assert_urls(structured)
        if kwargs.get("profile", "agent") == "agent":
            assert structured["ucp"]["version"] == version
        return structured

    def rpc_error(self, tool: str, catalog: dict, **kwargs) -> dict:
        """A call answered with a JSON-RPC error; the error object."""
        body = self.call(tool, catalog, **kwargs)
        assert "error" in body and "result" not in body, body
        return body["error"]


@contextmanager
def demo_ucp_live(database_url: str, *, before_sync=None, **catalog):
    """A demo upstream serving `DemoCatalog(**catalog)` (and what `before_sync(upstream)` adds to it), synced
    into `database_url`; the app on a real port with UCP on (loopback agent profiles): a `UcpLive`."""
    from demo.catalog import DemoCatalog
    from demo.server import start_in_thread

    upstream = start_in_thread(DemoCatalog(**catalog))
    try:
        if before_sync is not None:
            before_sync(upstream)
        with (
            profile_server() as agents,
            serve_app(database_url, upstream.url, **insecure_profiles(agents.host)) as live,
        ):
            result = live.mirror.sync()
            assert result.status == "success", result.error
            yield UcpLive(live=live, profiles=agents)
    finally:
        upstream.stop()


@contextmanager
def ucp_live(database_url: str, **env):
    """Upstream + synced mirror + the app on a real port (loopback http profiles from `profiles` only) + profiles."""
    from tests.mcp_helpers import live_mcp

    hosts = ",".join(f"{host}={key}" for host, key in HOSTS.items())
    with profile_server() as profiles:
        settings = {**insecure_profiles(profiles.host), "COMPANY_HOSTS": hosts, **env}
        with live_mcp(database_url, **settings) as live:
            yield _seeded(live, profiles)


def _seeded(live, profiles: ProfileServer) -> UcpLive:
    """The many-categories company added and synced."""
    catalog = live.upstream.catalog
    catalog.add_company(
        products=0,
        plugin_key=MANY,
        name="Many Categories Heating & Plumbing",
        trades=["hvac", "plumbing"],
        status="active",
        storefront_live=True,
        settings={"currency": "USD", "channels": {}},
    )
    for index in range(MANY_CATEGORIES):
        for tier, price in (("good", 1000 + index), ("best", 2000 + index)):
            catalog.set_product(
                MANY,
                f"M{index:02d}-{tier.upper()}",
                name=f"System {index} ({tier})",
                category={"name": f"System {index:02d}", "slug": f"system-{index:02d}", "kind": "system"},
                tier=tier,
                brand="Acme",
                model_numbers=[],
                description=None,
                price=f"{price}.00",
                published=True,
                specs={},
            )
    result = live.mirror.sync()
    assert result.status == "success", result.error
    return UcpLive(live=live, profiles=profiles)
