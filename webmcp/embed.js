// webmcp.js: registers one contractor's catalog tools for WebMCP agents in this page.
//
//   <script type="module" src="https://HOST/webmcp.js" data-plugin-key="KEY"></script>
//
// The tool definitions below are generated from the MCP server's own
// declarations (same names, titles, descriptions, input schemas and hints).
// Each tool's execute() forwards a tools/call to the embed's own endpoint,
// companies/KEY/webmcp/mcp (the contractor's catalog server, gated by the
// WebMCP switch alone, so switching off remote MCP agents leaves the embed
// working), on the site this file was loaded from (found from
// import.meta.url). Nothing here ever throws into the host page: without
// WebMCP, without a key, or for a key whose WebMCP switch is off, it
// registers nothing, quietly.
const TOOLS = __WEBMCP_TOOLS__;
// The revision the calls speak: mcp_server/jsonrpc.py's LATEST_LEGACY_VERSION
// (tests/webmcp/test_webmcp.py holds the two equal; webmcp/ cannot import the MCP server).
const MCP_VERSION = "2025-11-25";
const GUARD = Symbol.for("webmcp.js registrations");
const SCRIPT_URL = new URL(import.meta.url);
// The embed's call endpoint, under companies/KEY/ (mcp_server/routes.py WEBMCP_CALLS).
const CALLS = "webmcp/mcp";

/** Resolves (never rejects) with the names of the tools this tag registered. */
export const ready = start().catch(() => []);

async function start() {
  const context = modelContext();
  const key = context ? pluginKey() : null;
  if (!key) return [];
  // Next to this file (the site's origin, plus any path prefix it is served under).
  const base = new URL(`companies/${encodeURIComponent(key)}`, SCRIPT_URL).href;
  // The tag twice (or this file under two URLs) registers once per key, and
  // different keys take turns in the order their tags ran, so when two
  // contractors' tags share a page the first tag wins, whatever answers first.
  const page = globalThis[GUARD] || (globalThis[GUARD] = { byBase: new Map(), turn: Promise.resolve() });
  if (!page.byBase.has(base)) {
    const registered = page.turn.then(() => registerIfEnabled(context, base));
    page.turn = registered.catch(() => []);
    page.byBase.set(base, registered);
  }
  return page.byBase.get(base);
}

function modelContext() {
  // The draft puts it on document; older builds and polyfills on navigator.
  const context = (typeof document === "object" && document.modelContext) ||
    (typeof navigator === "object" && navigator.modelContext);
  return context && typeof context.registerTool === "function" ? context : null;
}

function pluginKey() {
  // Module scripts have no document.currentScript: find our own tag by URL.
  for (const script of document.querySelectorAll("script[src][data-plugin-key]")) {
    const key = script.src === import.meta.url ? script.dataset.pluginKey.trim() : "";
    if (key) return key;
  }
  return (SCRIPT_URL.searchParams.get("key") || "").trim() || null;
}

async function registerIfEnabled(context, base) {
  if (!(await webmcpEnabled(base))) return [];
  const registration = new AbortController();
  const outcomes = await Promise.allSettled(TOOLS.map((definition) => Promise.resolve().then(() =>
    context.registerTool(tool(definition, base, registration), { signal: registration.signal }))));
  // A rejection (a same-named tool already on the page) leaves the page as it was.
  return TOOLS.filter((_, index) => outcomes[index].status === "fulfilled").map((definition) => definition.name);
}

async function webmcpEnabled(base) {
  // Always 200 (enabled true or false), so a switched-off key logs no error.
  const response = await fetch(`${base}/webmcp.json`, { credentials: "omit" });
  return response.ok && (await response.json()).enabled === true;
}

function tool(definition, base, registration) {
  return {
    ...definition,
    execute: (input, options) => callTool(base, definition.name, input, options && options.signal, registration),
  };
}

let nextId = 1;

async function callTool(base, name, input, signal, registration) {
  // Stateless MCP: one tools/call per POST, no initialize, no session.
  // clientInfo under the _meta key MCP defines for it tells the server's invocation log these are WebMCP calls.
  const _meta = { "io.modelcontextprotocol/clientInfo": { name: "webmcp.js", version: "1" } };
  const params = { name, arguments: input == null ? {} : input, _meta };
  const call = { jsonrpc: "2.0", id: nextId++, method: "tools/call", params };
  const response = await fetch(`${base}/${CALLS}`, {
    method: "POST",
    credentials: "omit",
    signal,
    headers: { "Content-Type": "application/json", Accept: "application/json", "MCP-Protocol-Version": MCP_VERSION },
    body: JSON.stringify(call),
  });
  if (response.status === 404) {
    registration.abort(); // the catalog (or its WebMCP switch) was withdrawn since the page loaded
    throw new Error("This contractor's catalog is no longer available; its tools were removed.");
  }
  const message = await response.json().catch(() => null);
  if (message && message.error) throw new Error(`The catalog server refused the call: ${message.error.message}`);
  if (!response.ok || !message || !message.result) {
    throw new Error(`The catalog server answered HTTP ${response.status}.`);
  }
  const result = message.result;
  // A tool error is returned, not thrown: the draft turns a rejection into a
  // bare UnknownError, and the agent needs the text to correct its call.
  return result.isError || result.structuredContent === undefined ? textOf(result) : result.structuredContent;
}

function textOf(result) {
  return (result.content || []).filter((part) => part.type === "text").map((part) => part.text).join("\n");
}
