"""Response helpers: JSON with CORS, the uniform 404, ETags and conditional GETs."""

from __future__ import annotations

import hashlib
import json
import re

import flask
from flask import render_template, request

from mirror.values.jsontext import dumps


class Response(flask.Response):
    """The app's response class: Werkzeug's, without its header copy where the copy would change nothing.

    Just before sending, Werkzeug copies every header into a new Headers
    object (validating each again) so it can make a Location absolute, drop
    Content-Length from a 1xx, 204 or 304, and add a missing
    Content-Length. A response with none of those cases (a 2xx, 3xx or
    4xx/5xx other than 204 and 304 that already carries its Content-Length
    and no Location or Content-Location: nearly every answer here) would get
    an identical copy, so its own headers are sent as they are.
    """

    def get_wsgi_headers(self, environ):
        status = self.status_code
        if status >= 200 and status not in (204, 304):
            names = header_values(self.headers)
            if "content-length" in names and "location" not in names and "content-location" not in names:
                return self.headers  # the response is final: nothing changes them after this
        return super().get_wsgi_headers(environ)


def header_values(headers) -> dict[str, str]:
    """Each header's first value by lower-case name, in one pass over the list.

    Asking Werkzeug's Headers for a name it lacks (`in`, `setdefault`)
    raises and catches an HTTP exception inside; the after-request hooks
    asked three such questions of every response (a few percent of a warm
    request).
    """
    found: dict[str, str] = {}
    for name, value in headers:
        found.setdefault(name.lower(), value)
    return found


NOT_FOUND_BODY = json.dumps({"error": "not_found", "message": "No such company."})
_ETAG_RE = re.compile(r'\s*(?:W/)?("[^"]*"|\*)\s*(?:,|$)')


def json_response(payload, status: int = 200, *, headers: dict | None = None, mimetype="application/json") -> Response:
    """Serialise to compact UTF-8 JSON with `Access-Control-Allow-Origin: *`."""
    body = payload if isinstance(payload, (str, bytes)) else dumps(payload)
    response = Response(body, status=status, mimetype=mimetype)
    response.headers["Access-Control-Allow-Origin"] = "*"
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def cors_preflight(allow_headers: str, allow_methods: str = "POST, OPTIONS") -> Response:
    """204 to a browser's CORS preflight, open to any origin (a surface with an allow-list narrows the origin)."""
    response = Response(status=204)
    response.headers["Access-Control-Allow-Origin"] = "*"
    response.headers["Access-Control-Allow-Methods"] = allow_methods
    response.headers["Access-Control-Allow-Headers"] = allow_headers
    response.headers["Access-Control-Max-Age"] = "86400"  # a day: the answer never varies by request
    return response


def json_error(status: int, error: str, message: str, **extra) -> Response:
    """A small JSON error body; every refusal is one of these."""
    return json_response({"error": error, "message": message, **extra}, status)


def not_found_json() -> Response:
    """The one 404 for unknown, not-public and switched-off companies (JSON surfaces)."""
    return json_response(NOT_FOUND_BODY, 404)


def not_found_html() -> Response:
    """The one 404 for HTML surfaces."""
    response = Response(render_template("not_found.html"), status=404, mimetype="text/html")
    return response


def strong_etag(body: bytes) -> str:
    """A strong validator over every byte of a body."""
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def if_none_match_hits(etag: str) -> bool:
    """RFC 9110 weak comparison of If-None-Match (a list, W/ tags, `*`) with our tag."""
    header = request.headers.get("If-None-Match")
    if not header or len(header) > 8192:
        return False
    ours = etag.removeprefix("W/")
    if header == ours:  # what a poller sends back: the tag it was given
        return True
    for match in _ETAG_RE.finditer(header):
        tag = match.group(1)
        if tag == "*" or tag == ours:
            return True
    return False


def conditional(
    body: bytes,
    *,
    mimetype: str,
    cache_control: str,
    etag: str | None = None,
    cors: bool = True,
    expose_etag: bool = False,
) -> Response:
    """200 with an ETag, or 304 with no body when If-None-Match matches.

    With a stored ETag (the render cache keeps one with every body) the 304
    is decided from the tag alone and carries no body. The headers are
    handed to the Response whole: one list, not one validated set per header.
    `expose_etag` lets browser clients read the validator cross-origin.
    """
    etag = etag or strong_etag(body)
    headers = [("ETag", etag), ("Cache-Control", cache_control)]
    if cors:
        headers.append(("Access-Control-Allow-Origin", "*"))
    if expose_etag:
        headers.append(("Access-Control-Expose-Headers", "ETag"))
    if if_none_match_hits(etag):
        # The 304 states the media type of the body it stands for: the headers
        # that follow from it (web/errors.py: CSP and Referrer-Policy on HTML
        # only) are then the 200's, and Werkzeug leaves Content-Type itself off
        # the wire. A 304 without it would default to text/html.
        return Response(status=304, headers=headers, mimetype=mimetype)
    return Response(body, status=200, headers=headers, mimetype=mimetype)
