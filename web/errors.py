"""Every refusal is a clear JSON 4xx; nothing echoes a stack trace; security headers everywhere."""
from __future__ import annotations

import logging

from flask import Flask, Response, request
from werkzeug.exceptions import HTTPException

from web.responses import json_error

log = logging.getLogger(__name__)
HTML_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


def init_error_handling(app: Flask) -> None:
    """JSON errors for HTTP exceptions and crashes, plus nosniff and a CSP on HTML."""

    @app.errorhandler(HTTPException)
    def _http_error(error: HTTPException) -> Response:
        response = json_error(error.code or 500, _slug(error.name), error.description or error.name)
        if error.code == 405 and getattr(error, "valid_methods", None):
            response.headers["Allow"] = ", ".join(error.valid_methods)
        return response

    @app.errorhandler(Exception)
    def _crash(error: Exception) -> Response:
        log.exception("unhandled error on %s %s", request.method, request.path)
        return json_error(500, "internal_error", "Something went wrong on our side.")

    @app.after_request
    def _security_headers(response: Response) -> Response:
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        if response.mimetype == "text/html":
            response.headers.setdefault("Content-Security-Policy", HTML_CSP)
            response.headers.setdefault("Referrer-Policy", "strict-origin-when-cross-origin")
        return response


def _slug(name: str) -> str:
    return name.lower().replace(" ", "_").replace("-", "_")
