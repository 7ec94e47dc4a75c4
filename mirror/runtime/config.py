"""Configuration from the environment: every setting is declared once, here.

`Settings` below is the one declaration. Each field is one setting: its
environment variable is the field name in capitals, its annotation is the
type (with the parser that reads the variable's text), and `setting(...)`
gives the default and the one-line meaning. `load_settings()` reads the
environment through it (pydantic-settings), and `markdown_table()` writes the
configuration table of README.md from it (`python -m mirror.runtime.config
--write`, run by `make docs`), so the docs cannot drift from the
code. Adding a setting is one field here plus a rebuild of the docs.

A bad value is a start-up error (ConfigError, one line naming the variable
and what it must look like), never a surprise at request time. A variable
set to an empty string counts as unset, except a numeric one: an empty
number is a mistake in an environment file, not a wish for the default.
"""

from __future__ import annotations

import ipaddress
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import BeforeValidator, Field, ValidationError, model_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, EnvSettingsSource, NoDecode, SettingsConfigDict, SettingsError
from pydantic_settings.sources.utils import parse_env_vars

from mirror.values.addresses import HostPort, parse_host_port

PROJECT_ROOT = Path(__file__).resolve().parents[2]
DOC_PAGE = PROJECT_ROOT / "README.md"  # the configuration table lives in the README
TABLE_START = "<!-- settings-table:start (generated from mirror/runtime/config.py by `python -m mirror.runtime.config --write`) -->"
TABLE_END = "<!-- settings-table:end -->"
# The exit status of a process refused for a missing or bad setting (docs/operations.md, exit codes):
# the CLI's, gunicorn's and `make run`'s alike.
EXIT_CONFIG = 2

_RATE_LIMIT_RE = re.compile(r"^\s*\d+\s*(/|\s+per\s+)\s*(\d+\s+)?(second|minute|hour|day)s?\s*$", re.I)
_STORAGE_SCHEMES = ("memory", "redis", "rediss", "redis+cluster", "redis+sentinel", "memcached")


class ConfigError(ValueError):
    """A setting is present but unusable; the message names the variable."""


# --- Parsers: the variable's text -> the value. Each raises ValueError with the
# rest of a sentence that starts with the variable's name.


# What a URL of another database is told: Postgres is the one database the mirror runs on.
_POSTGRES_ONLY = "must be a postgresql:// URL (the mirror runs on PostgreSQL only; docs/operations.md)"


def normalise_database_url(url: str) -> str:
    """Accept postgresql:// and postgresql+psycopg:// alike (psycopg 3 either way); refuse any other database."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    if url.startswith("postgresql+psycopg://"):
        return url
    raise ConfigError(f"DATABASE_URL {_POSTGRES_ONLY}, got {url[:40]!r}")


def _database_url(raw: str) -> str:
    try:
        return normalise_database_url(raw.strip())
    except ConfigError:
        raise ValueError(f"{_POSTGRES_ONLY}, got {raw.strip()[:40]!r}") from None


def _whole_number(unit: str, minimum: int) -> Callable[[Any], int]:
    def parse(raw: Any) -> int:
        if isinstance(raw, int):
            value = raw
        elif str(raw).strip() == "":
            raise ValueError(f"is set but empty: give a whole number of {unit}, or unset it for the default")
        else:
            try:
                value = int(str(raw).strip())
            except ValueError:
                raise ValueError(f"must be a whole number of {unit}, got {raw!r}") from None
        if value < minimum:
            raise ValueError(f"must be at least {minimum}, got {value}")
        return value

    return parse


def _decimal_number(minimum: float, maximum: float | None = None) -> Callable[[Any], float]:
    def parse(raw: Any) -> float:
        if isinstance(raw, int | float) and not isinstance(raw, bool):
            value = float(raw)
        elif str(raw).strip() == "":
            raise ValueError("is set but empty: give a number, or unset it for the default")
        else:
            try:
                value = float(str(raw).strip())
            except ValueError:
                raise ValueError(f"must be a number, got {raw!r}") from None
        if value < minimum or (maximum is not None and value > maximum):
            bounds = f"between {minimum} and {maximum}" if maximum is not None else f"at least {minimum}"
            raise ValueError(f"must be {bounds}, got {raw!r}")
        return value

    return parse


def _boolean(raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"must be true or false, got {raw!r}")


def _http_url(raw: str) -> str:
    parts = urlsplit(raw.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"must be an absolute http(s) URL, got {raw!r}")
    return raw.strip().rstrip("/")


def _rate(raw: str) -> str:
    if not _RATE_LIMIT_RE.match(raw):
        raise ValueError(f"must look like '1000/hour' or '600 per minute', got {raw!r}")
    return raw.strip()


def _storage_uri(raw: str) -> str:
    scheme = raw.strip().partition("://")[0]
    if "://" not in raw or scheme not in _STORAGE_SCHEMES:
        raise ValueError(
            f"must be memory:// or redis://... (one of {', '.join(s + '://' for s in _STORAGE_SCHEMES)}), got {raw!r}"
        )
    return raw.strip()


def _networks(raw: Any) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    if isinstance(raw, (tuple, list)):
        return tuple(raw)
    networks = []
    for entry in filter(None, (e.strip() for e in str(raw).split(","))):
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            raise ValueError(
                f"entries must be IP addresses or networks (127.0.0.1, 10.0.0.0/8, ::1), got {entry!r}"
            ) from None
    return tuple(networks)


def _bind(raw: str) -> str:
    """One gunicorn bind: host:port, [IPv6]:port, unix:/absolute/path or fd://N."""
    text = raw.strip()
    if text.startswith("unix:"):
        ok = text[len("unix:") :].startswith("/")
    elif text.startswith("fd://"):
        ok = text[len("fd://") :].isdigit()
    else:
        host, _, port = text.rpartition(":")
        ok = bool(host) and port.isdigit() and 0 < int(port) < 65536
    if not ok:
        raise ValueError(f"must be host:port, unix:/absolute/path or fd://N, got {raw!r}")
    return text


def _origins(raw: Any) -> tuple[str, ...]:
    if isinstance(raw, (tuple, list)):
        return tuple(raw)
    return tuple(o.strip().rstrip("/") for o in str(raw).split(",") if o.strip())


def _host_ports(raw: Any) -> tuple[HostPort, ...]:
    if isinstance(raw, (tuple, list)):
        return tuple(raw)
    return tuple(parse_host_port(entry) for entry in str(raw).split(",") if entry.strip())


def _company_hosts(raw: Any) -> dict[str, str]:
    if isinstance(raw, dict):
        return raw
    hosts: dict[str, str] = {}
    for pair in filter(None, (p.strip() for p in str(raw).split(","))):
        host, sep, key = pair.partition("=")
        if not sep or not host.strip() or not key.strip():
            raise ValueError(f"entries must be host=pluginKey, got {pair!r}")
        hosts[host.strip().lower()] = key.strip()
    return hosts


# --- Types: one per kind of setting (NoDecode: the text is ours to parse, not JSON).
DatabaseUrl = Annotated[str, BeforeValidator(_database_url)]
HttpUrl = Annotated[str, BeforeValidator(_http_url)]
Seconds = Annotated[int, BeforeValidator(_whole_number("seconds", 0))]
PositiveSeconds = Annotated[int, BeforeValidator(_whole_number("seconds", 1))]
Count = Annotated[int, BeforeValidator(_whole_number("proxies", 0))]
Concurrency = Annotated[int, BeforeValidator(_whole_number("fetches", 1))]
Bytes = Annotated[int, BeforeValidator(_whole_number("bytes", 65536))]
Processes = Annotated[int, BeforeValidator(_whole_number("processes", 1))]
Threads = Annotated[int, BeforeValidator(_whole_number("threads", 1))]
Bind = Annotated[str, BeforeValidator(_bind)]
Share = Annotated[float, BeforeValidator(_decimal_number(0.001, 1.0))]
FractionalSeconds = Annotated[float, BeforeValidator(_decimal_number(0.001))]
Units = Annotated[int, BeforeValidator(_whole_number("units", 0))]
Multiple = Annotated[float, BeforeValidator(_decimal_number(1.0))]
Boolean = Annotated[bool, BeforeValidator(_boolean)]
RateLimit = Annotated[str, BeforeValidator(_rate)]
StorageUri = Annotated[str, BeforeValidator(_storage_uri)]
Origins = Annotated[tuple[str, ...], NoDecode, BeforeValidator(_origins)]
Networks = Annotated[tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...], NoDecode, BeforeValidator(_networks)]
HostMap = Annotated[dict[str, str], NoDecode, BeforeValidator(_company_hosts)]
HostPorts = Annotated[tuple[HostPort, ...], NoDecode, BeforeValidator(_host_ports)]


def setting(default: Any, meaning: str, *, shown: str | None = None) -> Any:
    """Declare one setting: its default, its one-line meaning, and how the docs show the default."""
    return Field(default, description=meaning, json_schema_extra={"shown_default": shown} if shown else None)


class Settings(BaseSettings):
    """The process's settings, read once from the environment (one field per variable)."""

    model_config = SettingsConfigDict(
        frozen=True,
        case_sensitive=False,
        env_ignore_empty=False,
        extra="ignore",
        str_strip_whitespace=True,
        validate_default=False,
    )  # defaults are written in their final form

    database_url: DatabaseUrl = setting(
        "postgresql+psycopg://127.0.0.1:5432/mirror",
        "`postgresql://…` or `postgresql+psycopg://…` (psycopg 3 either way): the one database, PostgreSQL",
        shown="`postgresql://127.0.0.1:5432/mirror`",
    )
    database_read_url: DatabaseUrl | None = setting(
        None,
        "where web requests read (a Postgres streaming replica); the sync, the scheduler, the usage rows and "
        "migrations use `DATABASE_URL`. Empty: `DATABASE_URL` (docs/operations.md, read replicas)",
    )
    upstream_url: HttpUrl | None = setting(None, "base URL of the platform API (required to sync)")
    upstream_token: str | None = setting(None, "bearer token for the platform API (required to sync)")
    public_base_url: HttpUrl = setting(
        "http://127.0.0.1:8000", "makes every URL in a payload absolute; its host is the one MCP accepts"
    )
    sync_interval_seconds: PositiveSeconds = setting(900, "scheduler interval")
    sync_overlap_seconds: Seconds = setting(60, "watermark safety overlap")
    sync_run_deadline_seconds: PositiveSeconds = setting(
        600, "a sync run still walking the upstream after this long fails and changes nothing (docs/operations.md)"
    )
    upstream_page_deadline_seconds: PositiveSeconds = setting(
        60, "one upstream page, its body included, must arrive within this; a slower one is a time-out, retried"
    )
    upstream_max_page_bytes: Bytes = setting(
        16 * 1024 * 1024,
        "an upstream page larger than this is refused (read as a stream, never buffered past it) and the run fails",
        shown="16777216 (16 MiB)",
    )
    upstream_max_clock_skew_seconds: Seconds = setting(
        300, "an upstream `updated_at` or `server_time` later than now plus this is held to now plus this"
    )
    freshness_threshold_seconds: PositiveSeconds = setting(
        86400, "a last success older than this is `stale`, and `/readyz` answers 503"
    )
    scheduler_enabled: Boolean = setting(
        False, "run the scheduler inside each web process; prefer the separate `flask --app wsgi scheduler` process"
    )
    provider_name: str = setting("contractor_commerce", "the feed's `service_providers[].provider`")
    referrer_stamp: str = setting("ai_interfaces", "value stamped on `ref`/`referrer`/`utm_source` of published URLs")
    allowed_origins: Origins = setting((), "browser origins the provider MCP server accepts (comma-separated)")
    company_hosts: HostMap = setting(
        {}, "`host=pluginKey,…`: custom domains whose root serves that company's `/.well-known/ucp` and `/ucp/mcp`"
    )
    rate_limit_per_company: RateLimit = setting(
        "1000/hour", "every keyed request for one company, all surfaces together"
    )
    rate_limit_per_client: RateLimit = setting(
        "600/minute",
        "per client address: the provider server `POST /mcp`, the feed `/v1/businesses` and the directory's "
        "`POST /ask` together",
    )
    rate_limit_storage_uri: StorageUri = setting(
        "memory://", "where the counts live; `redis://host:6379/0` shares them across workers and hosts"
    )
    rate_limit_company_client_share: Share = setting(
        0.25,
        "one client's share of `RATE_LIMIT_PER_COMPANY` at each company (at least one request); see "
        "docs/operations.md, rate limits",
    )
    rate_limit_company_ceiling: Multiple = setting(
        2.0, "all clients of one company together stop at this multiple of `RATE_LIMIT_PER_COMPANY`"
    )
    rate_limit_storage_retry_seconds: PositiveSeconds = setting(
        30, "after a counter (Redis) failure, serve without limits this long, then probe once"
    )
    rate_limit_key_prefix: str = setting("mirror", "namespace of the counters, so several installs can share one Redis")
    request_deadline_seconds: FractionalSeconds = setting(
        10.0,
        "every request's cost bound: past it the database statement and the work are cancelled and the answer is "
        "503 with `Retry-After` (docs/operations.md, request bounds); keep it well under nginx's "
        "`proxy_read_timeout` (30 s) and `GUNICORN_TIMEOUT`",
    )
    rate_limit_slow_request_share: Share = setting(
        0.25,
        "a request that holds a worker this share of `REQUEST_DEADLINE_SECONDS` or more charges the client's "
        "budgets extra units (`RATE_LIMIT_SLOW_REQUEST_UNITS` per full share)",
    )
    rate_limit_slow_request_units: Units = setting(
        10,
        "units of the client's budgets charged per full `RATE_LIMIT_SLOW_REQUEST_SHARE` of the deadline a request "
        "spent (a request stopped at its deadline: 1 + 4 × 10 at the defaults); 0 turns the charge off",
    )
    trusted_proxy_hops: Count = setting(
        0,
        "how many proxies stand in front of the app (1: nginx; 2: a load balancer, then nginx): at most that many "
        "`X-Forwarded-For` entries are walked from the right, each only from an address in `TRUSTED_PROXIES`. "
        "0 ignores `X-Forwarded-For`/`-Proto`, so a client cannot spoof its way past its limit",
    )
    trusted_proxies: Networks = setting(
        (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128")),
        "addresses or networks (comma-separated) of those proxies: forwarding headers are believed only from them "
        "(a Unix-socket peer counts as one); docs/operations.md, the proxy in front",
        shown="`127.0.0.0/8,::1`",
    )
    usage_hash_key: str = setting(
        "", "HMAC key of the hashed agent id in the invocation log (see below)", shown="random per process"
    )
    ucp_profile_fetch_concurrency: Concurrency = setting(
        2,
        "UCP agent-profile fetches in flight per process; a call past it is refused at once (keep it below "
        "gunicorn's threads)",
    )
    ucp_profile_fetches_per_client: RateLimit = setting(
        "30/minute", "UCP agent-profile fetches (cache misses) per client"
    )
    ucp_allow_insecure_profiles: Boolean = setting(
        False,
        "allow `http://` loopback UCP agent profiles from the hosts in `UCP_INSECURE_PROFILE_HOSTS`, and no others "
        "(tests, local development only; never in production)",
    )
    ucp_insecure_profile_hosts: HostPorts = setting(
        (),
        "`host:port,…` serving development agent profiles over loopback `http` (`make run`: the demo upstream's); "
        "required with `UCP_ALLOW_INSECURE_PROFILES=true`, ignored without it. A host without a port means "
        "the URL's default port (80 for http)",
    )
    gunicorn_access_log: Boolean = setting(
        False, "also write gunicorn's own access log to stdout; the invocation log is already one line per request"
    )
    gunicorn_reuse_port: Boolean = setting(
        False,
        "a listening socket per gunicorn worker on TCP binds (SO_REUSEPORT): even spread of connections; "
        "set net.ipv4.tcp_migrate_req=1 with it (docs/operations.md)",
    )
    gunicorn_bind: Bind = setting(
        "127.0.0.1:8000",
        "where deploy/gunicorn.conf.py listens: loopback only, behind nginx (docs/operations.md, the proxy in front); "
        "a Unix socket is `unix:/run/mirror/web.sock` (the web unit creates /run/mirror)",
    )
    gunicorn_workers: Processes = setting(4, "gunicorn worker processes (deploy/gunicorn.conf.py)")
    gunicorn_threads: Threads = setting(4, "threads per gunicorn worker (gthread; deploy/gunicorn.conf.py)")
    gunicorn_timeout: PositiveSeconds = setting(
        30, "a gunicorn worker silent this long is killed and replaced (deploy/gunicorn.conf.py)"
    )
    gunicorn_graceful_timeout: Seconds = setting(
        30, "on a stop or reload, how long gunicorn's old workers may finish their requests"
    )
    gunicorn_keepalive: Seconds = setting(
        5, "gunicorn closes an idle keep-alive connection from the proxy after this long (above nginx's 4 s)"
    )
    prometheus_multiproc_dir: str | None = setting(
        None,
        "where gunicorn workers share their metrics (see below); gunicorn.conf.py sets it",
        shown="fresh temp dir per gunicorn start",
    )

    @model_validator(mode="before")
    @classmethod
    def _empty_means_unset(cls, values: Any) -> Any:
        """An empty variable takes the default, except a number (its parser refuses it)."""
        if not isinstance(values, dict):
            return values
        return {
            name: value
            for name, value in values.items()
            if not (isinstance(value, str) and value.strip() == "" and not _is_number(cls.model_fields.get(name)))
        }

    @model_validator(mode="after")
    def _insecure_profiles_name_their_hosts(self) -> Settings:
        """Development profiles over loopback http come from named hosts only: never any loopback port."""
        if self.ucp_allow_insecure_profiles and not self.ucp_insecure_profile_hosts:
            raise ValueError(
                "UCP_ALLOW_INSECURE_PROFILES=true needs UCP_INSECURE_PROFILE_HOSTS, the host:port serving your "
                "development agent profile (e.g. 127.0.0.1:8001); or set UCP_ALLOW_INSECURE_PROFILES=false"
            )
        return self

    @property
    def public_host(self) -> str:
        """The host (with port, if any) of PUBLIC_BASE_URL."""
        return urlsplit(self.public_base_url).netloc.lower()

    def absolute(self, path: str) -> str:
        """Make a site path absolute against PUBLIC_BASE_URL."""
        return self.public_base_url + path


def default(name: str) -> Any:
    """The declared default of one setting (a field name): for code that has a fallback when no Settings is given."""
    return Settings.model_fields[name].default


def _is_number(field: FieldInfo | None) -> bool:
    return field is not None and field.annotation in (int, float)


def env_name(field_name: str) -> str:
    """The environment variable of a Settings field."""
    return field_name.upper()


class _MappingSource(EnvSettingsSource):
    """pydantic-settings' environment source, over a given mapping instead of os.environ.

    load_settings() takes the environment as an argument (tests and
    create_app's overrides pass a dict), and nothing else is read: no
    .env file, no secrets directory.
    """

    def __init__(self, settings_cls: type[BaseSettings], environ: Mapping[str, str]) -> None:
        self._environ = environ
        super().__init__(settings_cls)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        return parse_env_vars(self._environ, self.case_sensitive, self.env_ignore_empty, self.env_parse_none_str)


def load_settings(env: Mapping[str, str] | None = None) -> Settings:
    """Read and validate every setting from `env` (default: os.environ); raise ConfigError naming the bad variable."""
    import os

    return read_settings(Settings, os.environ if env is None else env)


def settings_or_exit(env: Mapping[str, str] | None = None) -> Settings:
    """load_settings(env), or exit with status EXIT_CONFIG after one line on stderr: `configuration error: NAME ...`.

    Every process that reads the settings (the CLI, gunicorn's workers and
    master, `make run`) refuses a bad value through this one function, so the
    line and the exit status are the same everywhere.
    """
    try:
        return load_settings(env)
    except ConfigError as error:
        print(f"configuration error: {error}", file=sys.stderr)
        raise SystemExit(EXIT_CONFIG) from None


def read_settings(declaration: type[Settings], env: Mapping[str, str]) -> Settings:
    """Read `declaration` (Settings, or a subclass) from the mapping `env`; ConfigError on a bad value."""
    environ = dict(env)
    try:
        return declaration(_build_sources=((_MappingSource(declaration, environ),), {}))
    except ValidationError as error:
        raise ConfigError(_one_line(error.errors()[0], environ)) from None
    except SettingsError as error:  # a value pydantic-settings itself could not decode
        raise ConfigError(str(error).splitlines()[0]) from None


def _one_line(error: Mapping[str, Any], environ: Mapping[str, str]) -> str:
    """'NAME must …, got …' from pydantic's first error."""
    if not error["loc"] and error["type"] == "value_error":  # a rule across settings: its message names them
        return str(error["ctx"]["error"])
    name = env_name(str(error["loc"][0])) if error["loc"] else "configuration"
    if error["type"] == "value_error":
        return f"{name} {error['ctx']['error']}"
    return f"{name}: {error['msg']}, got {environ.get(name, error.get('input'))!r}"


# --- The docs table, from the same declaration.


def _shown_default(field: FieldInfo) -> str:
    extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
    default = field.default
    if extra.get("shown_default"):
        return str(extra["shown_default"])
    if default is None:
        return "—"
    if isinstance(default, bool):
        return "true" if default else "false"
    if isinstance(default, int):
        return str(default)
    if default in ("", (), {}):
        return "empty"
    return f"`{default}`"


def markdown_table(declaration: type[Settings] | None = None) -> str:
    """The configuration table (Markdown), one row per setting, in declaration order."""
    rows = ["| variable | default | meaning |", "| --- | --- | --- |"]
    for name, field in (declaration or Settings).model_fields.items():
        rows.append(f"| `{env_name(name)}` | {_shown_default(field)} | {field.description} |")
    return "\n".join(rows) + "\n"


def with_table(text: str, declaration: type[Settings] | None = None) -> str:
    """`text` with the part between the settings-table markers replaced by markdown_table()."""
    start, end = text.find(TABLE_START), text.find(TABLE_END)
    if start < 0 or end < start:
        raise ValueError(f"the settings-table markers are missing from {DOC_PAGE.name}")
    return text[:start] + TABLE_START + "\n" + markdown_table(declaration) + text[end:]


def write_doc_table(page: Path = DOC_PAGE) -> bool:
    """Rewrite the table in the docs page; True when it changed."""
    old = page.read_text()
    new = with_table(old)
    if new != old:
        page.write_text(new)
    return new != old


if __name__ == "__main__":
    if sys.argv[1:] == ["--markdown"]:
        sys.stdout.write(markdown_table())
    elif sys.argv[1:] == ["--write"]:
        print(f"{DOC_PAGE.relative_to(PROJECT_ROOT)}: {'table updated' if write_doc_table() else 'table up to date'}")
    elif sys.argv[1:] == ["--check"]:  # scripts/run_demo.sh, before it writes anything
        settings_or_exit()
    else:
        print("usage: python -m mirror.runtime.config --markdown | --write | --check", file=sys.stderr)
        raise SystemExit(EXIT_CONFIG)
