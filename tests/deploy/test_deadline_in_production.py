"""The request deadline on the production server: gunicorn from deploy/gunicorn.conf.py, one worker, Postgres.

tests/web/test_request_deadline.py pins each surface's answer in process; this
drill runs the documented web unit and makes a request's statement wait for
real: another session holds the products table locked, so the cold view's
statement blocks inside Postgres. The request must come back 503 with
Retry-After at about its deadline (the database cancelled the statement),
and the one worker must answer the next request at once when the lock goes:
it was never left waiting on the statement.
"""

from __future__ import annotations

import time
from contextlib import ExitStack

import psycopg
import pytest
import requests

from tests.deploy.test_production_topology import _wait, production_env, unit_process
from tests.ops_helpers import free_port, unique_prefix
from tests.surface_helpers import add_company, sync

DEADLINE = 1.5


@pytest.mark.slow
def test_a_statement_past_the_deadline_is_cancelled_and_the_worker_is_free(database_url, mirror, upstream):
    key = add_company(upstream)
    other = add_company(upstream)
    sync(mirror)
    port = free_port()
    env = {
        **production_env(database_url, upstream, port, unique_prefix()),
        "GUNICORN_WORKERS": "1",
        "REQUEST_DEADLINE_SECONDS": str(DEADLINE),
    }
    base = f"http://127.0.0.1:{port}"
    with ExitStack() as stack:
        web, log = stack.enter_context(unit_process("mirror-web.service", env))
        _wait("gunicorn to answer", lambda: requests.get(f"{base}/healthz", timeout=5).ok, [(web, log)])
        holder = stack.enter_context(psycopg.connect(database_url.replace("+psycopg", ""), autocommit=False))
        holder.execute("LOCK TABLE products IN ACCESS EXCLUSIVE MODE")

        started = time.monotonic()
        blocked = requests.get(f"{base}/companies/{key}/pricing.json", timeout=30)
        waited = time.monotonic() - started
        assert blocked.status_code == 503, blocked.text[:300]
        assert blocked.headers["Retry-After"] == "2" and blocked.json()["error"] == "deadline_exceeded"
        assert DEADLINE <= waited < DEADLINE + 2, waited  # cancelled at the deadline, not at gunicorn's timeout

        holder.rollback()  # the lock goes
        started = time.monotonic()
        served = requests.get(f"{base}/companies/{other}/pricing.json", timeout=30)
        assert served.status_code == 200 and served.json()["categories"]
        assert time.monotonic() - started < 2, "the one worker was still busy with the cancelled request"
        assert web.poll() is None  # the worker was never killed: the same master, serving
