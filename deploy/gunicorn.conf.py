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
the worker model and the timeouts. Each can be overridden by the environment
variable named beside it.
"""

from __future__ import annotations

import os
import runpy

_SHARED = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "gunicorn.conf.py")
globals().update({name: value for name, value in runpy.run_path(_SHARED).items() if not name.startswith("__")})

# Loopback only: the proxy in front is the only client (a Unix socket, "unix:/run/mirror.sock", works too).
bind = [os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")]
worker_class = "gthread"
workers = int(os.environ.get("GUNICORN_WORKERS", "4"))
threads = int(os.environ.get("GUNICORN_THREADS", "4"))
# A worker silent for this long is killed and replaced (the slowest legitimate request is far below it).
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = int(os.environ.get("GUNICORN_GRACEFUL_TIMEOUT", "30"))
# Idle keep-alive connections from the proxy are closed after this many seconds.
keepalive = int(os.environ.get("GUNICORN_KEEPALIVE", "5"))
# The request line and headers gunicorn accepts (nginx enforces its own limits first).
limit_request_line = 8190
limit_request_fields = 100
limit_request_field_size = 8190
