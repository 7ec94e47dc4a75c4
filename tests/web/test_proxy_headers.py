"""Forwarding headers are believed only from a trusted proxy; a client identity is an IP address (issue 22, section 5).

With TRUSTED_PROXY_HOPS=1 the app used to believe X-Forwarded-For from any
peer (werkzeug's ProxyFix): anyone reaching gunicorn directly got a fresh
share of a company's budget with every made-up address, and 100 requests
429ed the company for everyone; `garbage-{i}` and `203.0.113.9:{port}` were
new identities too. Now (web/proxies.py) the headers count only from a peer
in TRUSTED_PROXIES, and an identity is an address: ports stripped, IPv6 by
its /64, anything else one shared bucket.

Over real HTTP: gunicorn with two workers counting in the real Redis
(TEST_REDIS_URL), requests sent from chosen loopback addresses
(127.0.0.1 is the trusted proxy, 127.0.0.2 a client that reaches gunicorn
directly), then deploy/nginx-site.conf's nginx in front, as documented.
"""

from __future__ import annotations

import http.client
import ipaddress

import pytest

from tests.ops_helpers import (
    TEST_REDIS_URL,
    process_env,
    redis_client,
    redis_keys,
    running_gunicorn,
    unique_prefix,
)
from tests.surface_helpers import add_company, sync
from web.proxies import UNKNOWN_CLIENT, TrustedProxies, parse_address

SHARE = 10  # RATE_LIMIT_PER_COMPANY=40/hour x the default share 0.25; the ceiling (2x) is 80
PROXY, DIRECT = "127.0.0.1", "127.0.0.2"


def get_from(source: str, port: int, path: str, forwarded_for: str | None = None) -> int:
    """GET on a new connection from the loopback address `source`; the status."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    try:
        connection.request("GET", path, headers={"X-Forwarded-For": forwarded_for} if forwarded_for else {})
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def served(statuses: list[int]) -> int:
    """How many were answered (200); the rest must all be the limit's 429."""
    assert set(statuses) <= {200, 429}, statuses
    return statuses.count(200)


@pytest.fixture
def limited(database_url, upstream, mirror):
    """gunicorn behind one trusted proxy at 127.0.0.1, counting in Redis; yields (port, key_factory)."""
    redis = redis_client()
    prefix = unique_prefix()
    keys = [add_company(upstream) for _ in range(6)]
    sync(mirror)
    env = process_env(
        database_url,
        upstream,
        TRUSTED_PROXY_HOPS=1,
        TRUSTED_PROXIES=PROXY,
        RATE_LIMIT_STORAGE_URI=TEST_REDIS_URL,
        RATE_LIMIT_KEY_PREFIX=prefix,
        RATE_LIMIT_PER_COMPANY="40/hour",
    )
    try:
        with running_gunicorn(env, 2) as base:
            yield int(base.rsplit(":", 1)[1]), iter(keys)
    finally:
        for stored in redis_keys(redis, prefix):
            redis.delete(stored)


def test_a_direct_peer_gets_one_share_however_it_forwards(limited):
    port, keys = limited
    path = f"/companies/{next(keys)}/pricing.json"
    statuses = [get_from(DIRECT, port, path, f"203.0.113.{i}") for i in range(100)]
    assert served(statuses) == SHARE  # one client: its own share, not 100 fresh ones
    # ... and the company is still open to everyone else (the ceiling was never reached).
    assert get_from(PROXY, port, path, "198.51.100.7") == 200


ONE_IDENTITY_EACH = (
    "garbage-{i}",  # not an address: the one shared bucket
    "203.0.113.9:{port}",  # a load balancer that appends the client's port
    "[2001:db8::1]:{port}",
    "2001:db8:0:0:{i:x}::1",  # one IPv6 /64
    "::ffff:203.0.113.10",  # IPv4-mapped IPv6 is the IPv4 client
)


def test_what_a_trusted_proxy_forwards_is_one_identity_per_address(limited):
    port, keys = limited
    for entry in ONE_IDENTITY_EACH:
        path = f"/companies/{next(keys)}/pricing.json"  # a company (a budget) of its own for each form
        entries = [entry.format(i=i, port=40000 + i) for i in range(SHARE + 20)]
        assert served([get_from(PROXY, port, path, forwarded) for forwarded in entries]) == SHARE, entry


def test_a_trusted_proxys_header_is_still_believed(limited):
    port, keys = limited
    path = f"/companies/{next(keys)}/pricing.json"
    first = [get_from(PROXY, port, path, "198.51.100.1") for _ in range(SHARE + 2)]
    second = [get_from(PROXY, port, path, "spoofed, 198.51.100.2") for _ in range(3)]  # the rightmost entry only
    garbage = [get_from(PROXY, port, path, "garbage") for _ in range(3)]
    assert served(first) == SHARE and first[-1] == 429
    assert second == [200] * 3  # another client, its own share: the proxy's word counts
    assert garbage == [200] * 3  # the unknown bucket is a client of its own, not the proxy's or anyone's


@pytest.mark.slow
def test_behind_the_documented_nginx_each_real_client_is_one_identity(limited):
    from tests.deploy.test_slow_clients import deploy_nginx

    port, keys = limited
    # With a query string: nginx's documents' cache answers a plain repeat itself, which the app never counts.
    path = f"/companies/{next(keys)}/pricing.json?source=identity"
    with deploy_nginx(port) as public:  # nginx connects from 127.0.0.1 and appends the address it saw
        spoofing = [get_from("127.0.0.3", public, path, f"203.0.113.{i}") for i in range(SHARE + 10)]
        other = [get_from("127.0.0.4", public, path, "203.0.113.1") for _ in range(3)]
        direct = [get_from(DIRECT, port, path, "127.0.0.5") for _ in range(SHARE + 2)]  # around nginx
    assert served(spoofing) == SHARE
    assert other == [200] * 3
    assert served(direct) == SHARE


# --- the rule itself, entry by entry ---------------------------------------------------------


@pytest.mark.parametrize(
    "text, address",
    [
        ("203.0.113.9", "203.0.113.9"),
        ("203.0.113.9:4711", "203.0.113.9"),
        (" 203.0.113.9 ", "203.0.113.9"),
        ("[2001:db8::1]:443", "2001:db8::1"),
        ("[2001:db8::1]", "2001:db8::1"),
        ("2001:DB8::1", "2001:db8::1"),
        ("::ffff:10.1.2.3", "10.1.2.3"),
        ("fe80::1%eth0", "fe80::1"),
        ("garbage-3", None),
        ("unknown", None),
        ("", None),
        ("203.0.113.9:99999", None),
        ("203.0.113.9:", None),
        ("[2001:db8::1]x", None),
        ("[2001:db8::1", None),
        ("1" * 100, None),
    ],
)
def test_an_entry_is_an_address_or_nothing(text, address):
    parsed = parse_address(text)
    assert (str(parsed) if parsed is not None else None) == address


LOOPBACK = (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1"))
BALANCERS = (*LOOPBACK, ipaddress.ip_network("10.0.0.0/8"))


@pytest.mark.parametrize(
    "networks, hops, peer, forwarded, client",
    [
        (LOOPBACK, 1, "203.0.113.1", "198.51.100.1", "203.0.113.1"),  # an untrusted peer is the client
        (LOOPBACK, 1, "127.0.0.1", "198.51.100.1, 198.51.100.2", "198.51.100.2"),  # the proxy's own entry
        (LOOPBACK, 1, "::1", "198.51.100.2:5555", "198.51.100.2"),
        (LOOPBACK, 1, "127.0.0.1", "garbage", UNKNOWN_CLIENT),
        (LOOPBACK, 1, "", "198.51.100.2", "198.51.100.2"),  # a Unix socket's peer: the local proxy
        (BALANCERS, 2, "127.0.0.1", "6.6.6.6, 198.51.100.2, 10.0.0.5", "198.51.100.2"),  # balancer, then nginx
        (BALANCERS, 2, "127.0.0.1", "6.6.6.6, 198.51.100.2", "198.51.100.2"),  # straight to nginx: walk stops
        (LOOPBACK, 1, "127.0.0.1", "6.6.6.6, 127.0.0.9", "127.0.0.9"),  # a local client names nobody else...
        (BALANCERS, 2, "127.0.0.1", "6.6.6.6, 10.0.0.8, 10.0.0.5", "10.0.0.8"),  # ...nor a balancer-net one
        (LOOPBACK, 2, "127.0.0.1", "6.6.6.6, 10.0.0.5", "10.0.0.5"),  # an unlisted balancer is the client
    ],
)
def test_the_walk_steps_left_only_from_trusted_proxies_and_only_hops_times(networks, hops, peer, forwarded, client):
    assert TrustedProxies(None, networks, hops).walk(peer, forwarded)[0] == client
