"""Configuration: defaults from CONTRACTS.md, and a bad value names its variable."""
from __future__ import annotations

import subprocess
import sys

import pytest

from mirror.config import ConfigError, load_settings
from tests.conftest import REPO_ROOT


def test_defaults():
    settings = load_settings({})
    assert settings.database_url.startswith("sqlite:///") and settings.database_url.endswith("instance/mirror.sqlite3")
    assert (settings.sync_interval_seconds, settings.sync_overlap_seconds, settings.freshness_threshold_seconds) == (900, 60, 86400)
    assert settings.provider_name == "contractor_commerce" and settings.referrer_stamp == "ai_interfaces"
    assert settings.rate_limit_per_company == "1000/hour" and settings.rate_limit_per_client == "600/minute"
    assert settings.rate_limit_storage_uri == "memory://" and settings.company_hosts == {}


@pytest.mark.parametrize("url", ["postgresql://u@h/db", "postgresql+psycopg://u@h/db", "postgres://u@h/db"])
def test_postgres_urls_use_psycopg3(url):
    assert load_settings({"DATABASE_URL": url}).database_url == "postgresql+psycopg://u@h/db"


@pytest.mark.parametrize("name, value", [
    ("SYNC_INTERVAL_SECONDS", "soon"), ("SYNC_OVERLAP_SECONDS", "-1"), ("FRESHNESS_THRESHOLD_SECONDS", "0"),
    ("SCHEDULER_ENABLED", "maybe"), ("PUBLIC_BASE_URL", "example.com"), ("UPSTREAM_URL", "ftp://x"),
    ("DATABASE_URL", "mysql://x"), ("RATE_LIMIT_PER_COMPANY", "lots"), ("COMPANY_HOSTS", "nokey"),
    ("RATE_LIMIT_STORAGE_URI", "file:///tmp"),
])
def test_a_bad_value_names_the_variable(name, value):
    with pytest.raises(ConfigError, match=name):
        load_settings({name: value})


def test_company_hosts_parse():
    assert load_settings({"COMPANY_HOSTS": "Pros.Example=abc, localhost=def"}).company_hosts == {
        "pros.example": "abc", "localhost": "def"}


def test_the_app_refuses_to_start_with_a_bad_value():
    result = subprocess.run(
        [sys.executable, "-c", "import wsgi; wsgi.create_app()"], cwd=REPO_ROOT, capture_output=True, text=True,
        env={"PATH": "/usr/bin:/bin", "SYNC_INTERVAL_SECONDS": "often"}, timeout=60,
    )
    assert result.returncode != 0
    assert "SYNC_INTERVAL_SECONDS" in result.stderr and "Traceback" not in result.stderr
