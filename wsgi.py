"""The application factory; gunicorn serves `wsgi:app`.

`create_app()` reads the configuration, binds the mirror (database handles) to
the app, registers the public blueprints and the `flask --app wsgi ...`
commands. Nothing here does any work per request.
"""
from __future__ import annotations

import logging

from flask import Flask

from mirror.config import ConfigError, load_settings
from mirror.context import Mirror


def create_app(test_config: dict | None = None) -> Flask:
    """Build the app; `test_config` overrides environment variables by name."""
    import os

    env = dict(os.environ)
    env.update({k: str(v) for k, v in (test_config or {}).items()})
    settings = load_settings(env)

    app = Flask(__name__, template_folder="templates", static_folder=None)
    app.config.update(MAX_CONTENT_LENGTH=1024 * 1024)
    app.json.sort_keys = False  # Flask 2.3+ reads this, not the JSON_SORT_KEYS config key
    app.json.ensure_ascii = False
    mirror = Mirror(settings)
    app.extensions["mirror"] = mirror

    from web import db as web_db
    from web.errors import init_error_handling
    from mirror.render_cache import RenderCache
    from web.responses import strong_etag
    from web.sources import init_source_tracking

    app.teardown_appcontext(web_db.close_db)
    _init_operations(app, settings)
    init_error_handling(app)
    init_source_tracking(app, mirror.Session)
    app.extensions["render_cache"] = RenderCache(settings, etag=strong_etag)

    from feeds import bp as feeds_bp
    from mcp_server import bp as mcp_bp
    from webmcp import bp as webmcp_bp
    from a2a_server import init_app as init_a2a

    app.register_blueprint(feeds_bp)
    app.register_blueprint(mcp_bp)
    app.register_blueprint(webmcp_bp)
    init_a2a(app)

    from commands import init_app as init_commands

    init_commands(app)
    if settings.scheduler_enabled:
        from mirror.scheduler import start_background_scheduler

        start_background_scheduler(mirror)
    return app


def _init_operations(app: Flask, settings) -> None:
    """Proxy headers, metrics and the invocation log, rate limits, ops endpoints (issue 6).

    Installed first, so the request clock starts before any other hook and
    the invocation log sees each response in its final form.
    """
    from web.health import bp as ops_bp
    from web.health import register_database_errors
    from web.limits import init_rate_limits
    from web.observability import init_observability, register_usage_command

    if settings.trusted_proxy_hops:
        from werkzeug.middleware.proxy_fix import ProxyFix

        hops = settings.trusted_proxy_hops
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops)
    init_observability(app, settings)
    init_rate_limits(app, settings)
    app.register_blueprint(ops_bp)
    register_database_errors(app)
    register_usage_command(app)


def _build_default_app() -> Flask:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        return create_app()
    except ConfigError as error:
        raise SystemExit(f"configuration error: {error}") from None


app = _build_default_app()
