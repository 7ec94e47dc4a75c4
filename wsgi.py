"""The application factory: gunicorn serves `'wsgi:create_app()'`; `flask --app wsgi` finds it too.

Nothing is built at import. `create_app()` reads the settings, binds the
mirror (database handles) to the app, then lets each package install itself
(`init_app`: its blueprint, CLI commands and per-app state). Nothing here
does any work per request.
"""

from __future__ import annotations

import logging
import os

from flask import Flask

import a2a_server
import commands
import demo
import discovery
import feeds
import mcp_server
import nlweb_server
import web
import webmcp
from mirror.runtime.config import Settings, settings_or_exit
from mirror.service.context import Mirror


def create_app(test_config: dict | None = None) -> Flask:
    """Build the app; `test_config` overrides environment variables by name."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings = _settings(test_config)
    app = Flask(__name__, template_folder="templates", static_folder=None)
    app.config.update(MAX_CONTENT_LENGTH=1024 * 1024)
    app.json.sort_keys = False  # payloads keep the field order the contracts publish
    app.json.ensure_ascii = False
    app.extensions["mirror"] = mirror = Mirror(settings)

    web.init_app(app)  # first: the request clock and the invocation log wrap every surface
    feeds.init_app(app)
    mcp_server.init_app(app)
    webmcp.init_app(app)
    a2a_server.init_app(app)
    nlweb_server.init_app(app)
    commands.init_app(app)
    discovery.init_app(app)  # above the surfaces: it describes them
    demo.init_app(app)  # the demo upstream's own command (`make run` and the tests serve it)

    if settings.scheduler_enabled:
        from mirror.service.scheduler import start_background_scheduler

        start_background_scheduler(mirror)
    return app


def _settings(test_config: dict | None) -> Settings:
    """The environment's settings, `test_config` winning; a bad value exits with one line naming it."""
    env = dict(os.environ)
    env.update({k: str(v) for k, v in (test_config or {}).items()})
    return settings_or_exit(env)  # the CLI and gunicorn print its line, not a traceback
