"""Operations endpoints (blueprint `ops`): /healthz, /readyz, /metrics (/openapi.json: discovery/).

- `/healthz`: the process answers (no database, no work): liveness.
- `/readyz`: the database answers and the last successful sync is younger
  than FRESHNESS_THRESHOLD_SECONDS; otherwise 503 with the reasons in JSON.
- `/metrics`: Prometheus text format. Request counts and latencies come
  from this process's counters, or, when PROMETHEUS_MULTIPROC_DIR is set
  (gunicorn with several workers), from every worker's files. Sync figures
  are read from `sync_runs` and `sync_state` at scrape time, so they are the
  same whichever worker (or host) answers and include runs made by the
  separate scheduler process.
"""

from __future__ import annotations

from datetime import UTC, datetime

from flask import Blueprint, Response, current_app
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from mirror.catalog.urls import HEALTHZ, METRICS, READYZ
from mirror.read.figures import SyncFigures, last_success_checked, sync_figures
from mirror.read.gate import StateMoved
from mirror.runtime.deadline import cancelled_for_deadline, deadline_error
from mirror.store.lock import sync_running
from mirror.values.timestamps import aware, rfc3339
from web.db import db, settings
from web.deadline import deadline_response
from web.responses import json_error, json_response

bp = Blueprint("ops", __name__)
NO_STORE = {"Cache-Control": "no-store"}
ROW_KINDS = ("companies_written", "companies_removed", "products_written", "products_removed", "offer_groups_rebuilt")


@bp.get(HEALTHZ)
def healthz() -> Response:
    """Liveness: the process is up and answering."""
    return json_response({"status": "ok"}, headers=NO_STORE)


@bp.get(READYZ)
def readyz() -> Response:
    """Readiness: database reachable and the mirror fresh enough; 503 with reasons otherwise."""
    threshold = settings().freshness_threshold_seconds
    report = {
        "ready": False,
        "reasons": [],
        "database": "ok",
        "last_sync_at": None,
        "last_sync_age_seconds": None,
        "freshness_threshold_seconds": threshold,
    }
    try:
        last = last_success_checked(db())
    except Exception:  # any database failure means "not ready"; the error text stays in our logs
        current_app.logger.warning("readiness: database check failed", exc_info=True)
        report.update(database="unreachable", reasons=["database_unreachable"])
        return json_response(report, 503, headers=NO_STORE)
    if last is None:
        report["reasons"].append("never_synced")
    else:
        age = (datetime.now(UTC) - last).total_seconds()
        report.update(last_sync_at=rfc3339(last), last_sync_age_seconds=int(age))
        if age > threshold:
            report["reasons"].append("sync_stale")
    report["ready"] = not report["reasons"]
    return json_response(report, 200 if report["ready"] else 503, headers=NO_STORE)


@bp.get(METRICS)
def metrics() -> Response:
    """Prometheus exposition of the request and sync metrics."""
    registry = scrape_registry()
    return Response(generate_latest(registry), content_type=CONTENT_TYPE_LATEST, headers=NO_STORE)


def scrape_registry() -> CollectorRegistry:
    """What /metrics exposes: request metrics (this process or all workers) plus the sync collector.

    Built per scrape: a registry is itself a collector, so this process's
    registry is wrapped rather than changed, and concurrent scrapes share nothing.
    """
    registry = CollectorRegistry()
    multiproc_dir = settings().prometheus_multiproc_dir
    if multiproc_dir:
        from prometheus_client import multiprocess

        multiprocess.MultiProcessCollector(registry, path=multiproc_dir)
    else:
        registry.register(current_app.extensions["metrics"].registry)
    registry.register(SyncCollector(current_app.extensions["mirror"]))
    return registry


class SyncCollector:
    """Sync and catalog figures read from the database at scrape time."""

    def __init__(self, mirror) -> None:
        self.mirror = mirror

    def describe(self):
        """Nothing to describe ahead of a scrape (keeps registration free of queries)."""
        return []

    def collect(self):
        """One short read transaction; a database failure reports mirror_database_up 0."""
        up = GaugeMetricFamily("mirror_database_up", "1 when the database answered this scrape.")
        try:
            with self.mirror.Session() as session:
                families = _sync_families(sync_figures(session), sync_running(self.mirror.primary_engine))
        except Exception:
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        yield from families


def _sync_families(figures: SyncFigures, running: bool) -> list:
    return [
        *_run_families(figures.runs_by_outcome, running),
        *_last_run_families(figures.recent_runs),
        _last_success_family(figures.last_success_at),
        _gauge(
            "mirror_companies",
            "Companies in the mirror by state.",
            [(["public"], figures.public_companies), (["in_feed"], figures.feed_companies)],
            ["state"],
        ),
    ]


def _gauge(name: str, documentation: str, samples, labels=()) -> GaugeMetricFamily:
    family = GaugeMetricFamily(name, documentation, labels=list(labels))
    for label_values, value in samples:
        family.add_metric(label_values, value)
    return family


def _run_families(by_outcome, running: bool) -> list:
    runs = CounterMetricFamily(
        "mirror_sync_runs", "Finished sync runs by mode and outcome.", labels=["mode", "outcome"]
    )
    recorded_running = 0
    for mode, status, count in by_outcome:
        if status == "running":
            recorded_running += count
        else:
            runs.add_metric([mode, status], count)
    # A run killed before recording its end stays "running" in sync_runs for
    # ever; only the sync lock says whether one runs now (one at a time).
    unfinished = min(recorded_running, 1) if running else 0
    return [
        runs,
        _gauge(
            "mirror_sync_runs_unfinished",
            "Sync runs running now: 1 while a sync holds the sync lock, else 0 (runs killed before recording "
            "their end are not counted).",
            [([], unfinished)],
        ),
    ]


def _last_run_families(recent) -> list:
    duration = GaugeMetricFamily(
        "mirror_sync_last_duration_seconds", "Duration of the latest finished run, by mode.", labels=["mode", "outcome"]
    )
    rows = GaugeMetricFamily(
        "mirror_sync_last_rows_changed",
        "Rows the latest successful run of each mode changed, by kind.",
        labels=["mode", "kind"],
    )
    seen_any, seen_success = set(), set()
    for run in recent:  # newest first
        if run.mode not in seen_any:
            seen_any.add(run.mode)
            duration.add_metric(
                [run.mode, run.status], max(0.0, (aware(run.finished_at) - aware(run.started_at)).total_seconds())
            )
        if run.status == "success" and run.mode not in seen_success:
            seen_success.add(run.mode)
            for kind in ROW_KINDS:
                rows.add_metric([run.mode, kind], int((run.counts or {}).get(kind, 0)))
    return [duration, rows]


def _last_success_family(last_success: datetime | None) -> GaugeMetricFamily:
    family = GaugeMetricFamily(
        "mirror_sync_last_success_timestamp_seconds",
        "Unix time of the end of the last successful whole sync (absent before the first).",
    )
    if last_success is not None:
        family.add_metric([], last_success.timestamp())
    return family


def register_database_errors(app) -> None:
    """A database that cannot be reached answers 503 JSON (retry shortly), never a 500 or a trace.

    Covers a dropped connection mid-request (the pool then replaces it: the
    next request gets a fresh connection), a database that is down, a pool that
    is exhausted, whether the error comes through
    SQLAlchemy or straight from the driver, and a database that kept moving
    past the process's gate state under a request (`StateMoved` three times:
    a retry will find it settled).
    """

    def unavailable(error: Exception) -> Response:
        cause = getattr(error, "orig", None) or error
        if cancelled_for_deadline(
            cause
        ):  # a statement the request's deadline cut (read outside mirror.store.db's hooks)
            return deadline_response(deadline_error(cause))
        current_app.logger.warning("database unavailable: %s", type(error).__name__, exc_info=True)
        response = json_error(503, "database_unavailable", "The database is unavailable; retry shortly.")
        response.headers["Retry-After"] = "1"
        response.headers["Cache-Control"] = "no-store"
        return response

    for error_class in (OperationalError, InterfaceError, PoolTimeout, StateMoved, *_driver_errors()):
        app.register_error_handler(error_class, unavailable)


def _driver_errors() -> tuple[type[Exception], ...]:
    """The drivers' own connection errors, for code that talks to a driver directly (the gate's fast path)."""
    import psycopg

    return (psycopg.OperationalError, psycopg.InterfaceError)
