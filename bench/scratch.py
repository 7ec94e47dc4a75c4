"""Scratch databases for the benchmarks: never the database a caller names, always freshly migrated."""

from __future__ import annotations

import tempfile


def scratch_database(server_url: str | None, name: str) -> str:
    """A new, migrated database: a temporary SQLite file (`server_url` None), or `name` created afresh on that server."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    from mirror.config import normalise_database_url
    from mirror.migrate import upgrade

    if server_url is None:
        url = f"sqlite:///{tempfile.mkdtemp(prefix=f'{name}-')}/mirror.sqlite3"
    else:
        server = make_url(normalise_database_url(server_url))
        admin = create_engine(server, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        admin.dispose()
        url = server.set(database=name).render_as_string(hide_password=False)
    upgrade(url)
    return url
