"""A connection nobody answers fails at once on a client's first request, and is retried after (issue 22, section 7).

The CLI with the `.flaskenv` of a stopped `make run` used to retry an absent
upstream for 17 s of backoff before its (clear) message. Now a connection that
cannot be opened before the upstream has answered the client once is
`UpstreamUnreachable` at once (mirror/sync/upstream.py); once the upstream has
answered, a refused connection is a restart in the middle of a walk and is
retried like a reset. Real sockets throughout: a port nobody listens on, and
the demo upstream stopped and started again on its port.
"""

from __future__ import annotations

import pytest

from demo.server import start_in_thread
from mirror.sync.upstream import UpstreamClient, UpstreamUnreachable
from tests.ops_helpers import free_port


def test_a_refused_first_connection_fails_at_once_without_a_retry():
    slept: list[float] = []
    client = UpstreamClient(f"http://127.0.0.1:{free_port()}", "demo-token", sleep=slept.append)
    with pytest.raises(UpstreamUnreachable, match="connection refused"):
        next(client.walk("/v1/companies"))
    assert client.requests_made == 1 and slept == []


def test_a_refused_connection_after_the_upstream_answered_is_retried():
    upstream = start_in_thread(companies=6, products=2, seed=3)
    expected = len(upstream.catalog.company_keys())
    restarted = []

    def restart_the_upstream(_seconds: float) -> None:  # the backoff's wait: the upstream comes back on its port
        if not restarted:
            restarted.append(start_in_thread(catalog=upstream.catalog, port=upstream.port))

    client = UpstreamClient(upstream.url, "demo-token", page_limit=2, backoff_seconds=0.0, sleep=restart_the_upstream)
    try:
        pages = client.walk("/v1/companies")
        first = next(pages)
        upstream.stop()  # a restart of the platform in the middle of the walk: nothing listens for a moment
        rest = [record for page in pages for record in page.data]
    finally:
        for server in restarted:
            server.stop()
    assert restarted, "the refused connection was not retried"
    # The walk went on against the restarted upstream and saw every company.
    assert {r["plugin_key"] for r in first.data + rest} == set(upstream.catalog.company_keys())
    assert len(first.data) < expected
