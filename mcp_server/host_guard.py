"""The DNS-rebinding check runs first on every MCP path, however it is spelled.

Any request whose path, with runs of slashes merged and a trailing slash
dropped, ends in `/mcp` (`/mcp`, `//mcp`, `/companies//KEY/mcp/`,
`/companies/KEY/ucp//mcp`, ...) and whose Host is not ours answers 421
before routing matters and before any other work (the gate, rate limits,
body parsing). Spellings with extra slashes match no route, so with an
allowed Host they are the normal 404; none is ever redirected.
"""

from __future__ import annotations

import re

from flask import Response, request

from mcp_server.blueprint import bp
from mcp_server.hosts import host_allowed
from mcp_server.transport import misdirected
from web.db import settings

_SLASHES = re.compile(r"/{2,}")


def is_mcp_path(path: str) -> bool:
    """Whether a request path names an MCP endpoint in any slash spelling."""
    merged = _SLASHES.sub("/", path).rstrip("/")
    return merged == "/mcp" or merged.endswith("/mcp")


@bp.before_app_request
def refuse_foreign_host() -> Response | None:
    """421 for an MCP path under a Host that is not ours (see the module docstring)."""
    if not is_mcp_path(request.path) or host_allowed(request.host, settings()):
        return None
    return misdirected()
