"""Who the client is behind proxies: X-Forwarded-For and -Proto, believed only from a trusted proxy.

Two settings together (docs/operations.md, "The proxy in front"):
TRUSTED_PROXY_HOPS says how many proxies stand in front of the app, and
TRUSTED_PROXIES which addresses those proxies have (default loopback: nginx on
the same host). The walk starts at the connection's peer and steps one
X-Forwarded-For entry to the left (from the right end, where each proxy
appends the address it saw) only while the address it stands on is a
trusted proxy, and at most HOPS times. The address it ends on is the client.

- A peer that is not a trusted proxy (anyone who reaches gunicorn
  directly) is the client itself, whatever its headers say: a spoofed
  `X-Forwarded-For` buys no fresh limit.
- A client on a trusted network (a process on the proxy's host, a neighbour
  in the balancer's subnet) cannot name someone else by prepending entries:
  the walk stops after exactly the proxies there are. The count alone
  (werkzeug's ProxyFix, Envoy's xff_num_trusted_hops) believes anyone who
  reaches the app directly; the list alone (nginx's real_ip_recursive,
  Rails' trusted proxies) believes every trusted address in the chain.
- A peer without an address (a Unix socket: only local processes with
  access to its path reach it) counts as a trusted proxy, as gunicorn counts
  it for its own forwarded headers.
- An entry is an IP address, with or without a port (`203.0.113.9:4711`,
  `[2001:db8::1]:443`, as some load balancers append them); an IPv4-mapped
  IPv6 address is its IPv4 address. An entry that is not an address ends the
  walk on `UNKNOWN_CLIENT`: every such request shares that one identity.

The client's address replaces REMOTE_ADDR, so the rate limits
(web/limits.py) and the invocation log's agent hash see it, and the
X-Forwarded-Proto entry of the same proxy (when it sent one: `http` or
`https`) replaces the URL scheme. With TRUSTED_PROXY_HOPS=0 nothing is
installed and both headers are ignored.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

# The one identity of every request whose client is not an address ("unknown", "garbage-17", "").
UNKNOWN_CLIENT = "unknown"
_LONGEST_ENTRY = 64  # "[" + the longest IPv6 text with an IPv4 tail and a zone + "]:65535", with room to spare


@functools.lru_cache(maxsize=4096)  # peers and proxies repeat: each distinct text is parsed once
def parse_address(text: str) -> Address | None:
    """The IP address in a peer address or an X-Forwarded-For entry (port stripped), or None when there is none."""
    text = text.strip()
    if len(text) > _LONGEST_ENTRY:
        return None
    host = text
    if text.startswith("["):  # [2001:db8::1] or [2001:db8::1]:443
        host, closed, rest = text[1:].partition("]")
        if not closed or (rest and not (rest.startswith(":") and _is_port(rest[1:]))):
            return None
    elif text.count(":") == 1:  # 203.0.113.9:4711 (an IPv6 address has at least two colons)
        host, _, port = text.partition(":")
        if not _is_port(port):
            return None
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None
    if address.version == 6:
        if address.ipv4_mapped is not None:
            return address.ipv4_mapped
        if address.scope_id:  # fe80::1%eth0: the zone names an interface of the sender, not a client
            return ipaddress.IPv6Address(int(address))
    return address


def _is_port(text: str) -> bool:
    return text.isascii() and text.isdigit() and int(text) <= 65535


class TrustedProxies:
    """WSGI middleware: REMOTE_ADDR and the URL scheme as the trusted proxies in front report them."""

    def __init__(self, app, networks: Iterable[Network], hops: int) -> None:
        self.app = app
        self.networks = tuple(networks)
        self.hops = hops

    def __call__(self, environ, start_response):
        peer = environ.get("REMOTE_ADDR") or ""
        forwarded = environ.get("HTTP_X_FORWARDED_FOR")
        if forwarded:
            client, steps = self.walk(peer, forwarded)
            if steps:  # else the peer is the client, as the server reported it
                environ["REMOTE_ADDR"] = client
                scheme = _entry(environ.get("HTTP_X_FORWARDED_PROTO", ""), steps).lower()
                if scheme in ("http", "https"):
                    environ["wsgi.url_scheme"] = scheme
        return self.app(environ, start_response)

    def walk(self, peer: str, forwarded_for: str) -> tuple[str, int]:
        """The client's address (or UNKNOWN_CLIENT) and how many proxies it took to find it."""
        entries = forwarded_for.split(",")
        current, steps = peer, 0
        while steps < self.hops and entries and self._is_proxy(current, peer=steps == 0):
            current = entries.pop()
            steps += 1
        address = parse_address(current)
        return (str(address) if address is not None else UNKNOWN_CLIENT), steps

    def _is_proxy(self, text: str, *, peer: bool) -> bool:
        if peer and text == "":  # a Unix socket's peer has no address
            return True
        address = parse_address(text)
        return address is not None and any(address in network for network in self.networks)


def _entry(header: str, steps: int) -> str:
    """The entry `steps` from the right of a comma-separated header, or "" when it has fewer."""
    entries = header.split(",") if header else []
    return entries[-steps].strip() if steps and len(entries) >= steps else ""
