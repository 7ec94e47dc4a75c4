"""Alembic environment: the database comes from DATABASE_URL via mirror.runtime.config.

Migrations take an advisory lock (two deploys never migrate at
once) and a lock_timeout (a migration waiting behind a long query fails fast
instead of blocking every reader queued behind it).
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import text

from mirror.runtime.config import load_settings, normalise_database_url
from mirror.store.db import Base, make_engine
from mirror.store import models  # noqa: F401  (registers the tables)
from mirror.store.fulltext import is_search_index_object

MIGRATION_LOCK_ID = 0x6D6967726174

config = context.config
target_metadata = Base.metadata


def _include_object(_object, name, type_, reflected, compare_to) -> bool:
    # The full-text index (migration 0003) lives outside the ORM metadata.
    return not (reflected and compare_to is None and is_search_index_object(name, type_))


def _url() -> str:
    explicit = config.attributes.get("database_url") or config.get_main_option("sqlalchemy.url")
    return normalise_database_url(explicit) if explicit else load_settings().database_url


def run_migrations_offline() -> None:
    context.configure(
        url=_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        include_object=_include_object,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    engine = make_engine(_url(), writer=True)
    with engine.connect() as connection:
        connection.execute(text("SET lock_timeout = '10s'"))
        connection.execute(text("SELECT pg_advisory_lock(:id)"), {"id": MIGRATION_LOCK_ID})
        connection.commit()
        context.configure(connection=connection, target_metadata=target_metadata, include_object=_include_object)
        with context.begin_transaction():
            context.run_migrations()
        connection.execute(text("SELECT pg_advisory_unlock(:id)"), {"id": MIGRATION_LOCK_ID})
        connection.commit()
    engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
