"""The request_service quote card in headless Chromium, fed by the real provider server.

The card is served by resources/read and rendered two ways a host does it:
an MCP Apps host (iframe + `ui/*` postMessage bridge, the card's tool calls
forwarded to the real server) and ChatGPT's `window.openai` globals. The
strict CSP its `_meta` declares (no connect or resource domains) is enforced,
and the card must make no network request at all.
"""

from __future__ import annotations

import json

import pytest
import requests
from playwright.sync_api import sync_playwright

from tests.mcp_helpers import HEADERS, TUDI, live_mcp, module_database, rpc

pytestmark = pytest.mark.browser
# The MCP Apps restrictive default, minus 'self': the card needs nothing else.
STRICT_CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; "
    "connect-src 'none'; frame-src 'none'; base-uri 'none'"
)
HOST_PAGE = """<!doctype html><html><body><iframe id="app" style="width:600px;height:700px"></iframe><script>
window.hostLog = []; window.openedLinks = [];
function reply(frame, id, result) { frame.contentWindow.postMessage({jsonrpc: "2.0", id: id, result: result}, "*"); }
window.start = function (html, toolResult) {
  const frame = document.getElementById("app");
  window.addEventListener("message", async (event) => {
    if (event.source !== frame.contentWindow) { return; }
    const m = event.data; window.hostLog.push(m.method || "response");
    if (m.method === "ui/initialize") {
      reply(frame, m.id, {protocolVersion: "2026-01-26", hostInfo: {name: "test-host", version: "1"},
                          hostCapabilities: {openLinks: {}, serverTools: {}}, hostContext: {theme: "light"}});
    } else if (m.method === "ui/notifications/initialized") {
      const card = frame.contentWindow;
      const input = {business_id: toolResult.structuredContent.provider_business_id};
      card.postMessage({jsonrpc: "2.0", method: "ui/notifications/tool-input", params: {arguments: input}}, "*");
      card.postMessage({jsonrpc: "2.0", method: "ui/notifications/tool-result", params: toolResult}, "*");
    } else if (m.method === "tools/call") {
      reply(frame, m.id, await window.forwardToolCall(m.params));
    } else if (m.method === "ui/open-link") {
      window.openedLinks.push(m.params.url); reply(frame, m.id, {});
    }
  });
  frame.srcdoc = html;
};
</script></body></html>"""


@pytest.fixture(scope="module")
def live(request):
    with live_mcp(module_database(request)) as server:
        yield server


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        yield chromium
        chromium.close()


@pytest.fixture
def card(live):
    """The widget HTML (under the strict CSP) and a real request_service result."""
    read = rpc(live.provider_url, "resources/read", {"uri": "ui://widget/request-service.html"}).json()["result"]
    html = read["contents"][0]["text"]
    strict = html.replace("<head>", f'<head><meta http-equiv="Content-Security-Policy" content="{STRICT_CSP}">', 1)
    result = rpc(live.provider_url, "tools/call", {"name": "request_service", "arguments": {"business_id": TUDI}})
    return strict, result.json()["result"]


@pytest.fixture
def page(browser, live):
    context = browser.new_context()
    page = context.new_page()
    page.problems = []
    page.on("console", lambda message: message.type == "error" and page.problems.append(message.text))
    page.on("pageerror", lambda error: page.problems.append(str(error)))
    page.on("request", lambda request: request.url.startswith(("about:", "data:")) or page.problems.append(request.url))

    def forward(params: dict) -> dict:  # the host relays the card's tools/call to the real server
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
        return requests.post(live.provider_url, data=json.dumps(body), headers=HEADERS, timeout=10).json()["result"]

    page.expose_function("forwardToolCall", forward)
    yield page
    context.close()


def check_card(frame, result: dict) -> None:
    data = result["structuredContent"]
    frame.wait_for_selector("#card:not([hidden])")
    assert frame.inner_text("#name") == "Tudi Mechanical Systems"
    assert frame.inner_text("#address") == data["address"]["formatted"]
    assert frame.get_attribute("#phone", "href") == "tel:+13145551234"
    assert frame.get_attribute("#quote", "href") == data["quote_url"]
    rows = frame.locator("#prices tbody tr")
    assert rows.count() == len(data["categories"])
    central = [rows.nth(i).inner_text() for i in range(rows.count()) if "Central AC" in rows.nth(i).inner_text()]
    assert central == ["Central AC\t$7,800.00 – $13,500.50"]
    assert "HOSTILE" not in frame.content() and "<script>alert" not in frame.content()


def test_card_renders_through_the_mcp_apps_bridge(page, card):
    html, result = card
    page.set_content(HOST_PAGE)
    page.evaluate("([html, result]) => window.start(html, result)", [html, result])
    frame = page.wait_for_selector("#app").content_frame()
    check_card(frame, result)
    log = page.evaluate("window.hostLog")
    assert log[:2] == ["ui/initialize", "ui/notifications/initialized"]
    frame.fill("#zip-input", "63376-1234")
    frame.click("#zip button")
    frame.locator("#zip-result", has_text="serves 63376").wait_for()
    frame.click("#quote")
    page.wait_for_function("window.openedLinks.length === 1")
    assert page.evaluate("window.openedLinks") == [result["structuredContent"]["quote_url"]]
    assert page.problems == []


def test_card_falls_back_to_window_openai(page, card):
    html, result = card
    # ChatGPT installs window.openai before the card's script runs.
    output = json.dumps(result["structuredContent"])
    page.add_init_script(
        f"window.openai = {{toolOutput: {output}, "
        "callTool: (name, args) => window.forwardToolCall({name, arguments: args})};"
    )
    page.goto("about:blank")  # a new document, so the init script runs first
    page.set_content(html)
    check_card(page, result)
    page.fill("#zip-input", "10001")
    page.click("#zip button")
    page.locator("#zip-result", has_text="does not list 10001").wait_for()
    page.fill("#zip-input", "nope")
    page.click("#zip button")
    page.locator("#zip-result", has_text="postal_code").wait_for()
    assert page.problems == []
