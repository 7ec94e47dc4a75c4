"""The agent-profile fetcher's fences, against real local HTTP servers, and its cache.

Positive paths use a server on 127.0.0.1 listed as a development host
(UCP_ALLOW_INSECURE_PROFILES with UCP_INSECURE_PROFILE_HOSTS: tests and local
development only); private addresses are refused by the address check itself
(tested directly) and end to end (test_ucp_conformance, and here with the
setting off). Every failure past the URL's own checks is one code and one
text for the caller (UNFETCHABLE_CONTENT); its reason is `detail`, logged.
"""

from __future__ import annotations

import json
import socket
import time
from urllib.parse import urlsplit

import pytest

from mcp_server.ucp import agent_profile as ap
from mcp_server.ucp.agent_profile import UNFETCHABLE_CONTENT, AgentProfiles, FetchPolicy, ProfileError, fetch_profile
from mcp_server.ucp.versions import negotiate
from mirror.store.models import Company
from mirror.values.addresses import address_allowed
from tests.ucp_helpers import (
    AGENT_PROFILE,
    RELEASES,
    UCP_HEADERS,
    Route,
    agent_profile,
    insecure_policy,
    profile_server,
)

STRICT = FetchPolicy()


def refused(url, policy=None) -> ProfileError:
    """The ProfileError fetching `url` raises (default policy: its own host:port listed for development)."""
    with pytest.raises(ProfileError) as caught:
        fetch_profile(url, policy or insecure_policy(urlsplit(url).netloc))
    return caught.value


def unfetchable(error: ProfileError, reason: str) -> bool:
    """The caller's one answer for any failed fetch, with `reason` kept for the log."""
    return error.code == "profile_unreachable" and error.content == UNFETCHABLE_CONTENT and reason in error.detail


@pytest.fixture
def profiles():
    with profile_server() as server:
        yield server


# --- the address check -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "127.8.9.10",
        "::1",  # loopback
        "10.0.0.1",
        "172.16.5.4",
        "192.168.1.1",
        "fd00:ec2::254",
        "fc00::1",  # private
        "169.254.169.254",
        "169.254.0.1",
        "fe80::1",  # link-local, cloud metadata
        "100.100.100.200",
        "100.64.0.1",  # shared address space (metadata on some clouds)
        "::ffff:10.0.0.1",
        "::ffff:169.254.169.254",
        "::ffff:127.0.0.1",  # IPv4-mapped
        "0.0.0.0",
        "::",
        "224.0.0.1",
        "ff02::1",
        "240.0.0.1",
        "192.0.2.1",
        "2001:db8::1",
        "not an address",
    ],
)
def test_non_public_addresses_are_refused(address):
    assert address_allowed(address) is False


@pytest.mark.parametrize(
    "address", ["8.8.8.8", "1.1.1.1", "151.101.1.69", "2606:4700:4700::1111", "2a00:1450:4001:80b::200e"]
)
def test_public_addresses_are_allowed(address):
    assert address_allowed(address) is True


def test_loopback_is_allowed_only_with_the_insecure_setting():
    assert address_allowed("127.0.0.1", allow_loopback=True) and address_allowed("::1", allow_loopback=True)
    assert not address_allowed("10.0.0.1", allow_loopback=True)
    assert not address_allowed("169.254.169.254", allow_loopback=True)


# --- URL rules -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        None,
        "",
        42,
        "agent.json",
        "ftp://agent.example/p.json",
        "https://",
        "https://user:pw@agent.example/p.json",
        "https://agent.example:99999/p",
        "https://agent.example/p\njson",
        "http://agent.example/p.json",
    ],
)
def test_malformed_or_insecure_urls_are_invalid_profile_urls(url):
    assert refused(url, STRICT).code == "invalid_profile_url"


def test_http_is_refused_unless_the_setting_lists_the_host(profiles):
    url = profiles.url + "/agent.json"
    by_name = url.replace("127.0.0.1", "localhost")
    listed = insecure_policy(profiles.host)
    assert refused(url, STRICT).code == "invalid_profile_url"
    assert refused("http://10.0.0.7/agent.json", listed).code == "invalid_profile_url"
    assert refused(by_name, listed).code == "invalid_profile_url"  # another spelling is another host
    assert fetch_profile(url, listed).document == AGENT_PROFILE
    assert fetch_profile(by_name, insecure_policy(f"localhost:{urlsplit(url).port}")).document == AGENT_PROFILE
    assert unfetchable(refused("http://10.0.0.7/agent.json", insecure_policy("10.0.0.7")), "non-public")


def test_https_to_loopback_is_refused_without_the_setting(profiles):
    error = refused(profiles.url.replace("http://", "https://") + "/agent.json", STRICT)
    assert unfetchable(error, "non-public address")
    assert profiles.hits == []  # refused before any connection


def test_the_checked_address_is_the_one_connected_to(profiles, monkeypatch):
    """DNS rebinding: one resolution, checked, then a connection to that very address."""
    port = int(profiles.url.rsplit(":", 1)[1])
    answers = []

    def resolver(host, *args, **kwargs):  # a rebinding DNS: the first answer passes, later ones would not
        answers.append(host)
        address = "127.0.0.1" if len(answers) == 1 else "10.0.0.1"
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]

    monkeypatch.setattr(ap.socket, "getaddrinfo", resolver)
    fetched = fetch_profile(f"http://localhost:{port}/agent.json", insecure_policy(f"localhost:{port}"))
    assert fetched.document == AGENT_PROFILE and answers == ["localhost"]
    assert profiles.hits[-1]["host"] == f"localhost:{port}"  # Host (and TLS name) stay the URL's host


def test_a_host_with_any_non_public_address_is_refused(monkeypatch):
    mixed = [
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.34", 443)),
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.0.0.5", 443)),
    ]
    monkeypatch.setattr(ap.socket, "getaddrinfo", lambda *a, **k: mixed)
    assert unfetchable(refused("https://agent.example/profile.json", STRICT), "non-public")


def test_an_unresolvable_host_is_unfetchable_like_any_other_failure():
    assert unfetchable(refused("https://no-such-host.invalid/agent.json", STRICT), "does not resolve")


# --- the response rules -----------------------------------------------------------------------


def test_redirects_are_never_followed(profiles):
    target = profiles.url + "/agent.json"
    url = profiles.add("/moved", Route(status=302, headers={"Location": target}))
    assert unfetchable(refused(url), "redirect")
    assert profiles.count("/agent.json") == 0


def test_profiles_over_64_kib_are_refused(profiles):
    big = json.dumps({**AGENT_PROFILE, "padding": "x" * (64 * 1024)}).encode()
    for route in (Route(body=big), Route(body=big, length=False)):  # declared, and counted while reading
        assert unfetchable(refused(profiles.add("/big.json", route)), "64 KiB")
    exactly = json.dumps(AGENT_PROFILE).encode()
    exactly += b" " * (64 * 1024 - len(exactly))
    for route in (Route(body=exactly), Route(body=exactly, length=False)):
        assert (
            fetch_profile(profiles.add("/limit.json", route), insecure_policy(profiles.host)).document == AGENT_PROFILE
        )


def test_a_slow_profile_times_out_at_3_seconds(profiles):
    url = profiles.add("/slow.json", Route(body=json.dumps(AGENT_PROFILE).encode(), delay=4))
    started = time.monotonic()
    error = refused(url)
    elapsed = time.monotonic() - started
    assert unfetchable(error, "3 s")
    assert 2.9 <= elapsed < 3.6


def test_a_trickling_body_cannot_stretch_the_deadline(profiles):
    url = profiles.add("/trickle.json", Route(body=json.dumps(AGENT_PROFILE).encode(), trickle=0.05))
    started = time.monotonic()
    error = refused(url, insecure_policy(profiles.host, timeout=0.6))
    assert unfetchable(error, "0.6 s") and time.monotonic() - started < 1.2


@pytest.mark.parametrize(
    "route, reason",
    [
        (Route(status=500, body=b"{}"), "HTTP 500"),
        (Route(status=404), "HTTP 404"),
        (Route(body=b"<html>not json</html>"), "not valid JSON"),
        (Route(body=b'["a list"]'), "no ucp.version"),
        (Route(body=b'{"ucp": {"version": "latest", "services": {}, "payment_handlers": {}}}'), "no ucp.version"),
        (Route(body=b'{"ucp": {"version": "2026-04-08", "payment_handlers": {}}}'), "no ucp.services"),
        (
            Route(
                body=b'{"ucp": {"version": "2026-04-08", "services": {}, "payment_handlers": {}, '
                b'"capabilities": {"x.y": [{"no": "version"}]}}}'
            ),
            "without a version",
        ),
    ],
)
def test_failed_or_malformed_profiles(profiles, route, reason):
    assert unfetchable(refused(profiles.add("/bad.json", route)), reason)


# --- caching and negotiation ------------------------------------------------------------------


@pytest.mark.parametrize(
    "header, ttl",
    [
        ("public, max-age=120", 120),
        ("max-age=5", 60),
        (None, 60),
        ("no-store", 60),
        ("public, max-age=9999999", 86400),
        ('max-age="300", public', 300),
    ],
)
def test_cache_lifetime_follows_cache_control_with_ucp_floor(header, ttl):
    assert ap.cache_ttl(header) == ttl


def test_the_cache_serves_until_expiry_and_stays_bounded():
    now = [0.0]
    calls = []

    def fetch(url, policy):
        calls.append(url)
        return ap.Fetched(document={"url": url}, ttl_seconds=120)

    cache = AgentProfiles(STRICT, entries=2, fetch=fetch, clock=lambda: now[0])
    assert cache.get("https://a.example/p") == {"url": "https://a.example/p"}
    cache.get("https://a.example/p")
    assert calls == ["https://a.example/p"]
    now[0] = 121.0
    cache.get("https://a.example/p")
    assert len(calls) == 2
    cache.get("https://b.example/p"), cache.get("https://c.example/p")  # evicts a (least recently used)
    cache.get("https://a.example/p")
    assert calls[-1] == "https://a.example/p" and len(calls) == 5


def test_failures_are_remembered_briefly():
    now = [0.0]
    attempts = []

    def fetch(url, policy):
        attempts.append(url)
        raise ProfileError("profile_unreachable", "down")

    cache = AgentProfiles(STRICT, fetch=fetch, clock=lambda: now[0])
    for _ in range(3):
        with pytest.raises(ProfileError) as caught:
            cache.get("https://a.example/p")
        assert caught.value.code == "profile_unreachable"
    assert len(attempts) == 1
    now[0] = ap.FAILURE_TTL_SECONDS + 0.1
    with pytest.raises(ProfileError):
        cache.get("https://a.example/p")
    assert len(attempts) == 2


@pytest.mark.parametrize("version", RELEASES)
def test_negotiation_picks_the_agents_release_and_intersects_capabilities_at_it(version):
    both = {"dev.ucp.shopping.catalog.search", "dev.ucp.shopping.catalog.lookup"}
    negotiated = negotiate(agent_profile(version))
    assert negotiated.release.version == version and negotiated.capabilities == both
    older = agent_profile(version)
    older["ucp"]["capabilities"]["dev.ucp.shopping.catalog.lookup"][0]["version"] = "2026-01-23"
    assert negotiate(older).capabilities == {"dev.ucp.shopping.catalog.search"}
    for other in ("2026-01-23", "2099-01-01"):
        older["ucp"]["version"] = other
        with pytest.raises(ProfileError) as caught:
            negotiate(older)
        assert caught.value.code == "version_unsupported"


# --- end to end with the insecure setting off (the default) -------------------------------------


def test_without_the_setting_loopback_and_http_profiles_are_refused_end_to_end(make_app, profiles):
    app = make_app()  # UCP_ALLOW_INSECURE_PROFILES unset
    mirror = app.extensions["mirror"]
    assert mirror.sync().status == "success"
    with mirror.Session() as session:
        key = next(
            c.plugin_key
            for c in session.query(Company).filter(Company.is_public.is_(True))
            if (c.channels or {}).get("mcp", True)
        )
    client = app.test_client()
    answers = {}
    for url in (profiles.url + "/agent.json", profiles.url.replace("http:", "https:") + "/agent.json"):
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {
                "name": "search_catalog",
                "arguments": {"meta": {"ucp-agent": {"profile": url}}, "catalog": {"query": "filter"}},
            },
        }
        response = client.post(f"/companies/{key}/ucp/mcp", json=body, headers=UCP_HEADERS)
        answers[url.split(":")[0]] = response.get_json()["error"]
    assert answers["http"]["code"] == answers["https"]["code"] == -32001
    assert answers["http"]["data"]["code"] == "invalid_profile_url"
    assert answers["https"]["data"]["code"] == "profile_unreachable"
    assert profiles.hits == []
