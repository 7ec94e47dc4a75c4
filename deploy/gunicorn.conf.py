"""gunicorn settings for production: `gunicorn -c deploy/gunicorn.conf.py 'wsgi:create_app()'` (docs/operations.md).

gunicorn's workers must never face the internet: a client that trickles its
headers or body one byte a second holds a worker thread for as long as it
likes, and ten of them stall every request (`/healthz` included). So the
app binds to loopback only and a buffering proxy (nginx, deploy/nginx-site.conf)
stands in front: nginx reads each request completely, from however slow a
client, before it hands it over, and reads the answer at once.

Everything the repository's own gunicorn.conf.py sets (shared Prometheus
metrics, an access log without client addresses, the worker hooks) is
loaded from there, so it is defined once; this file adds the bind address,
the worker model and the timeouts, from the GUNICORN_* settings (declared in
mirror/runtime/config.py with every other setting, so the README's table lists them
and a bad value is refused at start in one line naming it).
"""

from __future__ import annotations

import os
import runpy

_SHARED = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "gunicorn.conf.py")
_SHARED_CONFIG = runpy.run_path(_SHARED)
globals().update({name: value for name, value in _SHARED_CONFIG.items() if not name.startswith("__")})
# The GUNICORN_* settings, declared with every other in mirror/runtime/config.py and checked by the
# root file's child process: a bad value is one line naming it, at start (on_starting).
_SERVER = _SHARED_CONFIG["_SERVER"]

worker_class = "gthread"
if _SERVER:  # empty when a setting is bad: on_starting refuses before any worker starts
    # Loopback only: the proxy in front is the only client (or the Unix socket unix:/run/mirror/web.sock).
    bind = [_SERVER["bind"]]
    workers = _SERVER["workers"]
    threads = _SERVER["threads"]
    # A worker silent for this long is killed and replaced (the slowest legitimate request is far below it).
    timeout = _SERVER["timeout"]
    graceful_timeout = _SERVER["graceful_timeout"]
    # Idle keep-alive connections from the proxy are closed after this many seconds.
    keepalive = _SERVER["keepalive"]
# The request line and headers gunicorn accepts (nginx enforces its own limits first).
limit_request_line = 8190
limit_request_fields = 100
limit_request_field_size = 8190
