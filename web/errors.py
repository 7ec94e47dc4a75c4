"""Every refusal is a clear JSON 4xx; nothing echoes a stack trace; security headers everywhere.

Two rules keep the answer honest:

- no redirect is ever built from the request's Host: Werkzeug's routing
  redirects (merged slashes, a missing trailing slash, defaults) would answer
  308 with a Location made of whatever Host the client sent, an open redirect
  and a cache-poisoning vector behind a proxy; they are off, so such a path
  is simply not one of ours (the normal JSON 404);
- the response is finished before any after-request hook sees it
  (`finish_response`): the request's database session is closed then, and the
  headers are encoded for the wire, so a failure there (a connection lost at
  ROLLBACK, a Location Werkzeug cannot encode) becomes the documented 503 or a
  JSON 500 that the metrics, the invocation log and the source log record,
  instead of the server's HTML 500 after they logged a success.
"""

from __future__ import annotations

import logging

from flask import Flask, Response, request
from werkzeug.exceptions import HTTPException

from mirror.catalog.urls import image_schemes
from web.db import end_request_session
from web.responses import header_values, json_error

log = logging.getLogger(__name__)


def html_csp(public_base_url: str) -> str:
    """The Content-Security-Policy of every HTML answer: no script, inline styles, images of `image_schemes` only."""
    images = " ".join(f"{scheme}:" for scheme in image_schemes(public_base_url))
    return (
        f"default-src 'none'; style-src 'unsafe-inline'; img-src {images} data:; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )


def init_error_handling(app: Flask) -> None:
    """JSON errors for HTTP exceptions and crashes, plus nosniff and a CSP on HTML."""
    csp = html_csp(app.extensions["mirror"].settings.public_base_url)
    app.url_map.merge_slashes = False
    app.url_map.strict_slashes = False
    app.url_map.redirect_defaults = False
    # Flask finalises every answer (a view's or an error handler's) through
    # app.process_response, which runs the after-request hooks: the one point
    # between "answered" and "observed", so the finishing step goes in front.
    run_after_request_hooks = app.process_response

    def process_response(response: Response) -> Response:
        return run_after_request_hooks(finish_response(app, response))

    app.process_response = process_response

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
        headers = response.headers
        present = header_values(headers)
        if "x-content-type-options" not in present:
            headers.add("X-Content-Type-Options", "nosniff")
        # The media type as `response.mimetype` reads it, without parsing the parameters.
        if present.get("content-type", "").split(";", 1)[0].strip().lower() == "text/html":
            if "content-security-policy" not in present:
                headers.add("Content-Security-Policy", csp)
            if "referrer-policy" not in present:
                headers.add("Referrer-Policy", "strict-origin-when-cross-origin")
        return response


def finish_response(app: Flask, response: Response) -> Response:
    """The response as it will be sent: the session closed and the headers encodable, else the error's answer."""
    try:
        end_request_session()
    except Exception as error:  # answered by the app's own handlers (503 for the database)
        response = _answer_for(app, error)
    try:
        # Only a Location or Content-Location can fail to encode (their IRI
        # is made a URI, joined with the request's URL); other headers were
        # validated when set, so most answers skip this second pass.
        present = header_values(response.headers)
        if "location" in present or "content-location" in present:
            response.get_wsgi_headers(request.environ)
    except Exception:  # e.g. "Port out of range" while encoding a Location
        log.exception("response to %s %s cannot be sent as built", request.method, request.path)
        response = json_error(500, "internal_error", "Something went wrong on our side.")
    return response


def _answer_for(app: Flask, error: Exception) -> Response:
    try:
        return app.make_response(app.handle_user_exception(error))
    except Exception:  # no handler took it
        log.exception("unhandled error finishing %s %s", request.method, request.path)
        return json_error(500, "internal_error", "Something went wrong on our side.")


def _slug(name: str) -> str:
    return name.lower().replace(" ", "_").replace("-", "_")
