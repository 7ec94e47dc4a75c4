"""Scheduled incremental syncs (APScheduler 3).

APScheduler alone does not coordinate processes; the sync's own lock does
(mirror.store.lock). Every tick tries the lock without waiting, so however many
processes run a scheduler (the dedicated `flask scheduler` process, or
gunicorn workers with SCHEDULER_ENABLED), one sync runs at a time, and a
tick that finds a recent run from another process skips.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.schedulers.blocking import BlockingScheduler

from mirror.store.lock import SyncBusy, SyncRecent

log = logging.getLogger(__name__)


def scheduled_sync(mirror) -> str:
    """One tick: skip when another process synced recently or is syncing now.

    "Recently" is under half the interval, checked by the sync itself while
    it holds the lock (on the primary: a replica may not have replayed the
    last run yet), so ticks of several processes start one run between them.
    """
    interval = mirror.settings.sync_interval_seconds
    try:
        result = mirror.sync(skip_if_ended_within=interval / 2)
    except SyncRecent as recent:
        log.info(
            "scheduled sync skipped: the last run ended %.0fs ago, under half the %ss interval "
            "(another process syncs too)",
            recent.age_seconds,
            interval,
        )
        return "skipped-recent"
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
