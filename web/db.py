"""The per-request database session (one snapshot per request)."""
from __future__ import annotations

from flask import current_app, g
from sqlalchemy.orm import Session


def db() -> Session:
    """This request's session, opened on first use and closed at teardown."""
    if "db" not in g:
        g.db = current_app.extensions["mirror"].Session()
    return g.db


def close_db(_error=None) -> None:
    """Teardown: end the request's transaction and return the connection."""
    session = g.pop("db", None)
    if session is not None:
        session.close()


def settings():
    """The app's mirror.config.Settings."""
    return current_app.extensions["mirror"].settings


def render_cache():
    """The app's mirror.render_cache.RenderCache (one per process)."""
    return current_app.extensions["render_cache"]
