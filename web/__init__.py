"""HTTP plumbing shared by every public surface: the gate, responses, errors,
rate limits, the operations endpoints, the invocation log and source tracking.

`init_app(app)` installs it all on an app whose mirror is already bound.
"""

from __future__ import annotations

from flask import Flask

from mirror.render.cache import RenderCache
from web import db, deadline, errors, health, limits, observability, sources
from web.proxies import TrustedProxies
from web.recording import RecordWriter
from web.responses import Response, strong_etag


def init_app(app: Flask) -> None:
    """Hooks, error handlers, the ops blueprint and the per-app state, in the order that matters.

    Observability comes first: its request clock starts before any other
    before-request hook, and its after-request hook (Flask runs them in
    reverse) is the last, so the invocation log sees each response in its
    final form.
    """
    mirror = app.extensions["mirror"]
    settings = mirror.settings
    writer = RecordWriter(settings.database_url)
    mirror.on_dispose(writer.close)  # tests and forks dispose the mirror: no rows left behind, no connection
    # One writer; both features' callers (tests, shutdown) know it by their own name.
    app.extensions["invocation_recorder"] = app.extensions["source_recorder"] = writer
    app.extensions["render_cache"] = RenderCache(settings, etag=strong_etag, documents=mirror.documents)
    app.teardown_appcontext(db.close_db)

    _trust_proxies(app, settings)
    app.response_class = Response  # web.responses: sent without Werkzeug's second copy of the headers
    observability.init_observability(app, settings, writer)
    deadline.init_deadline(app, settings)  # the request's clock starts before any work (the gate, the limits)
    limits.init_rate_limits(app, settings)
    app.register_blueprint(health.bp)
    health.register_database_errors(app)
    errors.init_error_handling(app)
    sources.init_source_tracking(app, writer)


def _trust_proxies(app: Flask, settings) -> None:
    """Take the client's address and scheme from X-Forwarded-* as far as trusted proxies sent them (web/proxies.py)."""
    if settings.trusted_proxy_hops:
        app.wsgi_app = TrustedProxies(app.wsgi_app, settings.trusted_proxies, settings.trusted_proxy_hops)
