"""One sync run: the lock, the run's one transaction, and its entry in sync_runs."""

from __future__ import annotations

import gc
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from mirror.runtime.config import default
from mirror.store.lock import SyncRecent, sync_lock
from mirror.store.models import SyncRun
from mirror.sync.rebuild import finish
from mirror.sync.runstate import Progress, RunState, SyncCounts, SyncResult, log, log_record_summary, utcnow
from mirror.sync.upstream import UpstreamClient
from mirror.sync.walk import walk_upstream
from mirror.values.timestamps import aware


def _seconds_since_last_whole_run(session_factory) -> float | None:
    """How long ago the last whole run (not a single company's) ended; None when none has."""
    with session_factory() as session:
        last_end = session.scalar(select(func.max(SyncRun.finished_at)).where(SyncRun.company_key.is_(None)))
    if last_end is None:
        return None
    return (datetime.now(UTC) - aware(last_end)).total_seconds()


def run_sync(
    engine,
    session_factory,
    client: UpstreamClient,
    *,
    overlap_seconds: int = 60,
    full: bool = False,
    company_key: str | None = None,
    progress: Progress | None = None,
    skip_if_ended_within: float | None = None,
    deadline_seconds: float = default("sync_run_deadline_seconds"),
    max_clock_skew_seconds: float = default("upstream_max_clock_skew_seconds"),
    failure_reported: bool = False,
    publish: Callable[[Session], object] | None = None,
) -> SyncResult:
    """Run one sync under the cross-process lock and record it in sync_runs.

    Raises SyncBusy when another process is syncing. Upstream or database
    failures roll the run back and are recorded; the result says "failed".
    With `skip_if_ended_within` (seconds: the scheduler's ticks), raises
    SyncRecent instead of running when a whole run ended that recently. The
    check is made holding the lock: checked before taking it, two
    processes' ticks could both see no recent run, and the second would
    sync again as soon as the first released the lock.

    The run's walk ends by `deadline_seconds` (the client refuses to
    start a request, or a wait, past it), and runs a killed process left
    `running` are marked failed first (`_fail_interrupted_runs`).

    `publish(session)`, when given, renders the public documents of what
    the run changed, in its transaction, before its state version moves
    (mirror/render/documents.py; the sync package sits below the renderings,
    so the service hands it in).

    A failed run is logged at ERROR (the scheduler's and the server's log
    say why a run failed), or only at DEBUG with `failure_reported`: the
    caller (the `sync` command) prints the failure itself, as one line, and
    the run keeps it in sync_runs either way.
    """
    mode = "company" if company_key else ("full" if full else "incremental")
    with sync_lock(engine), _fewer_collections():
        if skip_if_ended_within is not None:
            age = _seconds_since_last_whole_run(session_factory)
            if age is not None and age < skip_if_ended_within:
                raise SyncRecent(age)
        _fail_interrupted_runs(session_factory)
        run_id, started_at = _open_run(session_factory, mode, company_key)
        run = RunState(mode=mode, generation=run_id, max_clock_skew=timedelta(seconds=max_clock_skew_seconds))
        client.start_deadline(deadline_seconds)
        session = session_factory()
        try:
            walk_upstream(session, client, run, overlap_seconds, company_key, progress or (lambda *_: None))
            finished_at = utcnow()
            finish(session, run, finished_at, company_key, publish)
            run.counts.upstream_requests = client.requests_made
            _close_run(session, run_id, "success", run.counts, finished_at, None)
            session.commit()
            log_record_summary(run_id, run)
            return SyncResult(run_id, "success", mode, run.counts, started_at, finished_at)
        except BaseException as error:
            session.rollback()
            finished_at = utcnow()
            run.counts.upstream_requests = client.requests_made
            message = f"{type(error).__name__}: {error}"[:1000]
            with session_factory() as failed:
                _close_run(failed, run_id, "failed", run.counts, finished_at, message)
                failed.commit()
            if not isinstance(error, Exception):
                raise
            log_record_summary(run_id, run)
            log.log(logging.DEBUG if failure_reported else logging.ERROR, "sync run %s failed: %s", run_id, message)
            return SyncResult(run_id, "failed", mode, run.counts, started_at, finished_at, message, error)
        finally:
            session.close()


@contextmanager
def _fewer_collections() -> Iterator[None]:
    """Run the cyclic garbage collector less often while a sync runs.

    A full sync allocates millions of short-lived objects (records, rows,
    dicts): with the default threshold the collector ran ~3,000 times and
    spent 2.8 s of the run's 9.6 s of CPU (measured with gc.callbacks on the
    benchmark's 200,000 products), though almost nothing it examines is
    cyclic garbage. The threshold counts the container objects allocated and
    not yet freed, and a batch of records being applied holds about 50,000
    of them (a record, its specs, its row, its reading's lists...): at
    50,000 each batch set off a collection that walked the whole batch (43
    collections, 2.2 s of CPU at 200,000 products); at 200,000 a batch is
    freed before it counts that many (2 collections, 0.2 s). It still runs,
    so cyclic garbage is still freed. The threshold is the process's, put
    back at the end (one sync at a time: the sync lock).
    """
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], 200_000), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


# The error a run left `running` by a process that died (SIGKILL, a lost host) is given at the next start.
INTERRUPTED = "interrupted: the process running it ended before it finished (marked at the next run's start)"


def _fail_interrupted_runs(session_factory) -> None:
    """Mark failed every run still `running`: called holding the sync lock, so none of them is running now.

    A run genuinely under way holds the lock (mirror/store/lock.py) for as long
    as it runs, and this is only called by the holder: any other run left
    `running` belongs to a process that died without closing it.
    """
    with session_factory() as session:
        result = session.execute(
            update(SyncRun)
            .where(SyncRun.status == "running")
            .values(status="failed", finished_at=utcnow(), error=INTERRUPTED)
        )
        session.commit()
    if result.rowcount:
        log.warning("marked %d interrupted sync runs failed (their process ended mid-run)", result.rowcount)


def _open_run(session_factory, mode: str, company_key: str | None) -> tuple[int, datetime]:
    started_at = utcnow()
    with session_factory() as session:
        row = SyncRun(mode=mode, company_key=company_key, started_at=started_at, status="running", counts={})
        session.add(row)
        session.commit()
        return row.id, started_at


def _close_run(session: Session, run_id: int, status: str, counts: SyncCounts, at: datetime, error: str | None):
    session.execute(
        update(SyncRun)
        .where(SyncRun.id == run_id)
        .values(status=status, finished_at=at, counts=counts.as_dict(), error=error)
    )
