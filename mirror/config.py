"""Configuration from the environment.

Every setting has one name and one default (see ../shared/CONTRACTS.md and the
README's Configuration section). A bad value is a start-up error that names the
variable, never a surprise at request time.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SQLITE_PATH = PROJECT_ROOT / "instance" / "mirror.sqlite3"

_RATE_LIMIT_RE = re.compile(r"^\s*\d+\s*(/|\s+per\s+)\s*(\d+\s+)?(second|minute|hour|day)s?\s*$", re.I)


class ConfigError(ValueError):
    """A setting is present but unusable; the message names the variable."""


@dataclass(frozen=True)
class Settings:
    """The process's settings, read once from the environment."""

    database_url: str
    upstream_url: str | None
    upstream_token: str | None
    public_base_url: str
    sync_interval_seconds: int = 900
    sync_overlap_seconds: int = 60
    freshness_threshold_seconds: int = 86400
    scheduler_enabled: bool = False
    provider_name: str = "contractor_commerce"
    referrer_stamp: str = "ai_interfaces"
    allowed_origins: tuple[str, ...] = ()
    rate_limit_per_company: str = "1000/hour"
    rate_limit_per_client: str = "600/minute"
    rate_limit_storage_uri: str = "memory://"
    company_hosts: dict[str, str] = field(default_factory=dict)
    ucp_allow_insecure_profiles: bool = False
    usage_hash_key: str = ""
    rate_limit_key_prefix: str = "mirror"
    trusted_proxy_hops: int = 0
    # --- hardening (issue 12): fair company budgets, a breaker on the counter, bounded profile fetches
    rate_limit_company_client_share: float = 0.25  # one client's share of RATE_LIMIT_PER_COMPANY, per company
    rate_limit_company_ceiling: float = 2.0  # all clients of one company together: this multiple of it
    rate_limit_storage_retry_seconds: int = 30  # after a counter (Redis) failure: serve unlimited, retry then
    ucp_profile_fetch_concurrency: int = 2  # agent-profile fetches in flight per process; past it: refused at once
    ucp_profile_fetches_per_client: str = "30/minute"  # agent-profile fetches (cache misses) per client

    @property
    def public_host(self) -> str:
        """The host (with port, if any) of PUBLIC_BASE_URL."""
        return urlsplit(self.public_base_url).netloc.lower()

    def absolute(self, path: str) -> str:
        """Make a site path absolute against PUBLIC_BASE_URL."""
        return self.public_base_url + path


def normalise_database_url(url: str) -> str:
    """Accept postgresql:// and postgresql+psycopg:// alike (psycopg 3 either way)."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    if url.startswith(("postgresql+psycopg://", "sqlite://")):
        return url
    raise ConfigError(f"DATABASE_URL must be a postgresql:// or sqlite:/// URL, got {url[:40]!r}")


def _int(env: dict, name: str, default: int, minimum: int = 0) -> int:
    raw = env.get(name, "")
    if raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a whole number of seconds, got {raw!r}") from None
    if value < minimum:
        raise ConfigError(f"{name} must be at least {minimum}, got {value}")
    return value


def _bool(env: dict, name: str, default: bool) -> bool:
    raw = env.get(name, "").strip().lower()
    if raw == "":
        return default
    if raw in ("1", "true", "yes", "on"):
        return True
    if raw in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"{name} must be true or false, got {raw!r}")


def _http_url(env: dict, name: str, default: str | None) -> str | None:
    raw = env.get(name, "").strip()
    if raw == "":
        return default
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(f"{name} must be an absolute http(s) URL, got {raw!r}")
    return raw.rstrip("/")


def _rate(env: dict, name: str, default: str) -> str:
    raw = env.get(name, "").strip()
    if raw == "":
        return default
    if not _RATE_LIMIT_RE.match(raw):
        raise ConfigError(f"{name} must look like '1000/hour' or '600 per minute', got {raw!r}")
    return raw


def _company_hosts(env: dict) -> dict[str, str]:
    raw = env.get("COMPANY_HOSTS", "").strip()
    hosts: dict[str, str] = {}
    for pair in filter(None, (p.strip() for p in raw.split(","))):
        host, sep, key = pair.partition("=")
        if not sep or not host.strip() or not key.strip():
            raise ConfigError(f"COMPANY_HOSTS entries must be host=pluginKey, got {pair!r}")
        hosts[host.strip().lower()] = key.strip()
    return hosts


def _storage_uri(env: dict) -> str:
    raw = env.get("RATE_LIMIT_STORAGE_URI", "").strip() or "memory://"
    if not re.match(r"^(memory|redis|rediss|redis\+cluster|redis\+sentinel|memcached)://", raw):
        raise ConfigError(f"RATE_LIMIT_STORAGE_URI must be memory:// or redis://..., got {raw!r}")
    return raw


def _fraction(env: dict, name: str, default: float, minimum: float, maximum: float | None = None) -> float:
    raw = env.get(name, "").strip()
    if raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number, got {raw!r}") from None
    if not minimum <= value <= (maximum if maximum is not None else float("inf")):
        raise ConfigError(f"{name} must be between {minimum} and {maximum}, got {raw!r}" if maximum is not None
                          else f"{name} must be at least {minimum}, got {raw!r}")
    return value


def _hardening(env: dict) -> dict:
    """The issue-12 settings (fair company budgets, counter breaker, profile-fetch bounds)."""
    return dict(
        rate_limit_company_client_share=_fraction(env, "RATE_LIMIT_COMPANY_CLIENT_SHARE", 0.25, 0.001, 1.0),
        rate_limit_company_ceiling=_fraction(env, "RATE_LIMIT_COMPANY_CEILING", 2.0, 1.0),
        rate_limit_storage_retry_seconds=_int(env, "RATE_LIMIT_STORAGE_RETRY_SECONDS", 30, minimum=1),
        ucp_profile_fetch_concurrency=_int(env, "UCP_PROFILE_FETCH_CONCURRENCY", 2, minimum=1),
        ucp_profile_fetches_per_client=_rate(env, "UCP_PROFILE_FETCHES_PER_CLIENT", "30/minute"),
    )


def load_settings(env: dict | None = None) -> Settings:
    """Read and validate every setting; raise ConfigError naming the bad variable."""
    env = dict(os.environ if env is None else env)
    database_url = env.get("DATABASE_URL", "").strip() or f"sqlite:///{DEFAULT_SQLITE_PATH}"
    return Settings(
        database_url=normalise_database_url(database_url),
        upstream_url=_http_url(env, "UPSTREAM_URL", None),
        upstream_token=env.get("UPSTREAM_TOKEN") or None,
        public_base_url=_http_url(env, "PUBLIC_BASE_URL", "http://127.0.0.1:8000"),
        sync_interval_seconds=_int(env, "SYNC_INTERVAL_SECONDS", 900, minimum=1),
        sync_overlap_seconds=_int(env, "SYNC_OVERLAP_SECONDS", 60),
        freshness_threshold_seconds=_int(env, "FRESHNESS_THRESHOLD_SECONDS", 86400, minimum=1),
        scheduler_enabled=_bool(env, "SCHEDULER_ENABLED", False),
        provider_name=env.get("PROVIDER_NAME", "").strip() or "contractor_commerce",
        referrer_stamp=env.get("REFERRER_STAMP", "").strip() or "ai_interfaces",
        allowed_origins=tuple(o.strip().rstrip("/") for o in env.get("ALLOWED_ORIGINS", "").split(",") if o.strip()),
        rate_limit_per_company=_rate(env, "RATE_LIMIT_PER_COMPANY", "1000/hour"),
        rate_limit_per_client=_rate(env, "RATE_LIMIT_PER_CLIENT", "600/minute"),
        rate_limit_storage_uri=_storage_uri(env),
        company_hosts=_company_hosts(env),
        ucp_allow_insecure_profiles=_bool(env, "UCP_ALLOW_INSECURE_PROFILES", False),
        usage_hash_key=env.get("USAGE_HASH_KEY", ""),
        rate_limit_key_prefix=env.get("RATE_LIMIT_KEY_PREFIX", "").strip() or "mirror",
        trusted_proxy_hops=_int(env, "TRUSTED_PROXY_HOPS", 0),
        **_hardening(env),
    )
