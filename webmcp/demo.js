// The WebMCP demo page's status line: which tools the embed registered here.
// It imports the same module URL as the page's tag, so it shares that instance.
import { ready } from "./webmcp.js";

const status = document.getElementById("webmcp-status");
const hasWebMCP = Boolean(document.modelContext || navigator.modelContext);

ready.then((names) => {
  if (!status) return;
  status.dataset.state = names.length ? "registered" : "none";
  status.textContent = names.length
    ? `Registered ${names.length} tools in this page: ${names.join(", ")}.`
    : hasWebMCP
      ? "WebMCP is available, but no tools were registered."
      : "This browser has no WebMCP (document.modelContext), so nothing was registered.";
});
