"""gunicorn settings read automatically from the working directory (docs/operations.md).

Workers, threads and the bind address stay on the command line; this file
only holds what every deployment needs:

- Prometheus multiprocess mode, so /metrics reports the whole server
  whichever worker answers the scrape: each start gets a fresh
  PROMETHEUS_MULTIPROC_DIR unless one is given (a given one is emptied of the
  previous run's files), and a dead worker's live gauges are dropped.
- gunicorn's access log off unless GUNICORN_ACCESS_LOG is true (the
  invocation log is the access log), and when on, a format without the
  client's address: the invocation log keeps only a keyed hash of it.
"""
from __future__ import annotations

import glob
import os
import tempfile

# Decided here, before any worker imports prometheus_client (it reads the variable at import).
if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="mirror-prometheus-")

# The app's invocation log is the access log (one JSON line per request);
# gunicorn's own is off unless GUNICORN_ACCESS_LOG is true (mirror/config.py).
def _access_log() -> str | None:
    from mirror.config import ConfigError, load_settings

    try:
        return "-" if load_settings().gunicorn_access_log else None
    except ConfigError as error:
        raise SystemExit(f"configuration error: {error}") from None


accesslog = _access_log()

# No %(h)s (remote address) and no %(r)s query strings beyond the path: method, path, status, size, time.
access_log_format = '%(t)s "%(m)s %(U)s" %(s)s %(B)s %(M)sms "%(a)s"'


def on_starting(server) -> None:
    """Counters from a previous run of this directory would be added to this run's."""
    directory = os.environ["PROMETHEUS_MULTIPROC_DIR"]
    for kind in ("counter", "gauge_*", "histogram", "summary"):  # prometheus_client's own files only
        for stale in glob.glob(os.path.join(directory, f"{kind}_*.db")):
            os.remove(stale)


def child_exit(server, worker) -> None:
    """Drop a dead worker's live gauges (its counters stay in the totals, as they should)."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)
