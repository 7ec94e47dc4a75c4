"""Helpers for the hardening tests (issue 12): the app on real loopback HTTP, and hosts that hang.

- `serving(app)`: the app under werkzeug's threaded server on 127.0.0.1 (a
  real socket, real headers), for tests that need HTTP but not gunicorn;
- `hanging_host()`: a loopback listener that accepts every connection and
  never answers, the shape of a hostile agent-profile host or a hung Redis.
"""

from __future__ import annotations

import socket
import threading
from contextlib import contextmanager

from werkzeug.serving import make_server


@contextmanager
def serving(app):
    """Serve `app` on 127.0.0.1 with a thread per request; yields the base URL."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(5)


class HangingHost:
    """A loopback TCP listener that accepts connections, holds them open and never sends a byte."""

    def __init__(self, address: str = "127.0.0.1") -> None:
        self.address = address  # any of 127.0.0.0/8: distinct addresses are distinct hosts to the fetcher
        self._listener = socket.socket()
        self._listener.bind((address, 0))
        self._listener.listen(128)
        self.port = self._listener.getsockname()[1]
        self.accepted: list[socket.socket] = []
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self._listener.accept()
            except OSError:
                return  # closed
            with self._lock:
                self.accepted.append(connection)

    @property
    def host(self) -> str:
        """Its address:port, as UCP_INSECURE_PROFILE_HOSTS lists it."""
        return f"{self.address}:{self.port}"

    @property
    def connections(self) -> int:
        """How many connections it has accepted so far."""
        with self._lock:
            return len(self.accepted)

    def close(self) -> None:
        """Stop listening and drop every held connection."""
        try:
            self._listener.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept() on Linux
        except OSError:
            pass
        self._listener.close()
        with self._lock:
            for connection in self.accepted:
                connection.close()


@contextmanager
def hanging_host(address: str = "127.0.0.1"):
    """A `HangingHost` on `address` for the duration of the block."""
    host = HangingHost(address)
    try:
        yield host
    finally:
        host.close()
