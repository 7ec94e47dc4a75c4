"""`flask --app wsgi ...` commands: db, sync, scheduler, demo-upstream, sources, usage, products.

The commands are thin: each calls a plain function of `mirror/` (which knows
nothing of Flask) and prints its result. A problem an operator can fix (the
database is down or not migrated, the upstream is unreachable or refuses the
token, an unknown company) is one line on stderr, `error: <what>; <fix>`, and
a documented exit code (`EXIT_CODES`, docs/operations.md "Exit codes"),
never a traceback.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sys
import time
from datetime import UTC, datetime, timedelta

import click
from flask import Flask, current_app
from flask.cli import AppGroup, with_appcontext
from sqlalchemy.exc import DBAPIError

from mirror.catalog import urls
from mirror.read.figures import feed_company_keys, platform_rows, source_rows, usage_rows
from mirror.runtime.config import EXIT_CONFIG
from mirror.store.lock import SyncBusy
from mirror.store.migrate import DatabaseProblem, check_database, database_problem
from mirror.sync.facts import explain
from mirror.sync.upstream import UpstreamAuthError, UpstreamUnreachable
from mirror.values.timestamps import aware

log = logging.getLogger(__name__)

db_group = AppGroup("db", help="Database migrations (Alembic).")
products_group = AppGroup("products", help="What the mirror holds a product to be.")

# The exit codes of the commands, documented in docs/operations.md ("Exit codes").
EXIT_SYNC_FAILED = 1  # the run started and failed for another reason (recorded in sync_runs)
# EXIT_CONFIG (2, mirror/runtime/config.py): a setting is missing or bad (click's usage errors use 2 as well).
EXIT_DATABASE_UNREACHABLE = 3
EXIT_NOT_MIGRATED = 4
EXIT_UPSTREAM_UNREACHABLE = 5
EXIT_UPSTREAM_REFUSED = 6
EXIT_UNKNOWN_COMPANY = 7
EXIT_UNKNOWN_PRODUCT = 8
EXIT_BUSY = 75  # EX_TEMPFAIL: another sync holds the lock; try again later
EXIT_CODES = {
    EXIT_SYNC_FAILED: "the sync ran and failed (the error is in sync_runs)",
    EXIT_CONFIG: "a setting is missing or bad, or a usage error",
    EXIT_DATABASE_UNREACHABLE: "the database cannot be reached",
    EXIT_NOT_MIGRATED: "the database is not migrated",
    EXIT_UPSTREAM_UNREACHABLE: "the upstream cannot be reached (or kept failing)",
    EXIT_UPSTREAM_REFUSED: "the upstream refused UPSTREAM_TOKEN",
    EXIT_UNKNOWN_COMPANY: "`sync --company` named a key the upstream does not know",
    EXIT_UNKNOWN_PRODUCT: "`products explain` named a product the mirror does not hold",
    EXIT_BUSY: "another sync is running",
}
_DATABASE_EXIT = {"unreachable": EXIT_DATABASE_UNREACHABLE, "not_migrated": EXIT_NOT_MIGRATED}


def _mirror():
    return current_app.extensions["mirror"]


class CommandFailed(Exception):
    """A problem with its one-line explanation and exit code."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


def fail(code: int, message: str, as_json: bool = False) -> None:
    """Print `error: message` (one line; also a JSON object on stdout with --json) and exit with `code`."""
    click.echo(f"error: {message}", err=True)
    if as_json:
        click.echo(json.dumps({"status": "error", "exit_code": code, "error": message}))
    sys.exit(code)


@contextlib.contextmanager
def operator_errors(as_json: bool = False):
    """Turn the problems an operator can fix into one line and an exit code (others propagate)."""
    url = _mirror().settings.database_url
    try:
        yield
    except CommandFailed as failed:
        fail(failed.code, str(failed), as_json)
    except DatabaseProblem as problem:
        fail(_DATABASE_EXIT[problem.kind], str(problem), as_json)
    except DBAPIError as error:
        problem = database_problem(error, url)
        if problem is None:
            raise
        fail(_DATABASE_EXIT[problem.kind], str(problem), as_json)


def _ready_database() -> None:
    """Fail with one line unless the database answers and is migrated."""
    mirror = _mirror()
    check_database(mirror.engine, mirror.settings.database_url)


def _upstream_client():
    try:
        return _mirror().upstream_client()
    except RuntimeError as error:
        raise CommandFailed(
            EXIT_CONFIG, f"{error} (`make run` writes the demo's into .flaskenv, which this command reads)"
        ) from None


def _alembic():
    from mirror.store.migrate import alembic_config

    return alembic_config(_mirror().settings.database_url)


@db_group.command("upgrade")
@click.argument("revision", default="head")
def db_upgrade(revision: str) -> None:
    """Migrate the database up to REVISION (default: head)."""
    from alembic import command

    with operator_errors():
        command.upgrade(_alembic(), revision)


@db_group.command("downgrade")
@click.argument("revision")
def db_downgrade(revision: str) -> None:
    """Migrate the database down to REVISION."""
    from alembic import command

    with operator_errors():
        command.downgrade(_alembic(), revision)


@db_group.command("current")
def db_current() -> None:
    """Show the database's current revision."""
    from alembic import command

    with operator_errors():
        command.current(_alembic(), verbose=True)


@db_group.command("history")
def db_history() -> None:
    """List the migrations."""
    from alembic import command

    with operator_errors():
        command.history(_alembic())


@db_group.command("check")
def db_check() -> None:
    """Fail if the models and the migrations disagree."""
    from alembic import command

    with operator_errors():
        command.check(_alembic())


# Without a terminal, at most one progress line per this many seconds.
PROGRESS_EVERY_SECONDS = 10.0


class SyncProgress:
    """The sync's progress: a status line on a terminal, a log line every 10 s elsewhere.

    On a terminal the status line stays at the bottom: while it is shown,
    every stream handler writing to that terminal goes through
    `_AboveTheLine`, which clears the line, writes the log record and draws
    the line again, so log lines print above it, never into it.
    """

    def __init__(self, stream=None, *, tty: bool | None = None, clock=time.monotonic):
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.clock = clock
        self.totals: dict[str, int] = {}
        self.started = self.last_line = clock()
        self._swapped: list[tuple[logging.StreamHandler, object]] = []

    def line(self) -> str:
        """The counts so far: `companies 3,002 · products 120,000 · 12s`."""
        counts = " · ".join(f"{stage} {count:,}" for stage, count in self.totals.items())
        return f"sync: {counts or 'starting'} · {self.clock() - self.started:.0f}s"

    def __call__(self, stage: str, count: int) -> None:
        self.totals[stage] = self.totals.get(stage, 0) + count
        if self.tty:
            self._draw()
        elif self.clock() - self.last_line >= PROGRESS_EVERY_SECONDS:
            self.last_line = self.clock()
            log.info("%s", self.line())

    def _draw(self) -> None:
        self.stream.write("\r\033[K" + self.line())
        self.stream.flush()

    def __enter__(self) -> SyncProgress:
        if self.tty:
            handlers = [
                logging.getLogger(),
                *(
                    logger
                    for logger in logging.Logger.manager.loggerDict.values()
                    if isinstance(logger, logging.Logger)
                ),
            ]
            for owner in handlers:
                for handler in owner.handlers:
                    if isinstance(handler, logging.StreamHandler) and handler.stream is self.stream:
                        self._swapped.append((handler, handler.setStream(_AboveTheLine(self))))
        return self

    def __exit__(self, *exc_info) -> None:
        for handler, stream in self._swapped:
            handler.setStream(stream)
        self._swapped.clear()
        if self.tty:
            self.stream.write("\r\033[K")
            self.stream.flush()


class _AboveTheLine:
    """A stream for log handlers that keeps SyncProgress's status line below what they write."""

    def __init__(self, progress: SyncProgress):
        self.progress = progress

    def write(self, text: str) -> None:
        self.progress.stream.write("\r\033[K" + text)
        if text.endswith("\n"):
            self.progress.stream.write(self.progress.line())

    def flush(self) -> None:
        self.progress.stream.flush()


def _explain_failure(result, settings) -> CommandFailed:
    """The one line for a failed run, by what failed it."""
    cause, upstream = result.cause, settings.upstream_url
    if isinstance(cause, UpstreamAuthError):
        return CommandFailed(
            EXIT_UPSTREAM_REFUSED, f"the upstream at {upstream} refused UPSTREAM_TOKEN (401); check the token"
        )
    if isinstance(cause, UpstreamUnreachable):
        return CommandFailed(
            EXIT_UPSTREAM_UNREACHABLE,
            f"cannot reach the upstream at {upstream} ({cause}); check UPSTREAM_URL and that the platform is up",
        )
    if isinstance(cause, DBAPIError):
        problem = database_problem(cause, settings.database_url)
        if problem is not None:
            return CommandFailed(_DATABASE_EXIT[problem.kind], str(problem))
    return CommandFailed(EXIT_SYNC_FAILED, f"sync run {result.run_id} failed: {result.error}")


def _summary(result) -> dict:
    return {
        "run_id": result.run_id,
        "mode": result.mode,
        "status": result.status,
        "seconds": round((result.finished_at - result.started_at).total_seconds(), 3),
        "counts": result.counts.as_dict(),
        "error": result.error,
    }


@click.command("sync")
@with_appcontext
@click.option("--full", is_flag=True, help="Walk everything and remove what upstream no longer has.")
@click.option("--company", "company_key", default=None, help="Sync just this company (pluginKey).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object on stdout (for scripts).")
def sync_command(full: bool, company_key: str | None, as_json: bool) -> None:
    """Run one sync now and print a summary; exit non-zero on failure (docs/operations.md, "Exit codes")."""
    mirror = _mirror()
    with operator_errors(as_json):
        _ready_database()
        client = _upstream_client()
        try:
            with SyncProgress() as progress:
                # The failure is this command's one `error:` line (operator_errors), not a log line besides it.
                result = mirror.sync(
                    full=full, company_key=company_key, progress=progress, client=client, failure_reported=True
                )
        except SyncBusy:
            raise CommandFailed(EXIT_BUSY, "another sync is running; try again when it ends") from None
        if result.status != "success":
            if as_json:
                click.echo(json.dumps(_summary(result)))
            raise _explain_failure(result, mirror.settings)
        if company_key and result.counts.companies_seen == 0 and result.counts.companies_removed == 0:
            raise CommandFailed(
                EXIT_UNKNOWN_COMPANY,
                f"the upstream at {mirror.settings.upstream_url} has no company {company_key!r} and the mirror "
                "holds none; check the pluginKey (the business feed's `id`)",
            )
    if as_json:
        click.echo(json.dumps(_summary(result)))
        return
    summary = _summary(result)
    click.echo(f"sync run {result.run_id} ({result.mode}): {result.status} in {summary['seconds']:.1f}s")
    for name, value in summary["counts"].items():
        click.echo(f"  {name.replace('_', ' '):<22} {value}")


@click.command("scheduler")
@with_appcontext
def scheduler_command() -> None:
    """Run the incremental sync every SYNC_INTERVAL_SECONDS (long-running)."""
    from mirror.service.scheduler import run_blocking_scheduler

    with operator_errors():
        _ready_database()
        _upstream_client().close()
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
        return datetime.now(UTC) - timedelta(**{units[value[-1]]: int(value[:-1])})
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise click.BadParameter("use 30m, 24h, 7d or an ISO timestamp") from None
    return aware(parsed)


@click.command("sources")
@with_appcontext
@click.option("--since", default=None, help="Only hits since: 30m, 24h, 7d or an ISO timestamp.")
def sources_command(since: str | None) -> None:
    """Count ?source= hits by label and endpoint."""
    cutoff = parse_since(since)
    with operator_errors(), _mirror().Session() as session:
        rows = source_rows(session, cutoff)
    if not rows:
        click.echo("no source-tagged requests recorded")
        return
    width = max(len(r[0]) for r in rows)
    click.echo(f"{'label':<{width}}  {'count':>7}  endpoint")
    for label, endpoint, count in rows:
        click.echo(f"{printable(label):<{width}}  {count:>7}  {printable(endpoint)}")


@click.command("usage")
@with_appcontext
@click.option("--since", default=None, help="Only calls since: 30m, 24h, 7d or an ISO timestamp.")
@click.option("--company", default=None, help="Only this company (pluginKey).")
def usage_command(since: str | None, company: str | None) -> None:
    """Summarise public requests and MCP tool calls per company and tool."""
    cutoff = parse_since(since)
    # The database checked as by every command: down or not migrated is one line and its exit code.
    with operator_errors(), _mirror().Session() as session:
        rows = usage_rows(session, cutoff, company)
        platforms = platform_rows(session, cutoff, company)
    if not rows:
        click.echo("no invocations recorded")
        return
    click.echo(
        f"{'company':<42} {'tool or endpoint':<36} {'protocol':<8} {'calls':>7} {'agents':>7} "
        f"{'errors':>7} {'mean ms':>8}"
    )
    for r in rows:
        click.echo(
            f"{printable(r['company'] or '-'):<42} {printable(r['what']):<36} {r['protocol']:<8} "
            f"{r['calls']:>7} {r['agents']:>7} {r['errors']:>7} {r['mean_ms']:>8.1f}"
        )
    click.echo("")
    click.echo(f"{'platform':<16} {'calls':>7} {'agents':>7}")
    for platform, calls, agents in platforms:
        click.echo(f"{printable(platform):<16} {calls:>7} {agents:>7}")


@click.command("demo-urls")
@with_appcontext
def demo_urls_command() -> None:
    """Print URLs to try against a public company of the mirror (the first of the business feed)."""
    settings = _mirror().settings
    with operator_errors(), _mirror().Session() as session:
        keys = feed_company_keys(session, 1)
    if not keys:
        click.echo("the mirror holds no public company yet")
        return
    key = keys[0]
    click.echo("Try:")
    for template in (
        urls.PRICING_PAGE,
        urls.PRICING_JSON,
        urls.JSONLD,
        urls.QUOTE_PAGE,
        urls.BUSINESS_FEED + "?page=1&page_size=5",
        urls.WEBMCP_DEMO,
        urls.MCP_SERVER_CARD,
        urls.LLMS_TXT,
    ):
        click.echo(f"  {settings.absolute(urls.company_path(template, key))}")
    click.echo(f"  MCP: {settings.absolute(urls.company_path(urls.COMPANY_MCP, key))} (POST JSON-RPC)")


@products_group.command("explain")
@click.argument("plugin_key")
@click.argument("sku")
@click.option("--json", "as_json", is_flag=True, help="Print the stored reading as one JSON object.")
def products_explain(plugin_key: str, sku: str, as_json: bool) -> None:
    """What the mirror holds product SKU of PLUGIN_KEY to be (its kinds and measures), and which evidence decided it."""
    with operator_errors(as_json):
        _ready_database()
        with _mirror().Session() as session:
            found = explain(session, plugin_key, sku)
        if found is None:
            raise CommandFailed(
                EXIT_UNKNOWN_PRODUCT,
                f"the mirror holds no product {sku!r} of {plugin_key!r}; check the pluginKey and the SKU "
                "(a product the last sync has not brought in yet is not there)",
            )
    if as_json:
        click.echo(json.dumps({"plugin_key": plugin_key, "sku": sku, **found.stored, "up_to_date": found.up_to_date}))
        return
    for line in explanation_lines(found):
        click.echo(line)


def explanation_lines(found) -> list[str]:
    """`products explain`'s text: the product, its kinds and measures, the evidence for each kind, what was overruled."""
    stored = found.stored
    evidence = stored["kind_evidence"] or {"decided_by": [], "overruled": []}
    lines = [
        f"{printable(found.name)} ({found.plugin_key} / {printable(found.sku)})",
        f"  category   {printable(found.category_name)} ({printable(found.category_slug)})",
        f"  trades     {', '.join(found.trades) or '(none)'}",
        f"  kinds      {', '.join(stored['kinds'] or []) or '(none read)'}",
        f"  measures   {', '.join(f'{q} {v}' for q, v in (stored['measures'] or {}).items()) or '(none)'}",
    ]
    if stored.get("features"):  # what its name or specs state it does ("wifi", "variable-speed")
        lines.append(f"  features   {', '.join(stored['features'])}")
    label = "  evidence "
    for kind, source, said, how, *_ in evidence["decided_by"]:
        lines.append(f"{label}  {kind:<22} {how:<12} {source:<13} {printable(said)!r}")
        label = " " * len(label)
    label = "  overruled"
    for kind, source, said, how, by in evidence["overruled"]:
        lines.append(
            f"{label}  {kind:<22} {how:<12} {source:<13} {printable(said)!r} (the specs' {by!r} say otherwise)"
        )
        label = " " * len(label)
    if not found.up_to_date:
        lines.append(
            f"  (today's rules read it as {', '.join(found.current['kinds']) or 'nothing'}: the next sync stores that)"
        )
    return lines


def init_app(app: Flask) -> None:
    """Attach every command to the app's CLI (the demo upstream's own command: demo.init_app)."""
    app.cli.add_command(db_group)
    app.cli.add_command(products_group)
    for command in (sync_command, scheduler_command, sources_command, usage_command, demo_urls_command):
        app.cli.add_command(command)
