"""JSON answers, as both the platform API and the admin API of the demo upstream send them."""

from __future__ import annotations

import json
from typing import Any

from werkzeug.http import HTTP_STATUS_CODES
from werkzeug.wrappers import Response


def json_response(status: int, payload: Any, headers: dict | None = None) -> Response:
    """A compact JSON response."""
    body = json.dumps(payload, separators=(",", ":")).encode()
    return Response(body, status=status, headers=headers, content_type="application/json")


def error_name(status: int | None) -> str:
    """The error name of an HTTP status ("not_found", "internal_server_error", ...)."""
    return HTTP_STATUS_CODES.get(status or 500, "error").lower().replace(" ", "_")
