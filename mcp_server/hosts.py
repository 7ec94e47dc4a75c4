"""Which Host and Origin values are ours (DNS-rebinding protection).

A request is ours when its `Host` is PUBLIC_BASE_URL's host, a custom
hostname from COMPANY_HOSTS, or, in development, a loopback name on any
port. "Development" means PUBLIC_BASE_URL itself points at a loopback host
(`http://127.0.0.1:8000`, `http://localhost:5000`): such a deployment can only
be reached from the machine itself, and local tools (curl, the inspector, the
conformance suite) may call it as localhost, 127.0.0.1 or [::1] alike. A
public deployment never accepts loopback Host values.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from urllib.parse import urlsplit

from mirror.runtime.config import Settings

_DEFAULT_PORTS = {"http": 80, "https": 443}


def is_loopback(hostname: str | None) -> bool:
    """localhost, 127.0.0.0/8 or ::1."""
    if not hostname:
        return False
    name = hostname.strip("[]").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


@lru_cache(maxsize=1024)  # clients repeat their Host: each distinct value is split once
def _split(authority: str) -> tuple[str, int | None] | None:
    """(hostname, port) of a Host header value, or None when it is not one."""
    if not authority or any(c in authority for c in "/?#@ \t\\"):
        return None
    try:
        parts = urlsplit("//" + authority)
        return (parts.hostname or "", parts.port)
    except ValueError:
        return None


@lru_cache(maxsize=64)
def _our_authorities(public_base_url: str, company_hosts: tuple[str, ...]) -> tuple[str, frozenset[tuple[str, int]]]:
    scheme = urlsplit(public_base_url).scheme
    default = _DEFAULT_PORTS.get(scheme, 80)
    ours = set()
    for authority in (urlsplit(public_base_url).netloc, *company_hosts):
        split = _split(authority.lower())
        if split and split[0]:
            ours.add((split[0], split[1] or default))
    return scheme, frozenset(ours)


def host_allowed(host_header: str | None, settings: Settings) -> bool:
    """Whether a Host header names this deployment."""
    split = _split((host_header or "").lower())
    if split is None or not split[0]:
        return False
    scheme, ours = _our_authorities(settings.public_base_url, tuple(sorted(settings.company_hosts)))
    hostname, port = split
    if (hostname, port or _DEFAULT_PORTS.get(scheme, 80)) in ours:
        return True
    return development(settings) and is_loopback(hostname)


def development(settings: Settings) -> bool:
    """PUBLIC_BASE_URL is a loopback URL: a local run, reachable only from this machine."""
    return is_loopback(urlsplit(settings.public_base_url).hostname)


def origin_of_base(settings: Settings) -> str:
    """PUBLIC_BASE_URL's origin, as browsers send it in `Origin` (lower case, no default port)."""
    parts = urlsplit(settings.public_base_url)
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    return f"{scheme}://{host}" if port in (None, _DEFAULT_PORTS.get(scheme)) else f"{scheme}://{host}:{port}"
