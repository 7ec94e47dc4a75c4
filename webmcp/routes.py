"""The WebMCP embed: GET /webmcp.js, its per-key switch, and the demo page.

- `GET /webmcp.js`: one ES module for every contractor, with the per-company
  tool definitions (from the MCP server's declarations) embedded. It is the
  same bytes for every key and host, so it is cached for a day and revalidated
  with a strong ETag over the body (which changes whenever a declaration does).
- `GET /companies/<key>/webmcp.json`: `{"enabled": true|false}`, the one check
  webmcp.js makes before registering. Unlike the other per-company surfaces it
  never answers 404: a 404 would put a red "Failed to load resource" line in
  the console of every contractor page whose key is switched off. The answer
  for unknown, not-public and switched-off keys is byte-identical.
- `GET /companies/<key>/webmcp-demo`: a page embedding the tag as a contractor
  would (the uniform HTML 404 when the embed is off for the key).

The embed is on for a company when it is public and its `webmcp` switch is
on, and nothing else: the tools call the embed's own endpoint,
`POST /companies/<key>/webmcp/mcp` (mcp_server/routes.py), which follows the
same switch, so the `mcp` switch (remote agents) neither opens nor closes it.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlsplit

from flask import Response, render_template

from agent_tools import webmcp_tool_definitions
from mirror.catalog.channels import Channel
from mirror.catalog.urls import WEBMCP_DEMO, WEBMCP_DEMO_JS, WEBMCP_JS, WEBMCP_SWITCH, flask_rule
from web.db import settings
from web.gate import gate, gate_state
from web.responses import conditional
from webmcp.blueprint import bp

CHANNEL = Channel.WEBMCP  # the one switch of the embed, its demo page and its tools' endpoint
SCRIPT_CACHE = "public, max-age=86400"  # one day, then a 304 revalidation
SWITCH_CACHE = "public, max-age=300"  # a switch change shows within five minutes
DEMO_CACHE = "public, max-age=300"
JS_MIMETYPE = "text/javascript"
TOOLS_PLACEHOLDER = "__WEBMCP_TOOLS__"
_HERE = Path(__file__).resolve().parent
# Characters that must not appear raw in JSON embedded in a script (an HTML
# parser would see `</script>`, `<!--`; `&` keeps the text paste-safe too).
_SCRIPT_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"}


def script_json(value) -> str:
    """JSON that is safe anywhere inside a script: ASCII only, no `<`, `>` or `&`."""
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    for raw, escaped in _SCRIPT_ESCAPES.items():
        text = text.replace(raw, escaped)
    return text


def render_embed(definitions: list[dict]) -> bytes:
    """The webmcp.js body with `definitions` embedded as a one-line JSON literal."""
    template = (_HERE / "embed.js").read_text(encoding="utf-8")
    return template.replace(TOOLS_PLACEHOLDER, script_json(definitions), 1).encode("utf-8")


@lru_cache(maxsize=1)
def embed_body() -> bytes:
    """The served webmcp.js (the declarations only change with a deploy)."""
    return render_embed(webmcp_tool_definitions())


@lru_cache(maxsize=1)
def demo_script_body() -> bytes:
    """The demo page's status module."""
    return (_HERE / "demo.js").read_bytes()


def embed_enabled(key: str) -> bool:
    """Public, with the `webmcp` switch on: exactly the gate of the tools' endpoint (web/gate.py)."""
    return gate_state().open_company(key, CHANNEL) is not None


@bp.get(flask_rule(WEBMCP_JS))
def webmcp_js() -> Response:
    """The drop-in module (CORS: module scripts from other sites are CORS fetches)."""
    return conditional(embed_body(), mimetype=JS_MIMETYPE, cache_control=SCRIPT_CACHE)


@bp.get(flask_rule(WEBMCP_DEMO_JS))
def webmcp_demo_js() -> Response:
    """The demo page's status line script."""
    return conditional(demo_script_body(), mimetype=JS_MIMETYPE, cache_control=SCRIPT_CACHE)


@bp.get(flask_rule(WEBMCP_SWITCH))
def webmcp_switch(key: str) -> Response:
    """Whether webmcp.js should register this key's tools (never a 404; see above)."""
    enabled = embed_enabled(key)
    body = json.dumps({"enabled": enabled}).encode("utf-8")
    return conditional(body, mimetype="application/json", cache_control=SWITCH_CACHE)


@bp.get(flask_rule(WEBMCP_DEMO))
def webmcp_demo(key: str) -> Response:
    """A page that embeds the tag for this key, for trying the tools."""
    company = gate(key, CHANNEL, html=True)  # what embed_enabled() decides, before any limit
    script_url = settings().absolute(WEBMCP_JS)
    html = render_template(
        "webmcp_demo.html",
        company_name=company.name,
        plugin_key=company.plugin_key,
        script_url=script_url,
        demo_script_url=settings().absolute(WEBMCP_DEMO_JS),
        tools=webmcp_tool_definitions(),
    )
    response = conditional(html.encode("utf-8"), mimetype="text/html", cache_control=DEMO_CACHE, cors=False)
    response.headers["Content-Security-Policy"] = demo_csp(script_url)
    return response


def demo_csp(script_url: str) -> str:
    """The site CSP, plus the embed's own origin for scripts and its calls."""
    parts = urlsplit(script_url)
    origin = f"{parts.scheme}://{parts.netloc}"
    return (
        f"default-src 'none'; script-src 'self' {origin}; connect-src 'self' {origin}; "
        "style-src 'unsafe-inline'; img-src https: data:; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    )
