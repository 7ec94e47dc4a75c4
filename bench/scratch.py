"""Scratch databases for the benchmarks: never the database a caller names, always freshly migrated."""

from __future__ import annotations

# The Postgres server a benchmark makes its scratch databases on, unless told another (--database-url).
DEFAULT_SERVER = "postgresql://root@127.0.0.1:5432/postgres"


def fresh_database(url: str) -> None:
    """An empty, migrated database at `url`: the Postgres database dropped and made anew."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    from mirror.store.migrate import upgrade

    target = make_url(url)
    admin = create_engine(target.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{target.database}" WITH (FORCE)'))
        connection.execute(text(f'CREATE DATABASE "{target.database}"'))
    admin.dispose()
    upgrade(url)


def scratch_database(server_url: str, name: str) -> str:
    """A new, migrated database: `name` created afresh on the Postgres server at `server_url`."""
    from sqlalchemy.engine import make_url

    from mirror.runtime.config import normalise_database_url

    server = make_url(normalise_database_url(server_url))
    url = server.set(database=name).render_as_string(hide_password=False)
    fresh_database(url)
    return url
