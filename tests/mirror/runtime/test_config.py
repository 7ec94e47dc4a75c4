"""Configuration: one declaration (mirror/runtime/config.py) gives the defaults, the errors and the docs table."""

from __future__ import annotations

import ast
import subprocess
import sys
from typing import Literal

import pytest
from pydantic import ValidationError

from commands import EXIT_CONFIG
from mirror.runtime import config
from mirror.runtime.config import ConfigError, Settings, env_name, load_settings, markdown_table
from tests import REPO_ROOT

NUMERIC = [env_name(name) for name, field in Settings.model_fields.items() if field.annotation in (int, float)]


def test_defaults():
    settings = load_settings({})
    assert settings.database_url == "postgresql+psycopg://127.0.0.1:5432/mirror"
    assert (settings.sync_interval_seconds, settings.sync_overlap_seconds, settings.freshness_threshold_seconds) == (
        900,
        60,
        86400,
    )
    assert settings.provider_name == "contractor_commerce" and settings.referrer_stamp == "ai_interfaces"
    assert settings.rate_limit_per_company == "1000/hour" and settings.rate_limit_per_client == "600/minute"
    assert settings.rate_limit_storage_uri == "memory://" and settings.company_hosts == {}
    assert settings.public_base_url == "http://127.0.0.1:8000" and settings.upstream_url is None
    assert (settings.trusted_proxy_hops, settings.rate_limit_key_prefix, settings.usage_hash_key) == (0, "mirror", "")
    assert settings.scheduler_enabled is False and settings.ucp_allow_insecure_profiles is False
    assert settings.allowed_origins == () and settings.prometheus_multiproc_dir is None


def test_values_are_parsed_and_the_settings_are_frozen():
    settings = load_settings(
        {
            "SYNC_INTERVAL_SECONDS": " 30 ",
            "SCHEDULER_ENABLED": "yes",
            "UPSTREAM_URL": "http://up.example/",
            "ALLOWED_ORIGINS": "https://a.example/, https://b.example",
            "PROVIDER_NAME": "  acme  ",
            "TRUSTED_PROXY_HOPS": "1",
        }
    )
    assert (settings.sync_interval_seconds, settings.scheduler_enabled, settings.trusted_proxy_hops) == (30, True, 1)
    assert settings.upstream_url == "http://up.example" and settings.provider_name == "acme"
    assert settings.allowed_origins == ("https://a.example", "https://b.example")
    assert settings.absolute("/x") == "http://127.0.0.1:8000/x" and settings.public_host == "127.0.0.1:8000"
    with pytest.raises(ValidationError, match="frozen"):
        settings.sync_interval_seconds = 1


def test_only_the_given_mapping_is_read(monkeypatch):
    monkeypatch.setenv("SYNC_INTERVAL_SECONDS", "5")
    assert load_settings({}).sync_interval_seconds == 900
    assert load_settings().sync_interval_seconds == 5


@pytest.mark.parametrize("url", ["postgresql://u@h/db", "postgresql+psycopg://u@h/db", "postgres://u@h/db"])
def test_postgres_urls_use_psycopg3(url):
    assert load_settings({"DATABASE_URL": url}).database_url == "postgresql+psycopg://u@h/db"


@pytest.mark.parametrize(
    "name, value",
    [
        ("SYNC_INTERVAL_SECONDS", "soon"),
        ("SYNC_OVERLAP_SECONDS", "-1"),
        ("FRESHNESS_THRESHOLD_SECONDS", "0"),
        ("TRUSTED_PROXY_HOPS", "two"),
        ("SCHEDULER_ENABLED", "maybe"),
        ("UCP_ALLOW_INSECURE_PROFILES", "2"),
        ("UCP_INSECURE_PROFILE_HOSTS", "http://127.0.0.1:8001"),
        ("PUBLIC_BASE_URL", "example.com"),
        ("UPSTREAM_URL", "ftp://x"),
        ("DATABASE_URL", "mysql://x"),
        ("RATE_LIMIT_PER_COMPANY", "lots"),
        ("RATE_LIMIT_PER_CLIENT", "5/fortnight"),
        ("COMPANY_HOSTS", "nokey"),
        ("RATE_LIMIT_STORAGE_URI", "file:///tmp"),
        ("TRUSTED_PROXIES", "nginx"),
        ("TRUSTED_PROXIES", "10.0.0.0/33"),
    ],
)
def test_a_bad_value_is_one_line_naming_the_variable(name, value):
    with pytest.raises(ConfigError) as raised:
        load_settings({name: value})
    message = str(raised.value)
    assert message.startswith(name + " ") and "\n" not in message
    assert repr(value) in message or "at least" in message


def test_trusted_proxies_are_addresses_and_networks():
    default = load_settings({}).trusted_proxies
    assert [str(network) for network in default] == ["127.0.0.0/8", "::1/128"]  # loopback: nginx on this host
    given = load_settings({"TRUSTED_PROXIES": " 10.0.0.5, 192.168.0.0/16 ,2001:db8::/48"}).trusted_proxies
    assert [str(network) for network in given] == ["10.0.0.5/32", "192.168.0.0/16", "2001:db8::/48"]


def test_wrong_type_says_what_it_must_be():
    with pytest.raises(ConfigError, match=r"^SYNC_INTERVAL_SECONDS must be a whole number of seconds, got 'soon'$"):
        load_settings({"SYNC_INTERVAL_SECONDS": "soon"})


@pytest.mark.parametrize("name", NUMERIC)
@pytest.mark.parametrize("value", ["", "   "])
def test_an_empty_number_is_refused_not_defaulted(name, value):
    with pytest.raises(
        ConfigError, match=rf"^{name} is set but empty: give a (whole )?number.*unset it for the default$"
    ):
        load_settings({name: value})


def test_an_empty_non_numeric_value_takes_the_default():
    empty = {
        env_name(name): "" for name, field in Settings.model_fields.items() if field.annotation not in (int, float)
    }
    assert load_settings(empty) == load_settings({})


def test_an_unknown_enum_value_lists_the_choices():
    with pytest.raises(ConfigError) as raised:
        load_settings({"RATE_LIMIT_STORAGE_URI": "file:///tmp"})
    assert str(raised.value) == (
        "RATE_LIMIT_STORAGE_URI must be memory:// or redis://... (one of memory://, redis://, rediss://, "
        "redis+cluster://, redis+sentinel://, memcached://), got 'file:///tmp'"
    )


def test_a_future_enum_setting_also_fails_in_one_line():
    """A setting declared with a plain type (here a Literal) gets pydantic's message, still one line naming it."""

    class WithMode(Settings):
        log_format: Literal["json", "text"] = config.setting("json", "how log lines are written")

    with pytest.raises(ConfigError) as raised:
        config.read_settings(WithMode, {"LOG_FORMAT": "xml"})
    assert str(raised.value) == "LOG_FORMAT: Input should be 'json' or 'text', got 'xml'"
    assert config.read_settings(WithMode, {"LOG_FORMAT": "text"}).log_format == "text"


@pytest.mark.parametrize("url", ["mysql://x/mirror", "file:///srv/mirror.store.db", "instance/mirror.store.db"])
def test_a_url_of_another_database_is_refused_naming_postgres(url):
    with pytest.raises(ConfigError) as raised:
        load_settings({"DATABASE_URL": url})
    assert str(raised.value) == (
        f"DATABASE_URL must be a postgresql:// URL (the mirror runs on PostgreSQL only; docs/operations.md), got {url!r}"
    )


@pytest.mark.parametrize(
    "url", ["postgresql://u@db:5433/m", "postgres://u@db:5433/m", "postgresql+psycopg://u@db:5433/m"]
)
def test_every_spelling_of_a_postgres_url_is_psycopg_3(url):
    assert load_settings({"DATABASE_URL": url}).database_url == "postgresql+psycopg://u@db:5433/m"


def test_company_hosts_parse():
    assert load_settings({"COMPANY_HOSTS": "Pros.Example=abc, localhost=def"}).company_hosts == {
        "pros.example": "abc",
        "localhost": "def",
    }


@pytest.mark.parametrize(
    "env, first_words",
    [
        ({"SYNC_INTERVAL_SECONDS": "often"}, "configuration error: SYNC_INTERVAL_SECONDS must be a whole number"),
        ({"TRUSTED_PROXY_HOPS": ""}, "configuration error: TRUSTED_PROXY_HOPS is set but empty"),
        ({"DATABASE_URL": "mysql://db/mirror"}, "configuration error: DATABASE_URL must be a postgresql:// URL"),
    ],
)
def test_the_app_refuses_to_start_with_one_line(env, first_words):
    result = subprocess.run(
        [sys.executable, "-c", "import wsgi; wsgi.create_app()"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
        env={"PATH": "/usr/bin:/bin", **env},
        timeout=60,
    )
    assert result.returncode == EXIT_CONFIG
    assert result.stderr.startswith(first_words) and result.stderr.count("\n") == 1, result.stderr


# --- The docs table is generated from the declaration.


def _doc_table(text: str) -> str:
    start = text.index(config.TABLE_START) + len(config.TABLE_START) + 1
    return text[start : text.index(config.TABLE_END)]


def test_the_docs_table_is_the_declaration():
    page = config.DOC_PAGE.read_text()
    assert config.DOC_PAGE == REPO_ROOT / "README.md"
    assert _doc_table(page) == markdown_table(), "run `make docs`"


def test_the_table_names_every_setting_once_in_the_docs():
    """One table: each setting has one row, in the README, and none anywhere in docs/."""
    docs = {path: path.read_text() for path in sorted((REPO_ROOT / "docs").rglob("*.md"))}
    readme = (REPO_ROOT / "README.md").read_text()
    for name in map(env_name, Settings.model_fields):
        row = f"| `{name}` |"
        assert [page.name for page, text in docs.items() if row in text] == [], name
        assert readme.count(row) == 1, name
    assert markdown_table().count("\n") == len(Settings.model_fields) + 2


def test_the_table_follows_a_changed_declaration():
    """The check above would catch a new or changed setting: the generator reads the live declaration."""
    text = config.DOC_PAGE.read_text()

    class WithMore(Settings):
        extra_seconds: config.Seconds = config.setting(5, "an example")

    assert "`EXTRA_SECONDS`" not in config.with_table(text)
    assert "| `EXTRA_SECONDS` | 5 | an example |" in config.with_table(text, WithMore)


# --- Nothing else reads a setting from the environment.

APP_CODE = [
    "mirror",
    "web",
    "feeds",
    "mcp_server",
    "webmcp",
    "commands",
    "demo",
    "migrations",
    "scripts",
    "wsgi.py",
    "gunicorn.conf.py",
]
# gunicorn.conf.py *sets* PROMETHEUS_MULTIPROC_DIR for prometheus_client, which reads it itself at import,
# before any worker loads the app; it is the one file that must touch that variable in os.environ.
ALLOWED = {"mirror/runtime/config.py", "gunicorn.conf.py"}


def _reads_by_name(tree: ast.AST, names: set[str]) -> list[int]:
    """Lines that look a setting up by its variable name: m["NAME"], m.get("NAME"), getenv("NAME")."""
    lines = []
    for node in ast.walk(tree):
        key = None
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            key = node.slice.value
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            if (isinstance(func, ast.Attribute) and func.attr in ("get", "getenv", "pop")) or (
                isinstance(func, ast.Name) and func.id == "getenv"
            ):
                key = node.args[0].value
        if key in names:
            lines.append(node.lineno)
    return lines


def test_no_module_but_config_reads_a_setting_from_the_environment():
    names = set(map(env_name, Settings.model_fields))
    found = []
    for entry in APP_CODE:
        root = REPO_ROOT / entry
        for path in [root] if root.is_file() else sorted(root.rglob("*.py")):
            relative = path.relative_to(REPO_ROOT).as_posix()
            if relative not in ALLOWED:
                found += [f"{relative}:{line}" for line in _reads_by_name(ast.parse(path.read_text()), names)]
    assert found == [], "read settings through mirror.runtime.config.load_settings / app.extensions['mirror'].settings"


def test_the_scan_finds_a_direct_read():
    """The scan above is not vacuous: the pattern web/health.py used to have is caught."""
    tree = ast.parse('import os\nx = os.environ.get("PROMETHEUS_MULTIPROC_DIR")\ny = os.environ["UPSTREAM_URL"]\n')
    assert _reads_by_name(tree, set(map(env_name, Settings.model_fields))) == [2, 3]
