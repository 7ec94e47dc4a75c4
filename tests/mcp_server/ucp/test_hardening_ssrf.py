"""SSRF: the profile fetcher judges an address by what it is, not by how it is spelled (issue 12, finding 6).

IPv6 has several ways to carry an IPv4 address (NAT64, 6to4, Teredo,
IPv4-compatible, IPv4-mapped and -translated); each is unwrapped and judged
as the IPv4 address it carries, and every IPv6 range that is not global
unicast (site-local fec0::/10 among them) is refused. No test here connects
anywhere: the socket constructor is replaced by one that fails the test, so a
check that let an address through is caught before any packet leaves.
"""

from __future__ import annotations

import socket

import pytest

from mcp_server.ucp import agent_profile as ap
from mcp_server.ucp.agent_profile import (
    UNFETCHABLE_CONTENT,
    FetchPolicy,
    ProfileError,
    fetch_profile,
)
from mirror.values.addresses import address_allowed

# 169.254.169.254 (cloud metadata), 10.0.0.1 (private) and 127.0.0.1 (loopback) in every IPv6 spelling.
HIDDEN_IPV4 = [
    "64:ff9b::a9fe:a9fe",
    "64:ff9b::169.254.169.254",
    "64:ff9b::a00:1",
    "64:ff9b::7f00:1",  # NAT64 (well-known)
    "64:ff9b:1::a9fe:a9fe",
    "64:ff9b:1:a9fe:a9:fe00::",  # NAT64 local-use /48, any embedding
    "2002:a9fe:a9fe::",
    "2002:a00:1::1",
    "2002:7f00:1::",  # 6to4
    "::a9fe:a9fe",
    "::169.254.169.254",
    "::a00:1",
    "::7f00:1",  # IPv4-compatible
    "::ffff:a9fe:a9fe",
    "::ffff:0:a9fe:a9fe",
    "::ffff:0:10.0.0.1",
    "::ffff:0:127.0.0.1",  # mapped, translated
    "2001:0:4136:e378:8000:63bf:5601:5601",  # Teredo whose client is 169.254.169.254 (obfuscated ~a9fe:a9fe)
    "2001:0:a00:1:8000:63bf:f7f7:f7f7",  # Teredo with a private server (10.0.0.1), public client 8.8.8.8
]
NON_GLOBAL_IPV6 = [
    "fec0::1",
    "fec0:0:0:ffff::1",
    "feff::1",  # site-local (deprecated, still routable inside)
    "100::1",
    "::2",
    "3fff::1",
    "4000::1",
    "ff0e::1",
    "2001:2::1",
    "2001:10::1",
]


@pytest.mark.parametrize("address", HIDDEN_IPV4 + NON_GLOBAL_IPV6)
def test_ipv6_spellings_of_non_public_addresses_are_refused(address):
    assert address_allowed(address) is False
    assert address_allowed(address, allow_loopback=False) is False


@pytest.mark.parametrize(
    "address",
    [
        "64:ff9b::808:808",
        "2002:808:808::1",
        "::ffff:8.8.8.8",
        "2001:0:4136:e378:8000:63bf:f7f7:f7f7",
        "2606:4700:4700::1111",
    ],
)
def test_ipv6_spellings_of_public_addresses_stay_allowed(address):
    assert address_allowed(address) is True


def test_embedded_loopback_is_loopback_only_with_the_insecure_setting():
    for address in ("64:ff9b::7f00:1", "::ffff:0:127.0.0.1", "2002:7f00:1::"):
        assert address_allowed(address, allow_loopback=True) is True
        assert address_allowed(address) is False
    assert address_allowed("64:ff9b::a9fe:a9fe", allow_loopback=True) is False


@pytest.mark.parametrize("address", HIDDEN_IPV4 + NON_GLOBAL_IPV6)
def test_the_fetcher_never_connects_to_them(address, monkeypatch):
    """A host resolving to any of them is refused before a socket exists."""
    opened = []

    class NoSocket:
        def __init__(self, *args, **kwargs):
            opened.append(args)
            raise AssertionError(f"the fetcher opened a socket for {address}")

    answer = [(socket.AF_INET6, socket.SOCK_STREAM, 6, "", (address, 443, 0, 0))]
    monkeypatch.setattr(ap.socket, "getaddrinfo", lambda *a, **k: answer)
    monkeypatch.setattr(ap.socket, "socket", NoSocket)
    with pytest.raises(ProfileError) as caught:
        fetch_profile("https://agent.example/profile.json", FetchPolicy())
    assert opened == []
    assert caught.value.code == "profile_unreachable" and caught.value.content == UNFETCHABLE_CONTENT
    assert "non-public" in caught.value.detail  # the reason, for the server log only
