"""Source tracking: `?source=LABEL` on any request is recorded off the request path.

The request thread only appends to a bounded in-memory queue; a background
thread writes batches. Recording can therefore never change a status or body,
never fail a request and never wait on the database (during a long SQLite sync
write, the writer thread waits instead). If the queue is full, the hit is
dropped and counted rather than slowing the request.
"""
from __future__ import annotations

import logging
import queue
import threading
from datetime import datetime, timezone

from flask import Flask, Response, request
from sqlalchemy import insert

from mirror.models import SourceHit
from web.gate import gate_result

log = logging.getLogger(__name__)
LABEL_MAX = 64
ENDPOINT_MAX = 255


def clean_label(raw: str) -> str:
    """The first 64 characters, without NULs (Postgres text refuses them)."""
    return raw.replace("\x00", "")[:LABEL_MAX]


class SourceRecorder:
    """A per-process queue and writer thread (started lazily, so it survives forks)."""

    def __init__(self, session_factory, capacity: int = 10000) -> None:
        self.session_factory = session_factory
        self.queue: queue.Queue = queue.Queue(maxsize=capacity)
        self.dropped = 0
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def record(self, label: str, endpoint: str, method: str, status: int) -> None:
        """Queue one hit; never raises, never blocks."""
        hit = {
            "label": clean_label(label),
            "endpoint": endpoint.replace("\x00", "")[:ENDPOINT_MAX],
            "method": method[:8],
            "status": status,
            "recorded_at": datetime.now(timezone.utc),
        }
        try:
            self.queue.put_nowait(hit)
        except queue.Full:
            self.dropped += 1
            return
        self._ensure_thread()

    def _ensure_thread(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            return
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="source-recorder", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while True:
            batch = [self.queue.get()]
            while len(batch) < 500:
                try:
                    batch.append(self.queue.get_nowait())
                except queue.Empty:
                    break
            self._write(batch)
            for _ in batch:
                self.queue.task_done()

    def _write(self, batch: list[dict]) -> None:
        try:
            with self.session_factory() as session:
                session.execute(insert(SourceHit), batch)
                session.commit()
        except Exception:  # recording must never take anything down with it
            self.dropped += len(batch)
            log.exception("could not record %d source hits", len(batch))

    def flush(self, timeout: float = 10.0) -> None:
        """Wait until every queued hit is written (tests, shutdown)."""
        deadline = threading.Event()
        timer = threading.Timer(timeout, deadline.set)
        timer.start()
        try:
            while self.queue.unfinished_tasks and not deadline.is_set():
                deadline.wait(0.01)
        finally:
            timer.cancel()


def recorded_endpoint() -> str:
    """What a hit stores as its path: the matched route, never the raw request path.

    A key the gate let through is written into its route (the report counts
    per company); any other key stays `<key>`, and an unmatched path is
    `<unmatched>`, so no attacker-chosen text is stored as a path.
    """
    from web.observability import UNMATCHED  # web.observability imports this module

    rule = request.url_rule
    if rule is None:
        return UNMATCHED
    passed = gate_result()
    if passed is not None and passed.company_key is not None:
        return rule.rule.replace("<key>", passed.company_key)
    return rule.rule


def init_source_tracking(app: Flask, session_factory) -> SourceRecorder:
    """Record every response (redirects included) of a request that names a source."""
    recorder = SourceRecorder(session_factory)
    app.extensions["source_recorder"] = recorder

    @app.after_request
    def _record_source(response: Response) -> Response:
        try:
            label = request.args.get("source", "")
            if label.strip():
                recorder.record(label, recorded_endpoint(), request.method, response.status_code)
        except Exception:  # a malformed query string must not break the response
            log.debug("source label not recorded", exc_info=True)
        return response

    return recorder
