"""The per-request database session (one snapshot per request)."""

from __future__ import annotations

import logging

from flask import current_app, g
from sqlalchemy.orm import Session

log = logging.getLogger(__name__)


def db() -> Session:
    """This request's session, opened on first use and closed at teardown.

    It reads from `Mirror.Session`: the replica when DATABASE_READ_URL is set
    (mirror/service/context.py), so nothing a request does may write through it; the
    rows a request leaves behind go to the primary through web.recording.
    """
    if "db" not in g:
        g.db = current_app.extensions["mirror"].Session()
    return g.db


def end_request_session() -> None:
    """End the request's transaction and return the connection, while the answer can still change.

    Called once the view (or its error handler) has answered and before the
    response is final (web.errors.finish_response), so a database that fails
    here (a connection lost before the ROLLBACK) is answered like any other
    database failure: the documented 503.
    """
    session = g.pop("db", None)
    if session is None:  # a warm request never opens one (the gate state and the render cache answer it)
        return
    try:
        session.close()
    except Exception:
        _discard(session)
        raise


def close_db(_error=None) -> None:
    """Teardown: close a session opened after the response was finished (normally there is none).

    Too late to change the answer, so a failure is logged, never raised: a
    raise here would reach the server as its HTML 500.
    """
    session = g.pop("db", None)
    if session is None:
        return
    try:
        session.close()
    except Exception:  # too late to change the answer: log it
        log.warning("database session did not close cleanly at teardown", exc_info=True)
        _discard(session)


def _discard(session: Session) -> None:
    # The connection is unusable: make sure the pool never hands it out again.
    try:
        session.invalidate()
    except Exception:  # the connection is gone: nothing left to report to
        log.debug("session invalidate failed", exc_info=True)


def settings():
    """The app's mirror.runtime.config.Settings."""
    return current_app.extensions["mirror"].settings


def render_cache():
    """The app's mirror.render.cache.RenderCache (one per process)."""
    return current_app.extensions["render_cache"]
