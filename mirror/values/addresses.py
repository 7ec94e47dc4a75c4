"""What an IP address is, judged by the address and not by how it is spelled.

One rule for every place that lets a URL's host through: the UCP agent-profile
fetcher (which connects to the address: server-side request forgery) and the
sync's URL check for published and redirected URLs (mirror.catalog.records). An IPv6
address that embeds an IPv4 one (mapped, NAT64, 6to4, Teredo, IPv4-compatible)
is judged as that IPv4 address, so `[::ffff:127.0.0.1]` is loopback like
`127.0.0.1`, and `64:ff9b::a9fe:a9fe` is the link-local 169.254.169.254.

Also the one spelling of a host named in a setting (`parse_host_port`,
`canonical_host`): the hosts UCP agent profiles may be fetched from over
loopback `http` in development (UCP_INSECURE_PROFILE_HOSTS).
"""

from __future__ import annotations

import ipaddress
import re
from typing import NamedTuple
from urllib.parse import urlsplit

# IPv6 prefixes that carry an IPv4 address: the address is what the IPv4 part is (RFC 6052, 3056,
# 4291, 4380, 6145). A check by spelling alone would let 64:ff9b::a9fe:a9fe reach 169.254.169.254.
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_SIX_TO_FOUR = ipaddress.ip_network("2002::/16")
_TEREDO = ipaddress.ip_network("2001::/32")
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
_IPV4_TRANSLATED = ipaddress.ip_network("::ffff:0:0:0/96")
# The only IPv6 space allocated for global unicast; everything else (site-local fec0::/10, ULA,
# link-local, multicast, discard, the local-use NAT64 64:ff9b:1::/48 whose embedding depends on
# the operator's prefix length, unallocated space) is refused outright.
_GLOBAL_UNICAST = ipaddress.ip_network("2000::/3")
_DOCUMENTATION_V6 = ipaddress.ip_network("3fff::/20")  # RFC 9637; newer than some Pythons' tables


def embedded_ipv4(ip: ipaddress.IPv6Address) -> tuple[ipaddress.IPv4Address, ...] | None:
    """The IPv4 address(es) an IPv6 address carries (mapped, translated, compatible, NAT64, 6to4, Teredo).

    None when it carries none. Teredo carries two (the server and the
    client), and both must pass.
    """
    value = int(ip)
    if ip.ipv4_mapped is not None:
        return (ip.ipv4_mapped,)
    if ip in _TEREDO:
        return ip.teredo
    if ip in _SIX_TO_FOUR:
        return (ip.sixtofour,)
    if ip in _NAT64 or ip in _IPV4_TRANSLATED or (ip in _IPV4_COMPATIBLE and value > 1):
        return (ipaddress.IPv4Address(value & 0xFFFFFFFF),)
    return None


def _ipv4_allowed(ip: ipaddress.IPv4Address, allow_loopback: bool) -> bool:
    if ip.is_loopback:
        return allow_loopback
    # is_global excludes private, link-local (incl. 169.254.169.254), shared (100.64/10), reserved,
    # documentation and unspecified ranges; multicast is global but never a web server.
    return ip.is_global and not ip.is_multicast


def address_allowed(address: str, *, allow_loopback: bool = False) -> bool:
    """Whether the fetcher may connect to an IP address: public unicast only (loopback when allowed).

    Judged by what the address is, not how it is spelled: an IPv6 address
    that embeds an IPv4 one is judged as that IPv4 address; any other IPv6
    address must be global unicast (2000::/3) and global.
    """
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv4Address):
        return _ipv4_allowed(ip, allow_loopback)
    if ip.is_loopback:
        return allow_loopback
    embedded = embedded_ipv4(ip)
    if embedded is not None:
        return all(_ipv4_allowed(inner, allow_loopback) for inner in embedded)
    return ip in _GLOBAL_UNICAST and ip not in _DOCUMENTATION_V6 and ip.is_global and not ip.is_site_local


# --- hosts named in settings (UCP_INSECURE_PROFILE_HOSTS) -------------------------------------------

_HOST_NAME_RE = re.compile(r"^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$")
HOST_PORT_FORM = "host or host:port (127.0.0.1:8001, localhost:8001, [::1]:8001), without a scheme or path"


class HostPort(NamedTuple):
    """A host (canonical_host) and a port; None: the default port of the URL's scheme."""

    host: str
    port: int | None


def canonical_host(host: str) -> str:
    """A URL host spelled one way for comparison: lower case, an IP address in its standard form.

    No resolution and no leniency: `127.1` or `localhost.` stay as written,
    so they never equal `127.0.0.1` or `localhost`.
    """
    text = host.strip("[]").lower()
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        return text


def parse_host_port(entry: str) -> HostPort:
    """One `host[:port]` entry (IPv6 in brackets); ValueError naming HOST_PORT_FORM if it is anything else."""
    text = entry.strip()
    try:
        parts = urlsplit("//" + text)
        port, host = parts.port, parts.hostname or ""
    except ValueError:
        raise ValueError(f"entries must be {HOST_PORT_FORM}, got {entry!r}") from None
    extra = parts.path or parts.query or parts.fragment or "@" in parts.netloc or text.endswith(":")
    named = _is_ip(host) or _HOST_NAME_RE.match(host)
    if extra or not host or not named or port == 0:
        raise ValueError(f"entries must be {HOST_PORT_FORM}, got {entry!r}")
    return HostPort(canonical_host(host), port)


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True
