"""The tool declarations: one `ToolSpec` per tool, read by tools/list, validation and webmcp.js.

`COMPANY_TOOLS` are the per-company catalog tools (also registered in the
visitor's browser by webmcp.js); `PROVIDER_TOOLS` are the install-wide
launcher tools.
"""

from agent_tools.company import COMPANY_TOOLS, CompanyContext
from agent_tools.declaration import ToolError, ToolSpec, tool_error, tool_success
from agent_tools.provider import PROVIDER_TOOLS, WIDGET_URI, ProviderContext


def webmcp_tool_definitions() -> list[dict]:
    """The per-company tools as WebMCP registerTool definitions (without `execute`).

    Same names, titles, descriptions (each ending in a "Returns:" summary, as
    WebMCP has no output schema) and input schemas as tools/list; annotations
    are the MCP hints plus readOnlyHint, consequentialHint false and
    untrustedContentHint true.
    """
    return [tool.webmcp_definition() for tool in COMPANY_TOOLS]


__all__ = [
    "COMPANY_TOOLS",
    "PROVIDER_TOOLS",
    "WIDGET_URI",
    "CompanyContext",
    "ProviderContext",
    "ToolError",
    "ToolSpec",
    "tool_error",
    "tool_success",
    "webmcp_tool_definitions",
]
