"""The mirror's handles on its database: one object the app, CLI and tests share."""

from __future__ import annotations

from functools import cached_property

from mirror.read.gate import GateWatcher
from mirror.render.documents import DocumentSet, publish
from mirror.runtime.config import Settings
from mirror.store.db import make_engine, make_session_factory
from mirror.sync import run_sync
from mirror.sync.upstream import UpstreamClient


class Mirror:
    """Engines and session factories for one database, and the replica its requests may read.

    Readers use snapshot transactions; the sync uses a separate writer engine.

    Two addresses: `DATABASE_URL` is the primary, where everything that
    writes or must see the latest commit goes (the sync, the scheduler's
    "synced recently?" check, the sync lock, the usage rows, migrations);
    `DATABASE_READ_URL`, when set, is where request sessions read (a
    streaming replica, which replays each sync's transaction whole). Unset,
    both are the one database and share one engine.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._on_dispose: list = []
        # The documents each run renders for the companies it changed; the surfaces add theirs at start-up.
        self.documents = DocumentSet()

    def on_dispose(self, close) -> None:
        """Call `close()` first whenever the mirror is disposed (the app's background writer)."""
        self._on_dispose.append(close)

    @property
    def read_url(self) -> str:
        """Where requests read: DATABASE_READ_URL, or DATABASE_URL when that is unset."""
        return self.settings.database_read_url or self.settings.database_url

    @cached_property
    def engine(self):
        """The read-side engine of requests (the replica, when DATABASE_READ_URL is set)."""
        return make_engine(self.read_url)

    @cached_property
    def primary_engine(self):
        """A read-side engine on the primary (the scheduler, the sync lock check); `engine` without a replica."""
        if self.read_url == self.settings.database_url:
            return self.engine
        return make_engine(self.settings.database_url)

    @cached_property
    def writer_engine(self):
        """The sync's engine (always the primary)."""
        return make_engine(self.settings.database_url, writer=True, pool_size=2)

    @cached_property
    def Session(self):
        """Read-side session factory of requests (the replica, when there is one)."""
        return make_session_factory(self.engine)

    @cached_property
    def PrimarySession(self):
        """Read-side session factory on the primary: for what must see the latest commit."""
        return make_session_factory(self.primary_engine)

    @cached_property
    def gate_state(self) -> GateWatcher:
        """This process's gate state (mirror/read/gate.py), read where requests read."""
        return GateWatcher(self.engine)

    @cached_property
    def WriterSession(self):
        """Sync-side session factory."""
        return make_session_factory(self.writer_engine)

    def upstream_client(self, **kwargs) -> UpstreamClient:
        """A client for the configured upstream; a clear error when unset."""
        if not self.settings.upstream_url or not self.settings.upstream_token:
            raise RuntimeError("UPSTREAM_URL and UPSTREAM_TOKEN must be set to sync")
        bounds = {
            "page_deadline_seconds": self.settings.upstream_page_deadline_seconds,
            "max_page_bytes": self.settings.upstream_max_page_bytes,
        }
        return UpstreamClient(self.settings.upstream_url, self.settings.upstream_token, **(bounds | kwargs))

    def sync(self, **kwargs):
        """Run one sync against the configured upstream (see mirror.sync.run_sync)."""
        client = kwargs.pop("client", None) or self.upstream_client()
        try:
            settings = {
                "overlap_seconds": self.settings.sync_overlap_seconds,
                "deadline_seconds": self.settings.sync_run_deadline_seconds,
                "max_clock_skew_seconds": self.settings.upstream_max_clock_skew_seconds,
                "publish": self.publish,
            }
            result = run_sync(self.writer_engine, self.WriterSession, client, **(settings | kwargs))
        finally:
            client.close()
        if "gate_state" in self.__dict__:  # this process's requests follow its own commit at once
            self.gate_state.invalidate()
        return result

    def publish(self, session) -> int:
        """Render and store, in `session`'s transaction, the documents that are missing or stale (a run's last
        step; mirror/render/documents.py). Returns how many companies were rendered."""
        return publish(session, self.settings, self.documents)

    def dispose(self) -> None:
        """Close pooled connections (tests, forks)."""
        for close in self._on_dispose:
            close()
        if "gate_state" in self.__dict__:
            self.gate_state.stop()
        for name in ("engine", "primary_engine", "writer_engine"):
            if name in self.__dict__:
                self.__dict__[name].dispose()  # primary_engine may be `engine` itself: dispose() twice is harmless
