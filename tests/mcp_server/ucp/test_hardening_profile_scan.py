"""Development mode cannot be a port scanner.

With UCP_ALLOW_INSECURE_PROFILES on (`make run` sets it) the mirror fetched an
agent profile over `http` from any loopback host and port a caller named, and
said why it failed: "ConnectionRefusedError" for a closed port, a time-out or
"HTTP 404" for an open one. Any caller could map the machine's loopback
services through it.

Now `http` and loopback addresses are allowed only for the host:port entries
of UCP_INSECURE_PROFILE_HOSTS (`make run`: the demo upstream's), decided from
the URL before any resolution or connection; and every failure to fetch a
profile (refused, timed out, DNS, TLS, not HTTP, any status, too large, not
JSON, not a profile) answers the one text UNFETCHABLE_CONTENT, its reason
written to the server log only.

Over real HTTP (the app on a loopback port) and against
real loopback listeners.
"""

from __future__ import annotations

import json
import logging
import socket
import threading
from contextlib import ExitStack, contextmanager

import pytest

from mcp_server.ucp.agent_profile import UNFETCHABLE_CONTENT, FetchPolicy, ProfileError, fetch_profile
from mirror.runtime.config import ConfigError, load_settings
from mirror.values.addresses import HostPort
from tests.hardening_helpers import hanging_host, serving
from tests.ops_helpers import free_port
from tests.surface_helpers import add_company, sync
from tests.ucp_helpers import (
    AGENT_PROFILE,
    Route,
    insecure_policy,
    insecure_profiles,
    profile_server,
    ucp_call,
)


def _search(base: str, key: str, profile: str) -> dict:
    return ucp_call(f"{base}/companies/{key}/ucp/mcp", "search_catalog", {"query": "filter"}, profile)


class _Banner:
    """A loopback listener that is not HTTP: it greets each connection with a banner and hangs up."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.host = f"127.0.0.1:{self._listener.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self._listener.accept()
            except OSError:
                return
            with connection:
                connection.sendall(b"SSH-2.0-OpenSSH_9.6\r\n")

    def close(self) -> None:
        self._listener.close()


@contextmanager
def banner_host():
    """A `_Banner` for the duration of the block."""
    banner = _Banner()
    try:
        yield banner
    finally:
        banner.close()


# --- the scan, end to end ---------------------------------------------------------------------


def test_unlisted_loopback_ports_are_refused_before_any_connection_open_or_closed_alike(make_app, upstream):
    with ExitStack() as stack:
        profiles = stack.enter_context(profile_server())
        listening = stack.enter_context(hanging_host())  # open, not a profile: it would hold the fetch
        closed = free_port()  # nothing listens: a connection would be refused
        upstream_port = upstream.url.rsplit(":", 1)[1]  # open and HTTP: it would answer 404
        app = make_app(**insecure_profiles(profiles.host))  # development mode, one listed profile host
        key = add_company(upstream)
        sync(app.extensions["mirror"])
        base = stack.enter_context(serving(app))
        answers = {
            scheme: [
                _search(base, key, f"{scheme}://127.0.0.1:{port}/agent.json")["error"]
                for port in (closed, listening.port, upstream_port)
            ]
            for scheme in ("http", "https")
        }
        listed = _search(base, key, profiles.url + "/agent.json")  # after the probes: still served
        connections = listening.connections
    for scheme, errors in answers.items():
        assert all(error == errors[0] for error in errors), (scheme, errors)  # open or closed: one answer
        assert errors[0]["code"] == -32001
    assert answers["http"][0]["data"]["code"] == "invalid_profile_url"
    assert answers["http"][0]["data"]["content"] == "The agent profile URL must use https"
    assert answers["https"][0]["data"]["code"] == "profile_unreachable"
    assert answers["https"][0]["data"]["content"] == UNFETCHABLE_CONTENT
    assert connections == 0  # refused from the URL alone: nothing was probed
    assert "result" in listed and listed["result"]["isError"] is False, listed
    assert profiles.count("/agent.json") == 1


def test_only_the_listed_host_and_port_is_fetched_over_http():
    with profile_server() as profiles:
        port = profiles.host.rsplit(":", 1)[1]
        policy = insecure_policy(profiles.host)
        assert fetch_profile(profiles.url + "/agent.json", policy).document == AGENT_PROFILE
        for unlisted in (f"http://localhost:{port}/agent.json", f"http://127.0.0.2:{port}/agent.json"):
            with pytest.raises(ProfileError) as refused:
                fetch_profile(unlisted, policy)
            assert refused.value.code == "invalid_profile_url"
        with pytest.raises(ProfileError) as flag_off:
            fetch_profile(profiles.url + "/agent.json", FetchPolicy())
        assert flag_off.value.code == "invalid_profile_url"
        hits = len(profiles.hits)
    assert hits == 1


# --- one answer for every failure -----------------------------------------------------------------


def test_every_kind_of_fetch_failure_answers_the_same_text_and_logs_its_reason(caplog, monkeypatch):
    caplog.set_level(logging.INFO, logger="mcp_server.ucp.agent_profile")
    big = json.dumps({**AGENT_PROFILE, "padding": "x" * (64 * 1024)}).encode()
    with profile_server() as profiles, hanging_host() as hung, banner_host() as banner:
        closed = f"127.0.0.1:{free_port()}"
        listed = (profiles.host, hung.host, banner.host, closed)
        routes = {
            "HTTP 404": profiles.url + "/missing.json",
            "HTTP 500": profiles.add("/error.json", Route(status=500, body=b"{}")),
            "redirect": profiles.add("/moved.json", Route(status=302, headers={"Location": "/agent.json"})),
            "larger than 64 KiB": profiles.add("/big.json", Route(body=big)),
            "not valid JSON": profiles.add("/page.html", Route(body=b"<html>hello</html>")),
            "no ucp.version": profiles.json("/other.json", {"status": "green"}),
        }
        failures = {
            **routes,
            "ConnectionRefusedError": f"http://{closed}/agent.json",
            "took longer than": f"http://{hung.host}/agent.json",
            "BadStatusLine": f"http://{banner.host}/agent.json",  # open, not HTTP
            "SSL": profiles.url.replace("http://", "https://") + "/agent.json",  # open, not TLS
            "does not resolve": "https://no-such-host.invalid/agent.json",
            "non-public address": "https://10.1.2.3/agent.json",
        }
        errors = {}
        for reason, url in failures.items():
            with pytest.raises(ProfileError) as caught:
                fetch_profile(url, insecure_policy(*listed, timeout=0.5))
            errors[reason] = caught.value
    for reason, error in errors.items():
        assert error.code == "profile_unreachable" and error.content == UNFETCHABLE_CONTENT, (reason, error.content)
        assert reason in error.detail, (reason, error.detail)
        assert any(reason in record.getMessage() for record in caplog.records), reason  # the reason: logged only


# --- the settings ------------------------------------------------------------------------------


def test_insecure_profiles_need_named_hosts_and_each_entry_is_host_and_port():
    settings = load_settings(insecure_profiles("127.0.0.1:8001", "LocalHost", "[::1]:8002"))
    assert settings.ucp_insecure_profile_hosts == (
        HostPort("127.0.0.1", 8001),
        HostPort("localhost", None),
        HostPort("::1", 8002),
    )
    with pytest.raises(ConfigError) as unnamed:
        load_settings({"UCP_ALLOW_INSECURE_PROFILES": "true"})
    assert str(unnamed.value) == (
        "UCP_ALLOW_INSECURE_PROFILES=true needs UCP_INSECURE_PROFILE_HOSTS, the host:port serving your "
        "development agent profile (e.g. 127.0.0.1:8001); or set UCP_ALLOW_INSECURE_PROFILES=false"
    )
    for bad in ("http://127.0.0.1:8001", "127.0.0.1:8001/agent.json", "127.0.0.1:99999", "127.0.0.1:", "a b"):
        with pytest.raises(ConfigError) as refused:
            load_settings(insecure_profiles("127.0.0.1:8001", bad))
        assert str(refused.value) == (
            "UCP_INSECURE_PROFILE_HOSTS entries must be host or host:port (127.0.0.1:8001, localhost:8001, "
            f"[::1]:8001), without a scheme or path, got {bad!r}"
        )
    # Without the flag the list allows nothing: production stays https and public addresses only.
    off = load_settings({"UCP_INSECURE_PROFILE_HOSTS": "127.0.0.1:8001"})
    assert off.ucp_allow_insecure_profiles is False
