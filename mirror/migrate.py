"""Alembic, driven from code (the CLI and the tests share this)."""
from __future__ import annotations

from alembic import command
from alembic.config import Config

from mirror.config import PROJECT_ROOT


def alembic_config(database_url: str) -> Config:
    """An Alembic config for this project pointed at one database."""
    config = Config(str(PROJECT_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(PROJECT_ROOT / "migrations"))
    config.attributes["database_url"] = database_url
    return config


def upgrade(database_url: str, revision: str = "head") -> None:
    """Migrate a database up to `revision`."""
    command.upgrade(alembic_config(database_url), revision)
