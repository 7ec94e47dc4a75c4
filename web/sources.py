"""Source tracking: `?source=LABEL` on any request is recorded off the request path.

The hook only queues a row for the app's one background writer
(web/recording.py), which also writes the invocation log: recording can never
change a status or body, never fail a request and never wait on the database.
If the queue is full, the hit is dropped and counted rather than slowing the
request.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from flask import Flask, Response, request

from mirror.store.models import SourceHit
from web.gate import gate_result
from web.recording import RecordWriter

log = logging.getLogger(__name__)
LABEL_MAX = 64
ENDPOINT_MAX = 255

UNMATCHED = "<unmatched>"  # the recorded path of a request no route matched


def requested_label() -> str:
    """This request's `?source=` value as sent ("" when there is none).

    Most requests carry no query string at all, and `request.args` parses
    one into a MultiDict on first use: a query string that holds neither
    `source` nor a percent escape (an escaped name could decode to it) has
    no such parameter, so it is not parsed for this.
    """
    query = request.environ.get("QUERY_STRING", "")
    if "source" not in query and "%" not in query:
        return ""
    return request.args.get("source", "")


def clean_label(raw: str) -> str:
    """The first 64 characters, without NULs (Postgres text refuses them)."""
    return raw.replace("\x00", "")[:LABEL_MAX]


def source_hit(label: str, endpoint: str, method: str, status: int) -> dict:
    """One `source_hits` row, cut to the columns' sizes."""
    return {
        "label": clean_label(label),
        "endpoint": endpoint.replace("\x00", "")[:ENDPOINT_MAX],
        "method": method[:8],
        "status": status,
        "recorded_at": datetime.now(UTC),
    }


def recorded_endpoint() -> str:
    """What a hit stores as its path: the matched route, never the raw request path.

    A key the gate let through is written into its route (the report counts
    per company); any other key stays `<key>`, and an unmatched path is
    `<unmatched>`, so no attacker-chosen text is stored as a path.
    """
    rule = request.url_rule
    if rule is None:
        return UNMATCHED
    passed = gate_result()
    if passed is not None and passed.company_key is not None:
        return rule.rule.replace("<key>", passed.company_key)
    return rule.rule


def init_source_tracking(app: Flask, writer: RecordWriter) -> None:
    """Record every response (redirects included) of a request that names a source."""

    @app.after_request
    def _record_source(response: Response) -> Response:
        try:
            label = requested_label()
            if label.strip():
                writer.record(SourceHit, source_hit(label, recorded_endpoint(), request.method, response.status_code))
        except Exception:  # a malformed query string must not break the response
            log.debug("source label not recorded", exc_info=True)
        return response
