"""webmcp.js in headless Chromium (Debian's /usr/bin/chromium, driven by Playwright).

Two real origins: the app on http://127.0.0.1:<port> (PUBLIC_BASE_URL) and a
"contractor site" on http://localhost:<port2> whose pages carry the tag. Each
test runs twice: with the @mcp-b/webmcp-polyfill providing document.modelContext
(its executeTool takes a JSON string), and with Chromium's native WebMCP
(--enable-features=WebMCP,WebMCPTesting; executeTool takes an object). Both
return the tool's result as a string. The browser is never downloaded: a
missing Chromium fails these tests.
"""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from agent_tools import webmcp_tool_definitions
from tests import REPO_ROOT
from tests.mcp_helpers import MCP_OFF, TUDI, call_tool, live_mcp, module_database, rpc
from tests.webmcp.test_webmcp import BOTH_OFF, TOGGLE, UNKNOWN, WEBMCP_OFF, seed_webmcp_companies, set_channels

pytestmark = pytest.mark.browser

REPO_ROOT = REPO_ROOT
CHROMIUM = Path("/usr/bin/chromium")
POLYFILL = REPO_ROOT / "tools" / "node_modules" / "@mcp-b" / "webmcp-polyfill" / "dist" / "index.iife.js"
BASE_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
MODES = {"polyfill": [], "native": ["--enable-features=WebMCP,WebMCPTesting"]}
TOOL_NAMES = [tool["name"] for tool in webmcp_tool_definitions()]

# In the page: run one tool through the page's ModelContext, as an agent would.
EXECUTE = """async ([name, input, asJson]) => {
  const tool = (await document.modelContext.getTools()).find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return await document.modelContext.executeTool(tool, asJson ? JSON.stringify(input) : input);
}"""
LIST_TOOLS = """async () => (await document.modelContext.getTools()).map(
  (t) => ({name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema,
           annotations: t.annotations}))"""
READY = "async (url) => await (await import(url)).ready"


class ContractorSite:
    """Another origin serving the polyfill and pages that embed the tag."""

    def __init__(self):
        self.pages: dict[str, bytes] = {"/polyfill.js": POLYFILL.read_bytes()}
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                body = site.pages.get(self.path)
                self.send_response(200 if body is not None else 404)
                kind = "text/javascript" if self.path.endswith(".js") else "text/html; charset=utf-8"
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body or b"")))
                self.end_headers()
                self.wfile.write(body or b"")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        # localhost is another origin than 127.0.0.1, and still a secure context.
        self.url = f"http://localhost:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def page(self, path: str, *tags: str, polyfill: bool) -> str:
        """Publish a page with the given script tags; return its URL."""
        head = '<meta charset="utf-8"><link rel="icon" href="data:,"><title>Contractor</title>'
        if polyfill:
            head += '<script src="/polyfill.js"></script>'
        html = f"<!doctype html><html><head>{head}{''.join(tags)}</head><body><p>Our services</p></body></html>"
        self.pages[path] = html.encode("utf-8")
        return self.url + path

    def stop(self):
        self.server.shutdown()


@dataclass
class Visit:
    """One page in a fresh browser context, with everything its console said."""

    page: object
    errors: list = field(default_factory=list)
    requests: list = field(default_factory=list)


@pytest.fixture(scope="module")
def live(request):
    """The app on a real port."""
    with live_mcp(module_database(request)) as server:
        seed_webmcp_companies(server.upstream.catalog)
        result = server.mirror.sync()
        assert result.status == "success", result.error
        yield server


@pytest.fixture(scope="module")
def site():
    contractor = ContractorSite()
    yield contractor
    contractor.stop()


@pytest.fixture(scope="module")
def playwright():
    assert CHROMIUM.exists(), "Debian's chromium is missing: run `make browser` (scripts/install_browser.sh)"
    assert POLYFILL.exists(), "the WebMCP polyfill is missing: run `make tools`"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="module")
def browsers(playwright):
    """One browser per mode, launched on first use and shared by the module."""
    launched: dict = {}

    def get(mode: str):
        if mode not in launched:
            launched[mode] = playwright.chromium.launch(executable_path=str(CHROMIUM), args=BASE_ARGS + MODES[mode])
        return launched[mode]

    yield get
    for browser in launched.values():
        browser.close()


@contextmanager
def visit(browser, url: str):
    """Open `url` in a fresh context (its own cache); collect console errors and page errors."""
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(20_000)
    seen = Visit(page=page)
    page.on("console", lambda message: seen.errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: seen.errors.append(f"pageerror: {error}"))
    page.on("request", lambda req: seen.requests.append(req.url))
    try:
        page.goto(url, wait_until="load")
        yield seen
    finally:
        context.close()


def tag(live, key: str, query: str = "") -> str:
    return f'<script type="module" src="{live.url}/webmcp.js{query}" data-plugin-key="{key}"></script>'


def ready(seen: Visit, live, query: str = "") -> list[str]:
    """What the tag (this module instance) registered, once it has finished."""
    return seen.page.evaluate(READY, f"{live.url}/webmcp.js{query}")


def execute(seen: Visit, mode: str, name: str, arguments: dict):
    """Call a registered tool through the page's ModelContext; objects come back parsed."""
    raw = seen.page.evaluate(EXECUTE, [name, arguments, mode == "polyfill"])
    assert isinstance(raw, str), raw
    return json.loads(raw) if raw.startswith("{") else raw


def assert_quiet(seen: Visit) -> None:
    assert seen.errors == [], seen.errors


@pytest.fixture(params=list(MODES))
def mode(request):
    return request.param


def test_registers_the_mcp_servers_tools(live, site, browsers, mode):
    url = site.page(f"/tools-{mode}", tag(live, TUDI), polyfill=mode == "polyfill")
    with visit(browsers(mode), url) as seen:
        assert ready(seen, live) == TOOL_NAMES
        registered = seen.page.evaluate(LIST_TOOLS)
        is_polyfill = seen.page.evaluate("() => document.modelContext.__isWebMCPPolyfill === true")
        assert_quiet(seen)
    listed = {t["name"]: t for t in rpc(live.company_url(TUDI), "tools/list").json()["result"]["tools"]}
    assert sorted(t["name"] for t in registered) == sorted(listed)
    for tool in registered:
        assert tool["title"] == listed[tool["name"]]["title"]
        assert tool["description"] == listed[tool["name"]]["description"]
        assert tool["inputSchema"] == listed[tool["name"]]["inputSchema"]
        assert tool["annotations"]["readOnlyHint"] is True
        assert tool["annotations"]["untrustedContentHint"] is True
        if mode == "native":
            assert tool["annotations"]["consequentialHint"] is False
    assert is_polyfill == (mode == "polyfill"), "native mode must be Chromium's own WebMCP"


def test_tool_calls_answer_like_the_mcp_endpoint(live, site, browsers, mode):
    """search_catalog and check_service_area through the browser equal the direct MCP answers."""
    calls = [
        ("search_catalog", {"query": "MERV 13 air filter"}),
        ("search_catalog", {"query": "central air conditioner", "tier": "best", "max_price": 12000}),
        ("check_service_area", {"postal_code": "63376"}),
        ("check_service_area", {"postal_code": "90210"}),
    ]
    url = site.page(f"/calls-{mode}", tag(live, TUDI), polyfill=mode == "polyfill")
    with visit(browsers(mode), url) as seen:
        assert ready(seen, live) == TOOL_NAMES
        answers = [execute(seen, mode, name, arguments) for name, arguments in calls]
        error_text = execute(seen, mode, "check_service_area", {"postal_code": "63376", "radius": 5})
        assert_quiet(seen)
    for (name, arguments), answer in zip(calls, answers):
        assert answer == call_tool(live.company_url(TUDI), name, arguments)["structuredContent"], name
    assert answers[0]["results"][0]["sku"] == "ACC-FLT-M13"
    assert answers[2]["served"] is True and answers[3]["served"] is False
    direct_error = call_tool(live.company_url(TUDI), "check_service_area", {"postal_code": "63376", "radius": 5})
    assert direct_error["isError"] is True
    assert error_text == direct_error["content"][0]["text"], "a tool error comes back as its text"
    assert "radius" in error_text


@pytest.mark.parametrize("key", [UNKNOWN, WEBMCP_OFF, BOTH_OFF], ids=["unknown", "mcp on, webmcp off", "both off"])
def test_closed_keys_register_nothing_quietly(live, site, browsers, mode, key):
    url = site.page(f"/closed-{mode}-{key}", tag(live, key), polyfill=mode == "polyfill")
    with visit(browsers(mode), url) as seen:
        assert ready(seen, live) == []
        assert seen.page.evaluate(LIST_TOOLS) == []
        assert_quiet(seen)
    assert f"{live.url}/companies/{key}/webmcp.json" in seen.requests
    assert not any(u.endswith("/mcp") for u in seen.requests), "no tool call was needed to find out"


def test_mcp_off_keeps_the_embed_working(live, site, browsers, mode):
    """`mcp` off, `webmcp` on: every tool registers and answers, through the embed's own endpoint."""
    url = site.page(f"/mcp-off-{mode}", tag(live, MCP_OFF), polyfill=mode == "polyfill")
    with visit(browsers(mode), url) as seen:
        assert ready(seen, live) == TOOL_NAMES
        assert sorted(t["name"] for t in seen.page.evaluate(LIST_TOOLS)) == sorted(TOOL_NAMES)
        info = execute(seen, mode, "get_business_info", {})
        coverage = execute(seen, mode, "check_service_area", {"postal_code": "63376"})
        assert_quiet(seen)
    calls_url = f"{live.url}/companies/{MCP_OFF}/webmcp/mcp"
    assert info == call_tool(calls_url, "get_business_info", {})["structuredContent"]
    assert info["name"] and coverage["postal_code"] == "63376"
    assert rpc(live.company_url(MCP_OFF), "tools/list").status_code == 404, "remote agents stay shut out"
    assert seen.requests.count(calls_url) == 2
    assert not any(u == live.company_url(MCP_OFF) for u in seen.requests), "never the remote-agent endpoint"


def test_the_tag_twice_registers_once(live, site, browsers, mode):
    """Same URL twice (one module), plus the file under another URL (a second instance)."""
    tags = (tag(live, TUDI), tag(live, TUDI), tag(live, TUDI, "?v=2"))
    url = site.page(f"/twice-{mode}", *tags, polyfill=mode == "polyfill")
    with visit(browsers(mode), url) as seen:
        assert ready(seen, live) == TOOL_NAMES
        assert ready(seen, live, "?v=2") == TOOL_NAMES, "the second instance shares the first registration"
        assert sorted(t["name"] for t in seen.page.evaluate(LIST_TOOLS)) == sorted(TOOL_NAMES)
        answer = execute(seen, mode, "check_service_area", {"postal_code": "63385"})
        assert_quiet(seen)
    assert answer["served"] is True
    assert sum(u.endswith(f"/companies/{TUDI}/webmcp.json") for u in seen.requests) == 1


def test_two_keys_on_one_page_keep_the_first(live, site, browsers, mode):
    """Tool names are per page: a second contractor's tag is refused quietly."""
    url = site.page(f"/two-keys-{mode}", tag(live, TUDI), tag(live, TOGGLE, "?second"), polyfill=mode == "polyfill")
    with visit(browsers(mode), url) as seen:
        assert ready(seen, live) == TOOL_NAMES
        assert ready(seen, live, "?second") == []
        answer = execute(seen, mode, "get_business_info", {})
        assert_quiet(seen)
    assert answer["name"] == "Tudi Mechanical Systems"


def test_no_webmcp_is_quiet(live, site, browsers):
    """A browser without WebMCP: nothing registered, nothing fetched, nothing logged."""
    url = site.page("/plain", tag(live, TUDI), polyfill=False)
    with visit(browsers("polyfill"), url) as seen:
        assert seen.page.evaluate("() => typeof document.modelContext + typeof navigator.modelContext") == (
            "undefinedundefined"
        )
        assert ready(seen, live) == []
        assert_quiet(seen)
    assert [u for u in seen.requests if u.startswith(live.url)] == [f"{live.url}/webmcp.js"]


def test_tag_without_a_key_is_quiet(live, site, browsers, mode):
    bare = f'<script type="module" src="{live.url}/webmcp.js"></script>'
    url = site.page(f"/no-key-{mode}", bare, polyfill=mode == "polyfill")
    with visit(browsers(mode), url) as seen:
        assert ready(seen, live) == []
        assert_quiet(seen)


def test_key_from_the_query_string(live, site, browsers, mode):
    """Where the tag cannot carry data-plugin-key (e.g. an import), ?key= names the company."""
    module = f'<script type="module">import "{live.url}/webmcp.js?key={TUDI}";</script>'
    url = site.page(f"/query-key-{mode}", module, polyfill=mode == "polyfill")
    with visit(browsers(mode), url) as seen:
        assert ready(seen, live, f"?key={TUDI}") == TOOL_NAMES
        assert_quiet(seen)


def test_demo_page_works_under_its_csp(live, browsers):
    """The hosted demo with native WebMCP: tools registered, status shown, no CSP violation."""
    with visit(browsers("native"), f"{live.url}/companies/{TUDI}/webmcp-demo") as seen:
        status = seen.page.locator("#webmcp-status[data-state=registered]")
        status.wait_for()
        text = status.text_content()
        answer = execute(seen, "native", "check_service_area", {"postal_code": "63376"})
        assert_quiet(seen)
    assert text.startswith(f"Registered {len(TOOL_NAMES)} tools")
    assert answer["served"] is True


def test_withdrawn_catalog_unregisters_on_the_first_404(live, site, browsers, mode):
    """Switched off after the page loaded: the call fails and the tools disappear."""
    url = site.page(f"/withdrawn-{mode}", tag(live, TOGGLE), polyfill=mode == "polyfill")
    with visit(browsers(mode), url) as seen:
        assert ready(seen, live) == TOOL_NAMES
        set_channels(live, TOGGLE, webmcp=False)
        try:
            failure = seen.page.evaluate(
                f"async () => {{ try {{ await ({EXECUTE})(['get_business_info', {{}}, "
                f"{json.dumps(mode == 'polyfill')}]); return null; }} "
                "catch (e) { return e.name; } }"
            )
            remaining = seen.page.evaluate(LIST_TOOLS)
        finally:
            set_channels(live, TOGGLE, webmcp=True)
    assert failure is not None, "the call must fail"
    assert remaining == []


def test_mcp_switched_off_after_load_leaves_the_tools_working(live, site, browsers, mode):
    """The other switch: `mcp` off while the page is open changes nothing for the embed."""
    url = site.page(f"/mcp-later-{mode}", tag(live, TOGGLE), polyfill=mode == "polyfill")
    with visit(browsers(mode), url) as seen:
        assert ready(seen, live) == TOOL_NAMES
        set_channels(live, TOGGLE, mcp=False)
        try:
            answer = execute(seen, mode, "get_business_info", {})
            remaining = seen.page.evaluate(LIST_TOOLS)
            assert_quiet(seen)
        finally:
            set_channels(live, TOGGLE, mcp=True)
    assert answer["name"] == "Toggle Plumbing"
    assert sorted(t["name"] for t in remaining) == sorted(TOOL_NAMES)


# In the page: a chat widget on the contractor's own site asks the mirror's NLWeb /ask (a cross-origin JSON POST,
# so the browser sends a CORS preflight first).
ASK = """async ([url, question, stream]) => {
  const headers = {"Content-Type": "application/json"};
  if (stream) headers["Accept"] = "text/event-stream";
  const response = await fetch(url, {method: "POST", headers,
    body: JSON.stringify({query: {text: question}, prefer: {mode: "summarize"}})});
  return {status: response.status, type: response.headers.get("Content-Type"), body: await response.text()};
}"""


@pytest.mark.parametrize("stream", [False, True], ids=["json", "event-stream"])
def test_a_contractors_own_page_can_ask_the_mirror_across_origins(live, site, browsers, stream):
    import requests

    url = f"{live.url}/companies/{TUDI}/ask"
    question = "How much is central air?"
    with visit(browsers("polyfill"), site.page("/ask-widget", polyfill=False)) as seen:
        got = seen.page.evaluate(ASK, [url, question, stream])
        assert_quiet(seen)
    assert got["status"] == 200, got
    direct = requests.post(
        url,
        json={"query": {"text": question}, "prefer": {"mode": "summarize"}},
        headers={"Accept": "text/event-stream"} if stream else {},
        timeout=10,
    )
    assert got["type"] == direct.headers["Content-Type"]
    assert ("text/event-stream" in got["type"]) is stream
    assert "installed price" in got["body"] and "Central AC" in got["body"]
    assert got["body"] == direct.text  # the same answer a server-side client gets
