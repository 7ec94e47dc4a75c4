"""gunicorn settings read automatically from the working directory (docs/operations.md).

The app is `'wsgi:create_app()'`; workers, threads and the bind address stay
on the command line. This file only holds what every deployment needs:

- A bad setting stops the server at start with one line naming it, rather
  than every worker failing in turn while the master keeps replacing them.
- Prometheus multiprocess mode, so /metrics reports the whole server
  whichever worker answers the scrape: each start gets a fresh
  PROMETHEUS_MULTIPROC_DIR unless one is given (a given one is emptied of the
  previous run's files), removed when the server stops, and a dead worker's
  live gauges are dropped.
- A retiring worker (a restart, --max-requests) writes the invocation and
  source rows it still holds before it goes.
- gunicorn's access log off unless GUNICORN_ACCESS_LOG is true (the
  invocation log is the access log), and when on, a format without the
  client's address: the invocation log keeps only a keyed hash of it.
- gunicorn's own reading of forwarding headers off: the app believes them
  by its one rule (TRUSTED_PROXIES, TRUSTED_PROXY_HOPS).
- With GUNICORN_REUSE_PORT true, one listening socket per worker
  (SO_REUSEPORT) on TCP binds, so the kernel spreads connections evenly
  over the workers.
- gunicorn's control socket off: by default every gunicorn of a user on a
  host binds the same path (~/.gunicorn/gunicorn.ctl), so a second server
  takes it over from the first and `gunicornc` would steer the wrong one.
  Nothing here uses it (systemd and signals run the server).
- Each worker, once it has loaded the app, moves what start-up built out of
  the cyclic garbage collector's reach (`gc.freeze`), so its collections
  scan the requests' objects and the render cache, not every module.
"""

from __future__ import annotations

import gc
import glob
import os
import sys
import tempfile

# Decided here, before any worker imports prometheus_client (it reads the variable at import).
# A folder made here holds a marker file, so that the exit (on_exit) removes exactly the
# folders this file made, never one an operator gave: a reload (HUP) runs this file again
# in the same master, with the variable already set, and would not know it otherwise.
_MADE_HERE = ".made-by-gunicorn-conf"
if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="mirror-prometheus-")
    open(os.path.join(os.environ["PROMETHEUS_MULTIPROC_DIR"], _MADE_HERE), "x").close()


def _check_settings():
    """Validate the settings in a child process; its result (printed: gunicorn's settings, as JSON).

    A child process, because workers are forked from the master: a module the
    master imported (the settings, pydantic) would be the old one in every
    worker a HUP starts after an upgrade.
    """
    import subprocess

    return subprocess.run([sys.executable, "-c", _CHECK_SETTINGS], capture_output=True, text=True)


_CHECK_SETTINGS = """
import json
from mirror.runtime.config import settings_or_exit
settings = settings_or_exit()
print(json.dumps({name: getattr(settings, "gunicorn_" + name) for name in (
    "access_log", "reuse_port", "bind", "workers", "threads", "timeout", "graceful_timeout", "keepalive")}))
"""
_SETTINGS = _check_settings()
# The GUNICORN_* settings (declared in mirror/runtime/config.py), by gunicorn's names; empty when a
# setting is bad: on_starting then refuses with its one line before any worker starts.
_SERVER = __import__("json").loads(_SETTINGS.stdout.splitlines()[-1]) if _SETTINGS.returncode == 0 else {}

# No control socket (gunicorn >= 25.1): its default path is one per user and host, shared by every
# gunicorn started there (the demo's, a test's, production's), so the last one to start would own it.
control_socket_disable = True

# The app's invocation log is the access log (one JSON line per request);
# gunicorn's own is off unless GUNICORN_ACCESS_LOG is true (mirror/runtime/config.py).
accesslog = "-" if _SERVER.get("access_log") else None

# No %(h)s (remote address) and no %(r)s query strings beyond the path: method, path, status, size, time.
access_log_format = '%(t)s "%(m)s %(U)s" %(s)s %(B)s %(M)sms "%(a)s"'

# Forwarding headers have one rule, the app's (web/proxies.py: TRUSTED_PROXY_HOPS and
# TRUSTED_PROXIES decide the client and the scheme). gunicorn's own reading of them
# (X-Forwarded-Proto and its like from forwarded_allow_ips, SCRIPT_NAME/PATH_INFO headers)
# would be a second rule with a list of its own, so it is off.
secure_scheme_headers: dict[str, str] = {}
forwarder_headers = ""


# GUNICORN_REUSE_PORT: each worker listens on a socket of its own
# (SO_REUSEPORT) and the kernel hashes new connections across them. With the
# one shared socket, the worker that wakes first takes a whole burst of
# keep-alive connections and keeps them: measured with bench/serve.py's 16
# connections opened at once, all 16 landed on one of the two workers in half
# the runs, which halved the throughput (one core idle). Off by default: a
# retiring worker's socket closes with it, and the kernel resets the
# connections still queued on it unless net.ipv4.tcp_migrate_req=1 hands them
# to the others. on_starting turns it off where it cannot apply.
reuse_port = bool(_SERVER.get("reuse_port"))


def on_starting(server) -> None:
    """Refuse bad settings; drop counters a previous run of this directory would add to this run's."""
    _refuse_bad_settings()
    _shared_socket_unless_tcp(server)
    directory = os.environ["PROMETHEUS_MULTIPROC_DIR"]
    for kind in ("counter", "gauge_*", "histogram", "summary"):  # prometheus_client's own files only
        for stale in glob.glob(os.path.join(directory, f"{kind}_*.db")):
            os.remove(stale)


def _shared_socket_unless_tcp(server) -> None:
    """One shared socket for Unix-socket and fd binds and under systemd socket activation.

    A socket per worker needs a TCP address every worker can bind again;
    a Unix socket path would be unlinked and re-created by each worker in
    turn (only the last one would get connections), and inherited sockets
    (fd://, LISTEN_FDS) are the ones to use as they are.
    """
    cfg = getattr(server, "cfg", None)
    if cfg is None or not cfg.reuse_port:
        return
    tcp = all(not bind.startswith(("unix:", "fd://")) for bind in cfg.bind or [])
    if not tcp or os.environ.get("LISTEN_FDS"):
        cfg.set("reuse_port", False)


def _refuse_bad_settings() -> None:
    """The child's one line (the one create_app prints in a worker or the CLI), and its exit status (2)."""
    if _SETTINGS.returncode:
        print((_SETTINGS.stderr.strip().splitlines() or ["configuration error"])[-1], file=sys.stderr)
        _remove_metrics_dir_made_here()  # on_exit is not called for a start refused here
        raise SystemExit(_SETTINGS.returncode)


def on_exit(server) -> None:
    """The master stops: remove the metrics folder this file made (a given one stays, emptied at the next start)."""
    _remove_metrics_dir_made_here()


def _remove_metrics_dir_made_here() -> None:
    import shutil

    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")
    if directory and os.path.exists(os.path.join(directory, _MADE_HERE)):
        shutil.rmtree(directory, ignore_errors=True)


def post_worker_init(worker) -> None:
    """In each worker, the app loaded: start-up's objects frozen out of the cyclic GC's scans.

    Imports and the app leave about 130,000 tracked objects that live as long
    as the worker. Every full collection walked them all: with a busy render
    cache, pauses of up to 150 ms (the tail of a cold request's latency) and
    about a tenth of a cold request's CPU. Frozen, a full collection walks
    the cache and the requests' objects only (measured in process, cold
    hosted pages: the longest pause 153 -> 55 ms, collection time per
    request about a third lower). Frozen objects are still freed by
    reference counting when released; only cycles among them would stay.
    """
    gc.collect()
    gc.freeze()


def worker_exit(server, worker) -> None:
    """In the retiring worker: dispose the app's mirror, which flushes its background writer."""
    app = getattr(worker, "wsgi", None)  # absent when the app never loaded (and in the master)
    mirror = getattr(app, "extensions", {}).get("mirror")
    if mirror is not None:
        mirror.dispose()


def child_exit(server, worker) -> None:
    """Drop a dead worker's live gauges (its counters stay in the totals, as they should)."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)
