"""deploy/nginx-site.conf itself, pointed at a local app: for the tests that run it and the benchmark's cached rows.

Only what a machine's run must change is changed: the app's address, the
port nginx listens on and the documents' cache folder (and, for a test that
waits for a copy to expire, the cache time). Everything else is the file an
operator installs.
"""

from __future__ import annotations

from pathlib import Path

SITE = Path(__file__).resolve().parent.parent / "deploy" / "nginx-site.conf"
CACHE_VALID = "proxy_cache_valid 200 10s;"


def deploy_site(app_port: int, port: int, cache_dir: Path, cache_seconds: int | None = None) -> str:
    """The site file's text with the app at 127.0.0.1:`app_port`, listening on 127.0.0.1:`port`."""
    site = SITE.read_text()
    replacements = {
        "server 127.0.0.1:8000;": f"server 127.0.0.1:{app_port};",
        "listen 80;": f"listen 127.0.0.1:{port};",
        "/var/cache/nginx/mirror": str(cache_dir),
    }
    if cache_seconds is not None:
        replacements[CACHE_VALID] = f"proxy_cache_valid 200 {cache_seconds}s;"
    for old, new in replacements.items():
        assert old in site, f"deploy/nginx-site.conf no longer holds {old!r}: update bench/nginx_site.py"
        site = site.replace(old, new)
    return site
