"""Scheduled incremental syncs (APScheduler 3).

APScheduler alone does not coordinate processes; the sync's own lock does
(mirror.lock). Every tick tries the lock without waiting, so however many
processes run a scheduler (the dedicated `flask scheduler` process, or
gunicorn workers with SCHEDULER_ENABLED), one sync runs at a time, and a
tick that finds a recent run from another process skips.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.schedulers.blocking import BlockingScheduler
from sqlalchemy import func, select

from mirror.lock import SyncBusy
from mirror.models import SyncRun

log = logging.getLogger(__name__)


def scheduled_sync(mirror) -> str:
    """One tick: skip when another process synced recently or is syncing now."""
    interval = mirror.settings.sync_interval_seconds
    with mirror.PrimarySession() as session:  # the primary: a replica may not have replayed the last run yet
        last_end = session.scalar(select(func.max(SyncRun.finished_at)).where(SyncRun.company_key.is_(None)))
    if last_end is not None:
        last_end = last_end if last_end.tzinfo else last_end.replace(tzinfo=UTC)
        age = datetime.now(UTC) - last_end
        if age < timedelta(seconds=interval / 2):
            log.info(
                "scheduled sync skipped: the last run ended %.0fs ago, under half the %ss interval "
                "(another process syncs too)",
                age.total_seconds(),
                interval,
            )
            return "skipped-recent"
    try:
        result = mirror.sync()
    except SyncBusy:
        log.info("scheduled sync skipped: another process is syncing")
        return "skipped-busy"
    log.info("scheduled sync %s: %s %s", result.run_id, result.status, result.counts.as_dict())
    return result.status


def _add_job(scheduler, mirror) -> None:
    scheduler.add_job(
        scheduled_sync,
        "interval",
        args=[mirror],
        seconds=mirror.settings.sync_interval_seconds,
        id="incremental-sync",
        max_instances=1,
        coalesce=True,
        next_run_time=datetime.now(UTC) + timedelta(seconds=5),
    )


def run_blocking_scheduler(mirror) -> None:
    """The long-running scheduler process (`flask --app wsgi scheduler`)."""
    scheduler = BlockingScheduler(timezone="UTC")
    _add_job(scheduler, mirror)
    log.info("scheduler: incremental sync every %ss", mirror.settings.sync_interval_seconds)
    scheduler.start()


def start_background_scheduler(mirror) -> BackgroundScheduler:
    """A scheduler thread inside a web process (SCHEDULER_ENABLED=true)."""
    scheduler = BackgroundScheduler(timezone="UTC")
    _add_job(scheduler, mirror)
    scheduler.start()
    return scheduler
