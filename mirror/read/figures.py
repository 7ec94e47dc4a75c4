"""The operational figures: readiness, the sync and catalog counts behind /metrics, usage, sources.

Each function reads in the session it is given and returns plain values; the
ops endpoints (web/health.py) and the CLI (commands/) only format them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import case, func, select, text
from sqlalchemy.orm import Session

from mirror.catalog.channels import company_open_clause
from mirror.store import state as st
from mirror.store.models import Company, Invocation, SourceHit, SyncRun

RECENT_RUNS = 50
_COMPANIES = Company.__table__


def last_success_checked(session: Session) -> datetime | None:
    """The end of the last successful whole run, having checked that the database answers (raises when not)."""
    session.execute(text("SELECT 1"))
    return st.get_time(st.read_state(session), st.LAST_SUCCESS_AT)


@dataclass(frozen=True)
class SyncFigures:
    """What /metrics reports of the sync and the catalog, read in one session."""

    runs_by_outcome: list[tuple[str, str, int]]  # (mode, status, count)
    recent_runs: list[SyncRun]  # finished, newest first
    last_success_at: datetime | None
    public_companies: int
    feed_companies: int


def sync_figures(session: Session) -> SyncFigures:
    """The sync runs by outcome, the latest finished ones, the last success and the companies by state."""
    by_outcome = session.execute(
        select(SyncRun.mode, SyncRun.status, func.count().label("runs")).group_by(SyncRun.mode, SyncRun.status)
    )
    recent = session.scalars(
        select(SyncRun).where(SyncRun.finished_at.is_not(None)).order_by(SyncRun.id.desc()).limit(RECENT_RUNS)
    ).all()
    public = session.scalar(select(func.count()).select_from(_COMPANIES).where(company_open_clause(_COMPANIES)))
    # `in_feed` already says public, quote and feed open, contact data complete (mirror/catalog/feed_facts.py).
    in_feed = session.scalar(select(func.count()).select_from(_COMPANIES).where(_COMPANIES.c.in_feed.is_(True)))
    return SyncFigures(
        runs_by_outcome=[(row.mode, row.status, row.runs) for row in by_outcome],
        recent_runs=list(recent),
        last_success_at=st.get_time(st.read_state(session), st.LAST_SUCCESS_AT),
        public_companies=public,
        feed_companies=in_feed,
    )


def feed_company_keys(session: Session, limit: int) -> list[str]:
    """The first `limit` businesses of the business feed, in its order (the CLI's examples)."""
    return list(
        session.scalars(
            select(_COMPANIES.c.plugin_key)
            .where(_COMPANIES.c.in_feed.is_(True))
            .order_by(_COMPANIES.c.plugin_key)
            .limit(limit)
        )
    )


def _since_and_company(query, since: datetime | None, company: str | None):
    if since is not None:
        query = query.where(Invocation.recorded_at >= since)
    if company is not None:
        query = query.where(Invocation.company_key == company)
    return query


def usage_rows(session: Session, since: datetime | None = None, company: str | None = None) -> list[dict]:
    """Per company, tool (or endpoint for plain HTTP) and protocol: calls, agents, errors, mean ms."""
    what = func.coalesce(Invocation.tool, Invocation.endpoint)
    failed = case((Invocation.outcome.in_(("ok",)), 0), else_=1)
    query = select(
        Invocation.company_key,
        what.label("what"),
        Invocation.protocol,
        func.count().label("calls"),
        func.count(func.distinct(Invocation.agent)).label("agents"),
        func.sum(failed).label("errors"),
        func.avg(Invocation.duration_ms).label("mean_ms"),
    ).group_by(Invocation.company_key, what, Invocation.protocol)
    rows = [
        {
            "company": row.company_key,
            "what": row.what,
            "protocol": row.protocol,
            "calls": row.calls,
            "agents": row.agents,
            "errors": int(row.errors or 0),
            "mean_ms": float(row.mean_ms or 0),
        }
        for row in session.execute(_since_and_company(query, since, company))
    ]
    return sorted(rows, key=lambda r: (r["company"] or "", -r["calls"], r["what"], r["protocol"]))


def platform_rows(
    session: Session, since: datetime | None = None, company: str | None = None
) -> list[tuple[str, int, int]]:
    """(platform, calls, distinct agents), busiest first."""
    query = select(
        Invocation.platform,
        func.count().label("calls"),
        func.count(func.distinct(Invocation.agent)).label("agents"),
    ).group_by(Invocation.platform)
    found = session.execute(_since_and_company(query, since, company))
    rows = sorted(found, key=lambda row: (-row.calls, row.platform))
    return [(row.platform, row.calls, row.agents) for row in rows]


def source_rows(session: Session, since: datetime | None = None) -> list[tuple[str, str, int]]:
    """(label, endpoint, hits) of `?source=`-tagged requests, most hits first."""
    hits = func.count().label("hits")
    query = select(SourceHit.label, SourceHit.endpoint, hits).group_by(SourceHit.label, SourceHit.endpoint)
    if since is not None:
        query = query.where(SourceHit.recorded_at >= since)
    found = session.execute(query.order_by(hits.desc(), SourceHit.label, SourceHit.endpoint))
    return [(row.label, row.endpoint, row.hits) for row in found]
