"""Fetching the calling agent's UCP profile, safely (negotiation: mcp_server.ucp.versions).

UCP requires the business to fetch the profile URL each request names
(`meta.ucp-agent.profile`) and answer with the capabilities both sides
support. A URL chosen by any caller is a server-side request forgery vector,
so the fetch is fenced:

- `https` only. In development (UCP_ALLOW_INSECURE_PROFILES) `http` and
  loopback addresses are allowed for the host:port entries of
  UCP_INSECURE_PROFILE_HOSTS and nothing else, decided from the URL before any
  resolution or connection, so a caller cannot make the service probe other
  loopback ports;
- every address the host resolves to must be public: no loopback, private,
  link-local (169.254.169.254 and other metadata addresses), shared, reserved
  or multicast ranges, judged by what an address is, not how it is spelled:
  IPv6 that embeds IPv4 (mapped, NAT64, 6to4, Teredo, IPv4-compatible) is
  judged as that IPv4, other IPv6 must be global unicast. Loopback is
  allowed only for a listed development host. The connection then goes to the
  very address that was checked, so a second DNS answer cannot swap in
  another (DNS rebinding); TLS still verifies the certificate for the host
  name;
- no redirects (a 3xx is a failure), one 3-second deadline for resolution,
  connection and the whole response, at most 64 KiB;
- fetched profiles are cached (a bounded LRU) for their Cache-Control
  max-age, at least 60 s (UCP's floor) and at most a day; a failure is
  remembered for 15 s, so a dead or hostile URL named on every request is
  not fetched on every request (UCP's "backoff on repeated failures"); a
  failure of the host itself (unresolvable, not public, refusing, hanging)
  is remembered for every URL on every port and subdomain of its
  registrable domain (`host_key`), so new subdomains buy no new attempt;
- at most UCP_PROFILE_FETCH_CONCURRENCY fetches run at once per process;
  past that a call is refused at once with profile_unreachable, never queued,
  so hanging profile hosts can hold only that many request threads;
- one HTTP request spends at most one deadline on profiles however many
  calls it carries (`RequestDeadline`): the first fetch starts it, each
  later fetch of that request gets what remains, and a call that finds it
  spent is refused at once with profile_unreachable.

Failures raise `ProfileError` with the spec's negotiation code; the
endpoint sends them as JSON-RPC -32001. A URL refused for what it says
(missing, malformed, credentials, not https) is `invalid_profile_url` with
its reason. Every failure past that -- the host does not resolve or is not
public, the connection is refused, times out or breaks, TLS fails, the
answer is a redirect, another non-2xx, too large, not JSON or not a UCP
profile -- is `profile_unreachable` with the one text UNFETCHABLE_CONTENT:
the caller cannot tell an open port from a closed one, nor one failure
from another. The reason (`ProfileError.detail`) goes to the server log.
`version_unsupported` (mcp_server.ucp.versions) comes only after a valid
profile was fetched.
"""

from __future__ import annotations

import dataclasses
import functools
import http.client
import io
import ipaddress
import json
import logging
import re
import socket
import ssl
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from urllib.parse import urlsplit

from cachetools import TLRUCache
from publicsuffixlist import PublicSuffixList

from mirror.runtime.config import Settings
from mirror.values.addresses import HostPort, address_allowed, canonical_host

TIMEOUT_SECONDS = 3.0
MAX_BYTES = 64 * 1024
MIN_TTL_SECONDS = 60
MAX_TTL_SECONDS = 86_400
FAILURE_TTL_SECONDS = 15
CACHE_ENTRIES = 256
DEFAULT_FETCH_CONCURRENCY = 2  # UCP_PROFILE_FETCH_CONCURRENCY
_URL_LIMIT = 2048
_VERSION_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_MAX_AGE_RE = re.compile(r"(?:^|,)\s*max-age\s*=\s*\"?(\d+)\"?\s*(?:,|$)", re.I)
_DEFAULT_PORTS = {"https": 443, "http": 80}
# Resolution runs on these threads so it obeys the deadline (getaddrinfo has no time-out of its own).
_RESOLVER = ThreadPoolExecutor(max_workers=8, thread_name_prefix="ucp-profile-dns")
log = logging.getLogger(__name__)

UNFETCHABLE_CONTENT = (
    "The agent profile could not be fetched. The business fetches it over https from a public address, "
    f"without redirects, within {TIMEOUT_SECONDS:g} s, and needs a 2xx answer of at most {MAX_BYTES // 1024} KiB "
    "holding a UCP profile (JSON with ucp.version, ucp.services and ucp.payment_handlers). Which of these "
    "failed is not disclosed."
)


class ProfileError(Exception):
    """A failed profile fetch or negotiation, with UCP's error code.

    `content` is what the caller is told; `detail` is the reason, for the
    server log only (the content when there is nothing to hide).
    `host_wide` marks a failure of the host itself (it does not resolve, is
    not public, refuses, hangs or trickles), which is remembered for every
    URL of its registrable domain (`host_key`), not only the one that failed.
    """

    def __init__(self, code: str, content: str, *, host_wide: bool = False, detail: str | None = None):
        super().__init__(content)
        self.code, self.content, self.host_wide = code, content, host_wide
        self.detail = detail or content


def unfetchable(detail: str, *, host_wide: bool = False) -> ProfileError:
    """Any failure to fetch or read a profile: one code and one text for the caller, the reason for the log."""
    return ProfileError("profile_unreachable", UNFETCHABLE_CONTENT, host_wide=host_wide, detail=detail)


@dataclass(frozen=True)
class FetchPolicy:
    """How profiles may be fetched.

    `insecure_hosts`: the development hosts (UCP_INSECURE_PROFILE_HOSTS, only
    with UCP_ALLOW_INSECURE_PROFILES) whose profiles may come over `http` and
    from loopback addresses; empty in production.
    """

    insecure_hosts: tuple[HostPort, ...] = ()
    timeout: float = TIMEOUT_SECONDS
    max_bytes: int = MAX_BYTES

    def allows_insecure(self, scheme: str, host: str, port: int) -> bool:
        """Whether the URL's host:port is a listed development host (no port listed: the scheme's default)."""
        host = canonical_host(host)
        return any(
            entry.host == host and (entry.port or _DEFAULT_PORTS[scheme]) == port for entry in self.insecure_hosts
        )

    def lists(self, url: str) -> bool:
        """Whether `url` is on a listed development host (allows_insecure); False for anything unparsable."""
        if not self.insecure_hosts:
            return False
        try:
            parts = urlsplit(url)
            scheme, port = parts.scheme.lower(), parts.port
        except ValueError:
            return False
        if scheme not in _DEFAULT_PORTS or not parts.hostname:
            return False
        return self.allows_insecure(scheme, parts.hostname, port or _DEFAULT_PORTS[scheme])


def fetch_policy(settings: Settings) -> FetchPolicy:
    """The policy the settings give: development hosts only with UCP_ALLOW_INSECURE_PROFILES on."""
    insecure = settings.ucp_insecure_profile_hosts if settings.ucp_allow_insecure_profiles else ()
    return FetchPolicy(insecure_hosts=tuple(insecure))


# --- URL and address checks ----------------------------------------------------------------


@dataclass(frozen=True)
class ProfileUrl:
    """A profile URL that passed the syntax checks."""

    url: str
    scheme: str
    host: str
    port: int
    target: str  # path and query, as sent on the request line


def check_profile_url(url: object, policy: FetchPolicy) -> ProfileUrl:
    """Parse and vet a profile URL (scheme, host, no credentials); raise invalid_profile_url."""
    if not isinstance(url, str) or not url.strip():
        raise ProfileError("invalid_profile_url", "meta.ucp-agent.profile (the agent's profile URL) is missing")
    if len(url) > _URL_LIMIT or any(ord(c) < 33 or c == "\x7f" for c in url):
        raise ProfileError("invalid_profile_url", "The agent profile URL is not a valid URL")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise ProfileError("invalid_profile_url", "The agent profile URL is not a valid URL") from None
    scheme, host = parts.scheme.lower(), (parts.hostname or "")
    if scheme not in ("https", "http") or not host:
        raise ProfileError("invalid_profile_url", "The agent profile URL must be an absolute https URL")
    if parts.username is not None or parts.password is not None:
        raise ProfileError("invalid_profile_url", "The agent profile URL must not carry credentials")
    port = port or _DEFAULT_PORTS[scheme]
    # Decided from the URL alone, before any resolution or connection: the answer is the same for an open
    # port and a closed one, so an unlisted loopback URL probes nothing.
    if scheme == "http" and not policy.allows_insecure(scheme, host, port):
        raise ProfileError(
            "invalid_profile_url",
            "The agent profile URL must use https",
            detail=f"http is allowed only for UCP_INSECURE_PROFILE_HOSTS (with UCP_ALLOW_INSECURE_PROFILES); "
            f"{host}:{port} is not one",
        )
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return ProfileUrl(url=url, scheme=scheme, host=host, port=port, target=target)


def resolve_checked(target: ProfileUrl, policy: FetchPolicy, deadline: float) -> str:
    """The address to connect to: every address of the host must be allowed; the first is used."""
    future = _RESOLVER.submit(socket.getaddrinfo, target.host, target.port, 0, socket.SOCK_STREAM)
    try:
        infos = future.result(timeout=max(deadline - time.monotonic(), 0.001))
    except FutureTimeout:
        raise unfetchable("resolving the host timed out", host_wide=True) from None
    except (socket.gaierror, UnicodeError, OSError) as error:
        raise unfetchable(f"the host does not resolve ({error})", host_wide=True) from None
    addresses = list(dict.fromkeys(info[4][0] for info in infos))
    allow_loopback = policy.allows_insecure(target.scheme, target.host, target.port)
    if not addresses or not all(address_allowed(a, allow_loopback=allow_loopback) for a in addresses):
        shown = ", ".join(addresses) or "nothing"
        raise unfetchable(f"the host resolves to a non-public address ({shown})", host_wide=True)
    if target.scheme == "http" and not all(ipaddress.ip_address(a.split("%")[0]).is_loopback for a in addresses):
        raise unfetchable(f"a listed http host resolves beyond loopback ({', '.join(addresses)})", host_wide=True)
    return addresses[0]


# --- the fetch -----------------------------------------------------------------------------


class _DeadlineReader(io.RawIOBase):
    """Socket reads that all share one deadline (a trickling server cannot stretch it)."""

    def __init__(self, owner: _DeadlineSocket):
        self._owner = owner

    def readable(self) -> bool:
        """A reader."""
        return True

    def readinto(self, buffer) -> int:
        """One recv with whatever time is left."""
        return self._owner.recv_into(buffer)

    def close(self) -> None:
        """Release the socket (closed once the connection and every reader let go)."""
        if not self.closed:
            self._owner.release()
        super().close()


class _DeadlineSocket:
    """What http.client needs of a socket: send, readers bound to the deadline, close.

    Like a real socket, it stays open while a reader made by makefile() is
    open: http.client closes the connection before reading a body that ends
    with the connection.
    """

    def __init__(self, sock: socket.socket, deadline: float):
        self._sock, self._deadline = sock, deadline
        self._holders = 1  # the connection itself

    def sendall(self, data: bytes) -> None:
        """Send within the deadline."""
        self._sock.settimeout(max(self._deadline - time.monotonic(), 0.001))
        self._sock.sendall(data)

    def recv_into(self, buffer) -> int:
        """Receive within the deadline."""
        remaining = self._deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("deadline passed")
        self._sock.settimeout(remaining)
        return self._sock.recv_into(buffer)

    def makefile(self, mode: str, *args, **kwargs):
        """A buffered reader whose reads share the deadline."""
        self._holders += 1
        return io.BufferedReader(_DeadlineReader(self))

    def release(self) -> None:
        """One holder is done; the last one closes the socket."""
        self._holders -= 1
        if self._holders <= 0:
            self._sock.close()

    def close(self) -> None:
        """The connection is done with the socket."""
        self.release()


class _PinnedConnection(http.client.HTTPConnection):
    """An HTTP(S) connection to an already-checked address; Host and TLS name stay the URL's host."""

    def __init__(self, target: ProfileUrl, address: str, deadline: float):
        super().__init__(target.host, target.port, timeout=max(deadline - time.monotonic(), 0.001))
        self._target, self._address, self._deadline = target, address, deadline
        self.default_port = 443 if target.scheme == "https" else 80  # no ":443" in the Host header

    def connect(self) -> None:
        """Connect to the checked address (TLS with the URL's host name for https)."""
        # A plain socket, not create_connection(): that would resolve again.
        family = socket.AF_INET6 if ":" in self._address else socket.AF_INET
        raw = socket.socket(family, socket.SOCK_STREAM)
        try:
            raw.settimeout(max(self._deadline - time.monotonic(), 0.001))
            raw.connect((self._address, self._target.port))
        except OSError:
            raw.close()
            raise
        if self._target.scheme == "https":
            raw.settimeout(max(self._deadline - time.monotonic(), 0.001))
            raw = ssl.create_default_context().wrap_socket(raw, server_hostname=self._target.host)
        self.sock = _DeadlineSocket(raw, self._deadline)


@dataclass(frozen=True)
class Fetched:
    """A fetched profile document and how long it may be cached."""

    document: dict
    ttl_seconds: int


def fetch_profile(url: object, policy: FetchPolicy) -> Fetched:
    """GET one agent profile under the policy above; raise ProfileError on any failure, its reason logged."""
    try:
        return _fetch(url, policy)
    except ProfileError as error:
        log.info("agent profile %r not fetched: %s", url, error.detail)
        raise


def _fetch(url: object, policy: FetchPolicy) -> Fetched:
    target = check_profile_url(url, policy)
    deadline = time.monotonic() + policy.timeout
    address = resolve_checked(target, policy, deadline)
    connection = _PinnedConnection(target, address, deadline)
    response = None
    try:
        connection.request("GET", target.target, headers={"Accept": "application/json", "User-Agent": "ucp-business"})
        response = connection.getresponse()
        body = _read_body(response, policy.max_bytes)
        cache_control = response.getheader("Cache-Control")
    except ProfileError:
        raise
    except TimeoutError:
        raise unfetchable(f"took longer than {policy.timeout:g} s", host_wide=True) from None
    except (OSError, http.client.HTTPException, ssl.SSLError) as error:
        raise unfetchable(f"{type(error).__name__}: {error}", host_wide=True) from None
    finally:
        if response is not None:
            response.close()
        connection.close()
    return Fetched(document=parse_profile(body), ttl_seconds=cache_ttl(cache_control))


def _read_body(response: http.client.HTTPResponse, max_bytes: int) -> bytes:
    status = response.status
    if 300 <= status < 400:
        raise unfetchable(f"answered a redirect ({status}); profiles are never fetched through redirects")
    if not 200 <= status < 300:
        raise unfetchable(f"answered HTTP {status}")
    declared = response.getheader("Content-Length")
    if declared and declared.strip().isdigit() and int(declared) > max_bytes:
        raise unfetchable(f"larger than {max_bytes // 1024} KiB (Content-Length {declared.strip()})")
    chunks, size = [], 0
    while True:
        chunk = response.read(min(16 * 1024, max_bytes + 1 - size))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > max_bytes:
            raise unfetchable(f"larger than {max_bytes // 1024} KiB")


def cache_ttl(cache_control: str | None) -> int:
    """Seconds to cache a profile: its max-age, floored at 60 s (UCP) and capped at a day."""
    match = _MAX_AGE_RE.search(cache_control or "")
    max_age = int(match.group(1)) if match else 0
    return min(max(max_age, MIN_TTL_SECONDS), MAX_TTL_SECONDS)


def parse_profile(body: bytes) -> dict:
    """The profile document, checked for what negotiation relies on; raise `unfetchable` if it is not one.

    Not UCP's profile_malformed: whether a port serves JSON, or a profile,
    is what a port scan would learn from the difference.
    """
    try:
        document = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise unfetchable("not valid JSON") from None
    ucp = document.get("ucp") if isinstance(document, dict) else None
    if not isinstance(ucp, dict) or not isinstance(ucp.get("version"), str) or not _VERSION_RE.match(ucp["version"]):
        raise unfetchable("no ucp.version (YYYY-MM-DD)")
    for registry in ("services", "payment_handlers"):
        if not isinstance(ucp.get(registry), dict):
            raise unfetchable(f"no ucp.{registry} object")
    capabilities = ucp.get("capabilities", {})
    if not isinstance(capabilities, dict) or not all(
        isinstance(entries, list) and all(isinstance(e, dict) and isinstance(e.get("version"), str) for e in entries)
        for entries in capabilities.values()
    ):
        raise unfetchable("ucp.capabilities entries without a version")
    return document


# --- cache -------------------------------------------------------------------------------------

BUSY_CONTENT = (
    "Too many agent profiles are being fetched right now; this call was not queued. Retry in a few "
    "seconds, or serve the profile with a longer Cache-Control max-age."
)
SPENT_CONTENT = (
    "This request has spent its agent-profile deadline ({seconds:g} s) on other calls' profiles; this call was "
    "not fetched. Send it on its own, or name one profile for every call of a batch."
)


@functools.cache
def _public_suffixes() -> PublicSuffixList:
    """The Public Suffix List snapshot the `publicsuffixlist` package ships (read once; never fetched at run time)."""
    return PublicSuffixList()


def host_key(url: str) -> str | None:
    """What a host's failure is remembered under: its registrable domain, lower case; None if unparsable.

    A name's registrable domain is its public suffix plus one label, by the
    Public Suffix List (`a.b.agent.example.co.uk` and `agent.example.co.uk`
    are `example.co.uk`; `me.github.io` stays `me.github.io`, since
    `github.io` is a suffix others register under), so every port and every
    subdomain of one domain shares one memory; a name that is itself a
    suffix (or `localhost`) is its own key. An IP address is itself, any
    port; IPv6 by its /64, the block one host is usually given.
    """
    try:
        host = (urlsplit(url).hostname or "").rstrip(".").lower()
    except ValueError:
        return None
    if not host:
        return None
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return _public_suffixes().privatesuffix(host) or host
    if address.version == 6:
        mapped = address.ipv4_mapped
        return str(mapped) if mapped is not None else str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


class RequestDeadline:
    """One HTTP request's time for agent profiles: started by its first fetch, shared by every later one."""

    def __init__(self, seconds: float, clock=time.monotonic):
        self.seconds, self._clock = seconds, clock
        self._ends: float | None = None

    @property
    def started(self) -> bool:
        """Whether a fetch of this request has started the clock."""
        return self._ends is not None

    def remaining(self) -> float:
        """Seconds left (starting the clock now when no fetch has yet)."""
        if self._ends is None:
            self._ends = self._clock() + self.seconds
        return max(self._ends - self._clock(), 0.0)


def _expires(_key, value: tuple, now: float) -> float:
    # An entry is (outcome, seconds it holds).
    return now + value[1]


class AgentProfiles:
    """Profiles by URL: a bounded, thread-safe LRU of fetch outcomes (documents, and failures briefly).

    Fetching is bounded so that a caller naming hanging profile URLs cannot
    hold the request threads: at most `concurrency` fetches run at once in
    this process, and a call that would need one more is refused at once
    (profile_unreachable, BUSY_CONTENT), never queued. A failure of the host
    itself is remembered for its whole registrable domain (`host_key`), so
    a new query string, path, port or subdomain does not buy a new attempt.
    """

    def __init__(
        self,
        policy: FetchPolicy,
        *,
        entries: int = CACHE_ENTRIES,
        fetch=fetch_profile,
        clock=time.monotonic,
        concurrency: int = DEFAULT_FETCH_CONCURRENCY,
    ):
        self.policy, self._entries, self._fetch, self._clock = policy, entries, fetch, clock
        # (outcome, seconds it holds) by URL and, for failures of the host itself, by host: each entry
        # expires on its own time (the profile's max-age, or the failure memory), least recently used first out.
        self._cache = TLRUCache(maxsize=entries, ttu=_expires, timer=clock)
        self._failed_hosts = TLRUCache(maxsize=entries, ttu=_expires, timer=clock)
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(concurrency)

    def request_deadline(self) -> RequestDeadline:
        """A fresh deadline for one HTTP request's fetches (the policy's timeout, in total)."""
        return RequestDeadline(self.policy.timeout)

    def get(self, url: object, *, before_fetch=None, deadline: RequestDeadline | None = None) -> dict:
        """The profile at `url`, from the cache while fresh; raise ProfileError.

        `before_fetch()` runs only when a fetch actually starts (a slot is
        free and the request's deadline is not spent): the per-client limit
        on fetches; it may raise ProfileError to refuse. `deadline` is the
        request's shared one (None: the policy's own timeout per fetch).
        """
        if not isinstance(url, str):
            raise ProfileError("invalid_profile_url", "The agent profile URL must be a string")
        outcome = self._cached(url)
        if outcome is None:
            outcome = self._fetch_once(url, before_fetch, deadline)
        if isinstance(outcome, ProfileError):
            raise ProfileError(outcome.code, outcome.content)
        return outcome

    def _cached(self, url: str) -> dict | ProfileError | None:
        with self._lock:
            cached = self._cache.get(url) or self._failed_hosts.get(self._host_memory(url) or "")
        return cached[0] if cached is not None else None

    def _fetch_once(self, url: str, before_fetch, deadline: RequestDeadline | None) -> dict | ProfileError:
        # Neither refusal below is remembered (not the URL's fault) nor charged (no fetch starts).
        if deadline is not None and deadline.started and deadline.remaining() <= 0:
            raise ProfileError("profile_unreachable", SPENT_CONTENT.format(seconds=deadline.seconds))
        if not self._slots.acquire(blocking=False):
            raise ProfileError("profile_unreachable", BUSY_CONTENT)
        try:
            if before_fetch is not None:
                before_fetch()
            policy, cut_short = self.policy, False
            if deadline is not None:
                cut_short = deadline.started  # a later fetch of the request: only what remains
                policy = dataclasses.replace(policy, timeout=min(policy.timeout, deadline.remaining()))
            try:
                fetched = self._fetch(url, policy)
                outcome, ttl = fetched.document, fetched.ttl_seconds
            except ProfileError as error:
                outcome, ttl = error, FAILURE_TTL_SECONDS
        finally:
            self._slots.release()
        # A failure within less than the full deadline is not the host's to carry: it is not remembered.
        if not (cut_short and isinstance(outcome, ProfileError)):
            self._remember(url, outcome, ttl)
        return outcome

    def _host_memory(self, url: str) -> str | None:
        """Where a failure of the host itself is remembered: its host_key, apart for listed development hosts.

        A caller's failed probe of another loopback port (127.0.0.1 is one
        host_key) must not make the listed development profile on that same
        address fail for everyone for the next FAILURE_TTL_SECONDS.
        """
        key = host_key(url)
        return f"{key} (development host)" if key and self.policy.lists(url) else key

    def _remember(self, url: str, outcome: dict | ProfileError, ttl: float) -> None:
        with self._lock:
            self._cache[url] = (outcome, ttl)
            host = self._host_memory(url)
            if isinstance(outcome, ProfileError) and outcome.host_wide and host:
                self._failed_hosts[host] = (outcome, ttl)
