"""A live demo mirror and a real WordPress running the plugin (wordpress/), for the WordPress tests.

- `DemoMirror`: `make run`'s stack on free ports: the demo upstream with make run's catalog
  (scripts/run_demo.sh's size and seed, the docs' example companies included), a migrated Postgres
  database, gunicorn serving the mirror (stopped and started on the same port at will, its invocation
  log kept) and the sync, run on demand with the mirror's own code over HTTP.
- `WordPressSite`: a site made by scripts/wordpress_site.sh (Debian's WordPress and PHP, a fresh
  MariaDB database, the plugin active), served by `php -S`; its WP-Cron run over HTTP, its admin
  logged in over HTTP, its CLI (scripts/wordpress/cli.php) for what only the server side can see.

Nothing here skips: a missing package or service fails the test that needs it, naming the fix.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import requests

from tests import REPO_ROOT
from tests.mirror_helpers import fresh_mirror
from tests.ops_helpers import Gunicorn, free_port, process_env

SITE_SCRIPT = REPO_ROOT / "scripts" / "wordpress_site.sh"
CLI = REPO_ROOT / "scripts" / "wordpress" / "cli.php"
SITES_DIR = Path(os.environ.get("WORDPRESS_SITES_DIR", "/var/tmp/wordpress-sites"))
# make run's demo catalog (scripts/run_demo.sh: DEMO_COMPANIES, DEMO_PRODUCTS, --seed 1).
DEMO_COMPANIES, DEMO_PRODUCTS, DEMO_SEED = 40, 60, 1
TOKEN = "demo-token"


def wait_until(condition: Callable[[], object], what: str, timeout: float = 10.0):
    """Poll `condition` until it returns something truthy; fail naming `what`."""
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if result:
            return result
        assert time.monotonic() < deadline, f"{what} did not happen within {timeout} s"
        time.sleep(0.1)


@dataclass
class DemoMirror:
    """The demo upstream, the mirror's database and sync, and gunicorn serving the mirror."""

    upstream: object
    mirror: object
    server: Gunicorn
    log: object

    @property
    def url(self) -> str:
        return self.server.base

    def sync(self) -> None:
        """One incremental sync of the mirror from the upstream (over HTTP), which must succeed."""
        result = self.mirror.sync()
        assert result.status == "success", result.error

    def admin(self, method: str, path: str, body: dict | None = None) -> dict:
        """The demo upstream's admin API (/_demo/..., demo/admin.py)."""
        response = requests.request(
            method,
            f"{self.upstream.url}/_demo{path}",
            json=body,
            headers={"Authorization": f"Bearer {TOKEN}"},
            timeout=10,
        )
        assert response.status_code in (200, 201), response.text
        return response.json()

    def pricing_json(self, key: str) -> requests.Response:
        """The mirror's pricing.json for `key`, as any client reads it."""
        return requests.get(f"{self.url}/companies/{key}/pricing.json", timeout=10)

    def set_channel(self, key: str, channel: str, on: bool) -> None:
        """Switch one of a company's channels upstream (the rest of its settings kept)."""
        settings = self.admin("GET", f"/companies/{key}")["settings"]
        settings["channels"] = {**settings.get("channels", {}), channel: on}
        self.admin("PATCH", f"/companies/{key}", {"settings": settings})

    def invocations(self) -> list[dict]:
        """Every line of the mirror's invocation log so far (docs/operations.md)."""
        self.log.flush()
        lines = Path(self.log.name).read_text(errors="replace").splitlines()
        found = []
        for line in lines:
            if line.startswith("{") and '"event":"invocation"' in line:
                found.append(json.loads(line))
        return found

    def settled_count(self) -> int:
        """How many invocation lines there are once the log has stopped growing.

        A line is written just after its answer, so the client's last request may still be on its
        way to the log when the client returns; counting then would attribute it to what follows.
        """
        count = len(self.invocations())
        while True:
            time.sleep(0.3)
            now = len(self.invocations())
            if now == count:
                return count
            count = now

    def logged(self, since: int, endpoint: str, count: int = 1, *, not_from: str | None = None) -> list[dict]:
        """The invocation lines of `endpoint` after the first `since` lines, once there are `count`.

        Each line is written just after its answer, so this waits for them. `not_from` leaves out one
        client platform's lines ("python": the tests' own requests).
        """

        def found() -> list[dict]:
            lines = [line for line in self.invocations()[since:] if line["endpoint"] == endpoint]
            return [line for line in lines if line["platform"] != not_from]

        wait_until(lambda: len(found()) >= count, f"{count} invocation line(s) of {endpoint}", timeout=5)
        time.sleep(0.2)  # and no more than that
        return found()

    def stop(self) -> None:
        self.server.stop()

    def start(self) -> None:
        self.server.start()


def start_demo_mirror(database_url: str, tmp_path: Path) -> DemoMirror:
    """make run's stack on free ports: upstream, first sync, gunicorn; the caller stops it (stop_demo_mirror)."""
    from demo.catalog import DemoCatalog
    from demo.server import start_in_thread

    upstream = start_in_thread(DemoCatalog(DEMO_COMPANIES, DEMO_PRODUCTS, DEMO_SEED, examples=True), token=TOKEN)
    mirror = fresh_mirror(database_url, upstream.url)
    log = (tmp_path / "mirror.log").open("w+b")
    server = Gunicorn(process_env(database_url, upstream), log, 1, "--threads", "4")
    demo = DemoMirror(upstream, mirror, server, log)
    demo.sync()
    server.start()
    return demo


def stop_demo_mirror(demo: DemoMirror) -> None:
    demo.stop()
    demo.mirror.dispose()
    demo.upstream.stop()
    demo.log.close()


@dataclass
class WordPressSite:
    """One local site of scripts/wordpress_site.sh, on 127.0.0.1:`port`."""

    name: str
    port: int
    process: subprocess.Popen | None = None
    log: Path | None = None
    sessions: dict = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def folder(self) -> Path:
        return SITES_DIR / self.name

    @property
    def admin_password(self) -> str:
        return (self.folder / "admin-password").read_text().strip()

    def env(self) -> dict:
        return {**os.environ, "WORDPRESS_CONFIG": self.name, "WORDPRESS_HOST": f"127.0.0.1:{self.port}"}

    def install(self, mirror_url: str, plugin_key: str) -> None:
        """A fresh site with the plugin active and configured (scripts/wordpress_site.sh install)."""
        run_site_script("install", self.name, str(self.port), mirror_url, plugin_key)

    def serve(self, log_dir: Path) -> None:
        """php -S in its own process group; returns once the home page answers."""
        self.log = log_dir / f"{self.name}-server.log"
        with self.log.open("wb") as out:
            self.process = subprocess.Popen(
                ["bash", str(SITE_SCRIPT), "serve", self.name],
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )

        def answers() -> bool:
            assert self.process.poll() is None, f"php -S exited:\n{self.log.read_text()}"
            try:
                return requests.get(self.url + "/", timeout=10).status_code == 200
            except requests.RequestException:
                return False

        wait_until(answers, f"WordPress serving on {self.url}", timeout=30)

    def stop(self) -> None:
        """Stop the whole process group (php -S's workers would otherwise keep the port)."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(5)

    def remove(self) -> None:
        run_site_script("remove", self.name)

    def cli(self, *args: str):
        """scripts/wordpress/cli.php on this site; its JSON answer."""
        done = subprocess.run(
            ["php", str(CLI), *args], env=self.env(), capture_output=True, text=True, timeout=60, check=False
        )
        assert done.returncode == 0, f"cli.php {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
        return json.loads(done.stdout)

    def option(self, name: str):
        """An option as the site stores it."""
        return self.cli("option", name)

    def get(self, path: str, **kwargs) -> requests.Response:
        """A visitor's GET."""
        return requests.get(self.url + path, timeout=30, **kwargs)

    def page(self, path: str) -> str:
        """A page a visitor opens; it must answer 200."""
        response = self.get(path)
        assert response.status_code == 200, (path, response.status_code, response.text[:500])
        return response.text

    def run_cron(self) -> dict:
        """Make the scheduled poll due and run WP-Cron over HTTP (GET /wp-cron.php); the poll's status after it."""
        due = self.cli("due")
        response = self.get("/wp-cron.php")
        assert response.status_code == 200, response.text[:500]
        status = self.option("contractor_pricing_status")
        # The poll ran: it is recorded, and the next one is scheduled at least a minute later.
        assert status and status["last_poll_at"] > due, "GET /wp-cron.php did not run the poll"
        assert self.cli("next-poll") >= status["last_poll_at"] + 60
        return status

    def admin(self) -> requests.Session:
        """A browser-like session logged in as the site's administrator."""
        if "admin" not in self.sessions:
            session = requests.Session()
            session.get(self.url + "/wp-login.php", timeout=30)  # sets wordpress_test_cookie
            response = session.post(
                self.url + "/wp-login.php",
                data={
                    "log": "admin",
                    "pwd": self.admin_password,
                    "wp-submit": "Log In",
                    "redirect_to": self.url + "/wp-admin/",
                    "testcookie": "1",
                },
                allow_redirects=False,
                timeout=30,
            )
            assert response.status_code == 302 and "/wp-admin/" in response.headers.get("Location", ""), response.text[
                :1000
            ]
            self.sessions["admin"] = session
        return self.sessions["admin"]

    def debug_log(self) -> str:
        """What PHP logged on this site (WP_DEBUG_LOG)."""
        path = self.folder / "debug.log"
        return path.read_text(errors="replace") if path.exists() else ""


def run_site_script(*args: str) -> str:
    """scripts/wordpress_site.sh ARGS, which must succeed; its output."""
    assert shutil.which("php"), "PHP is missing: run `make wordpress` (scripts/install_wordpress.sh)"
    done = subprocess.run(["bash", str(SITE_SCRIPT), *args], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, f"wordpress_site.sh {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


def new_site(mirror_url: str, plugin_key: str) -> WordPressSite:
    """A freshly installed site with a name and port no other test process uses."""
    site = WordPressSite(f"t{os.getpid()}-{uuid.uuid4().hex[:6]}", free_port())
    site.install(mirror_url, plugin_key)
    return site


def form_fields(html: str, action: str) -> dict[str, str]:
    """The hidden inputs of the form posting to `action` (its nonce and referer among them)."""
    import lxml.html

    document = lxml.html.fromstring(html)
    for form in document.forms:
        if (form.get("action") or "").endswith(action):
            return {i.get("name"): i.get("value") or "" for i in form.xpath(".//input[@type='hidden'][@name]")}
    raise AssertionError(f"no form posting to {action}")


def text_of(html: str, xpath: str) -> list[str]:
    """The text of every element matching `xpath`."""
    import lxml.html

    return [element.text_content() for element in lxml.html.fromstring(html).xpath(xpath)]
