"""Alembic, driven from code (the CLI and the tests share this), and the database's readiness for a command.

`check_database` turns the two ways a command meets a database it cannot use
(it cannot connect, or nobody ran the migrations) into a `DatabaseProblem`
whose message names the database (password redacted) and the fix; the CLI
prints it as one line (docs/operations.md, "Exit codes").
"""

from __future__ import annotations

import logging

from sqlalchemy import text
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import DBAPIError, OperationalError, ProgrammingError

from mirror.runtime.config import PROJECT_ROOT

# Alembic logs a "setup plugin" line per built-in plugin at INFO when it is
# imported and on every command: noise. Set before the import below.
logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)

from alembic import command  # noqa: E402
from alembic.config import Config  # noqa: E402

UPGRADE_COMMAND = ".venv/bin/flask --app wsgi db upgrade"


def alembic_config(database_url: str) -> Config:
    """An Alembic config for this project pointed at one database."""
    config = Config(str(PROJECT_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(PROJECT_ROOT / "migrations"))
    config.attributes["database_url"] = database_url
    return config


def upgrade(database_url: str, revision: str = "head") -> None:
    """Migrate a database up to `revision`."""
    command.upgrade(alembic_config(database_url), revision)


def create_extension(name: str) -> None:
    """`CREATE EXTENSION IF NOT EXISTS name`, inside a migration; a role that may not gets one line naming the fix."""
    import sqlalchemy as sa
    from alembic import op

    bind = op.get_bind()
    try:
        with bind.begin_nested():
            op.execute(f"CREATE EXTENSION IF NOT EXISTS {name}")
    except sa.exc.DBAPIError as error:
        database = bind.engine.url.database
        raise RuntimeError(
            f"cannot create the {name} extension in database {database!r} ({str(error.orig).splitlines()[0]}); "
            f"run `CREATE EXTENSION {name};` in it as a superuser, or grant the migrating role CREATE on it"
        ) from None


class DatabaseProblem(Exception):
    """The database cannot serve a command: `kind` is "unreachable" or "not_migrated"."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def describe_database(database_url: str) -> str:
    """Where a DATABASE_URL points, for messages: `host:port/name` or `socket-folder/name`.

    No password. The embedded Postgres (mirror/store/embedded.py) is reached through a Unix socket
    named in the query (`postgresql://postgres@/mirror?host=/path/instance/postgres`).
    """
    url = make_url(database_url)
    socket_folder = url.query.get("host") if not url.host else None
    if isinstance(socket_folder, str) and socket_folder.startswith("/"):
        return f"{socket_folder}/{url.database or ''}"
    return f"{url.host or 'localhost'}:{url.port or 5432}/{url.database or ''}"


def _first_line(error: BaseException) -> str:
    original = getattr(error, "orig", None) or error
    lines = [line.strip() for line in str(original).splitlines() if line.strip()]
    return lines[0][:200] if lines else type(original).__name__


def database_problem(error: BaseException, database_url: str) -> DatabaseProblem | None:
    """Explain a database error a command met, or None when it is not about reaching or migrating it."""
    where = describe_database(database_url)
    reason = _first_line(error).replace(make_url(database_url).password or "\0", "***")
    missing_table = "UndefinedTable" in type(getattr(error, "orig", error)).__name__
    if isinstance(error, (OperationalError, ProgrammingError)) and missing_table:
        return DatabaseProblem(
            "not_migrated", f"the database {where} is not migrated ({reason}); run `{UPGRADE_COMMAND}`"
        )
    if isinstance(error, DBAPIError) and (error.connection_invalidated or isinstance(error, OperationalError)):
        return DatabaseProblem(
            "unreachable", f"cannot use the database {where} ({reason}); check DATABASE_URL and that the server is up"
        )
    return None


def check_database(engine: Engine, database_url: str) -> None:
    """Raise DatabaseProblem unless the database answers and holds the migrated schema."""
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1 FROM sync_runs WHERE 1 = 0"))
    except DBAPIError as error:
        problem = database_problem(error, database_url)
        if problem is None:
            raise
        raise problem from None
