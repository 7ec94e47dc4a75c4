"""Scratch databases for the benchmarks: never the database a caller names, always freshly migrated."""

from __future__ import annotations

import tempfile
from pathlib import Path


def fresh_database(url: str) -> None:
    """An empty, migrated database at `url`: the SQLite file (and its WAL) removed, or the Postgres database made anew."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    from mirror.migrate import upgrade

    if url.startswith("sqlite"):
        path = Path(url.split("///", 1)[-1])
        path.parent.mkdir(parents=True, exist_ok=True)
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
    else:
        target = make_url(url)
        admin = create_engine(target.set(database="postgres"), isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{target.database}" WITH (FORCE)'))
            connection.execute(text(f'CREATE DATABASE "{target.database}"'))
        admin.dispose()
    upgrade(url)


def scratch_database(server_url: str | None, name: str) -> str:
    """A new, migrated database: a temporary SQLite file (`server_url` None), or `name` created afresh on that server."""
    from sqlalchemy.engine import make_url

    from mirror.config import normalise_database_url

    if server_url is None:
        url = f"sqlite:///{tempfile.mkdtemp(prefix=f'{name}-')}/mirror.sqlite3"
    else:
        server = make_url(normalise_database_url(server_url))
        url = server.set(database=name).render_as_string(hide_password=False)
    fresh_database(url)
    return url
