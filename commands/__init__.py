"""`flask --app wsgi ...` commands: db, sync, scheduler, demo-upstream, sources.

The commands are thin: each calls a plain function of `mirror/` (which knows
nothing of Flask) and prints its result.
"""
from __future__ import annotations

import sys
from datetime import datetime, timedelta, timezone

import click
from flask import Flask, current_app
from flask.cli import AppGroup, with_appcontext
from sqlalchemy import func, select

from mirror.lock import SyncBusy
from mirror.models import SourceHit

db_group = AppGroup("db", help="Database migrations (Alembic).")


def _mirror():
    return current_app.extensions["mirror"]


def _alembic():
    from mirror.migrate import alembic_config

    return alembic_config(_mirror().settings.database_url)


@db_group.command("upgrade")
@click.argument("revision", default="head")
def db_upgrade(revision: str) -> None:
    """Migrate the database up to REVISION (default: head)."""
    from alembic import command

    command.upgrade(_alembic(), revision)


@db_group.command("downgrade")
@click.argument("revision")
def db_downgrade(revision: str) -> None:
    """Migrate the database down to REVISION."""
    from alembic import command

    command.downgrade(_alembic(), revision)


@db_group.command("current")
def db_current() -> None:
    """Show the database's current revision."""
    from alembic import command

    command.current(_alembic(), verbose=True)


@db_group.command("history")
def db_history() -> None:
    """List the migrations."""
    from alembic import command

    command.history(_alembic())


@db_group.command("check")
def db_check() -> None:
    """Fail if the models and the migrations disagree."""
    from alembic import command

    command.check(_alembic())


def _progress_reporter():
    """A live counter on a terminal; silence elsewhere (logs, CI)."""
    if not sys.stderr.isatty():
        return None
    totals: dict[str, int] = {}

    def report(stage: str, n: int) -> None:
        totals[stage] = totals.get(stage, 0) + n
        line = "  ".join(f"{k}: {v}" for k, v in totals.items())
        click.echo(f"\r{line}", nl=False, err=True)

    return report


@click.command("sync")
@with_appcontext
@click.option("--full", is_flag=True, help="Walk everything and remove what upstream no longer has.")
@click.option("--company", "company_key", default=None, help="Sync just this company (pluginKey).")
def sync_command(full: bool, company_key: str | None) -> None:
    """Run one sync now and print a summary; exit non-zero on failure."""
    try:
        result = _mirror().sync(full=full, company_key=company_key, progress=_progress_reporter())
    except SyncBusy:
        click.echo("another sync is running; try again later", err=True)
        sys.exit(75)
    except RuntimeError as error:
        click.echo(f"sync could not start: {error}", err=True)
        sys.exit(2)
    if sys.stderr.isatty():
        click.echo("", err=True)
    seconds = (result.finished_at - result.started_at).total_seconds()
    click.echo(f"sync run {result.run_id} ({result.mode}): {result.status} in {seconds:.1f}s")
    for name, value in result.counts.as_dict().items():
        click.echo(f"  {name.replace('_', ' '):<22} {value}")
    if result.error:
        click.echo(f"  error: {result.error}")
    sys.exit(0 if result.status == "success" else 1)


@click.command("scheduler")
@with_appcontext
def scheduler_command() -> None:
    """Run the incremental sync every SYNC_INTERVAL_SECONDS (long-running)."""
    from mirror.scheduler import run_blocking_scheduler

    run_blocking_scheduler(_mirror())


def printable(text: str) -> str:
    """Contractor- or visitor-supplied text, safe to print on a terminal."""
    return "".join(c if c.isprintable() else "?" for c in text)


def parse_since(value: str | None) -> datetime | None:
    """'24h', '7d', '30m' or an ISO timestamp."""
    if not value:
        return None
    units = {"m": "minutes", "h": "hours", "d": "days"}
    if value[-1:] in units and value[:-1].isdigit():
        return datetime.now(timezone.utc) - timedelta(**{units[value[-1]]: int(value[:-1])})
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise click.BadParameter("use 30m, 24h, 7d or an ISO timestamp") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


@click.command("sources")
@with_appcontext
@click.option("--since", default=None, help="Only hits since: 30m, 24h, 7d or an ISO timestamp.")
def sources_command(since: str | None) -> None:
    """Count ?source= hits by label and endpoint."""
    cutoff = parse_since(since)
    query = select(SourceHit.label, SourceHit.endpoint, func.count()).group_by(SourceHit.label, SourceHit.endpoint)
    if cutoff:
        query = query.where(SourceHit.recorded_at >= cutoff)
    with _mirror().Session() as session:
        rows = session.execute(query.order_by(func.count().desc(), SourceHit.label, SourceHit.endpoint)).all()
    if not rows:
        click.echo("no source-tagged requests recorded")
        return
    width = max(len(r[0]) for r in rows)
    click.echo(f"{'label':<{width}}  {'count':>7}  endpoint")
    for label, endpoint, count in rows:
        click.echo(f"{printable(label):<{width}}  {count:>7}  {printable(endpoint)}")


@click.command("demo-urls")
@with_appcontext
def demo_urls_command() -> None:
    """Print URLs to try against a few public companies of the mirror."""
    from mirror.models import Company

    settings = _mirror().settings
    with _mirror().Session() as session:
        keys = session.scalars(
            select(Company.plugin_key).where(Company.is_public, Company.in_feed).order_by(Company.plugin_key).limit(2)
        ).all()
    if not keys:
        click.echo("the mirror holds no public company yet")
        return
    key = keys[0]
    click.echo("Try:")
    for path in (
        f"/companies/{key}/pricing", f"/companies/{key}/pricing.json", f"/companies/{key}.jsonld",
        f"/companies/{key}/quote", "/v1/businesses?page=1&page_size=5", f"/companies/{key}/webmcp-demo",
        "/.well-known/mcp.json", "/llms.txt",
    ):
        click.echo(f"  {settings.absolute(path)}")
    click.echo(f"  MCP: {settings.absolute(f'/companies/{key}/mcp')} (POST JSON-RPC)")


def init_app(app: Flask) -> None:
    """Attach every command to the app's CLI."""
    from demo.server import demo_upstream_command

    app.cli.add_command(db_group)
    for command in (sync_command, scheduler_command, sources_command, demo_upstream_command, demo_urls_command):
        app.cli.add_command(command)
