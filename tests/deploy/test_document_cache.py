"""The documents' cache in front (deploy/nginx-site.conf; docs/operations.md, "The cache in front").

gunicorn serves the app on a real database synced from the demo upstream;
nginx runs the deploy file itself (only its addresses, its cache folder and,
where a test waits for it to pass, its cache time changed). What reached the
app is read from the app's own invocation log.
"""

from __future__ import annotations

import json
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass

import pytest
import requests

from tests.deploy.test_slow_clients import deploy_nginx
from tests.ops_helpers import Gunicorn, process_env
from tests.surface_helpers import DEFAULT_PRODUCTS, add_company, set_product, sync

pytestmark = pytest.mark.slow
CACHE_SECONDS = 2  # in place of the file's 10 s, where a test waits for it to pass


@dataclass
class Stack:
    proxy: str
    app: Gunicorn
    log: object

    def served(self, path: str, status: int | None = None) -> int:
        """How many requests for `path` (with `status`, if given) the app answered, once its log has them.

        The invocation log is written off the request thread, once a second: the count is read until
        it stays the same across one of the writer's periods.
        """
        counts = [self._count(path, status)]
        while len(counts) < 2 or counts[-1] != counts[-2]:
            time.sleep(1.2)
            counts.append(self._count(path, status))
        return counts[-1]

    def _count(self, path: str, status: int | None) -> int:
        self.log.seek(0)
        count = 0
        for line in self.log.read().decode().splitlines():
            if not line.startswith("{"):
                continue
            entry = json.loads(line)
            if entry.get("event") != "invocation" or entry.get("company_key") is None:
                continue
            key = entry["company_key"]
            if entry["endpoint"].replace("<key>", key) == path and status in (None, entry["status"]):
                count += 1
        return count


@contextmanager
def stack(database_url, upstream, cache_seconds: int | None = None):
    log = tempfile.TemporaryFile()
    app = Gunicorn(process_env(database_url, upstream, TRUSTED_PROXY_HOPS=1), log, 1)
    app.start()
    try:
        with deploy_nginx(app.port, cache_seconds) as port:
            yield Stack(f"http://127.0.0.1:{port}", app, log)
    finally:
        app.stop()
        log.close()


@pytest.fixture
def key(upstream, mirror):
    key = add_company(upstream)
    sync(mirror)
    return key


def wait_for(condition, what: str, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while not (found := condition()):
        assert time.monotonic() < deadline, f"{what} did not happen within {timeout} s"
        time.sleep(0.2)
    return found


def test_a_document_reaches_the_app_once_and_is_then_served_byte_for_byte_by_nginx(database_url, upstream, key):
    paths = (f"/companies/{key}/pricing.json", f"/companies/{key}.jsonld", f"/companies/{key}/pricing")
    with stack(database_url, upstream) as s:
        for path in paths:
            direct = requests.get(s.app.base + path, timeout=10)
            first = requests.get(s.proxy + path, timeout=10)
            second = requests.get(s.proxy + path, timeout=10)
            assert (first.headers["X-Cache-Status"], second.headers["X-Cache-Status"]) == ("MISS", "HIT")
            for answer in (first, second):
                assert answer.status_code == 200 and answer.content == direct.content
                assert answer.headers["ETag"] == direct.headers["ETag"]
                assert answer.headers["Content-Type"] == direct.headers["Content-Type"]
            # The client's own conditional request is answered by nginx from the stored copy.
            revalidated = requests.get(s.proxy + path, headers={"If-None-Match": direct.headers["ETag"]}, timeout=10)
            assert revalidated.status_code == 304 and revalidated.content == b""
            assert revalidated.headers["X-Cache-Status"] == "HIT"
        s.served(paths[-1])  # the log settled
        assert [s._count(path, None) for path in paths] == [2, 2, 2]  # each: the direct request and one miss


def test_many_requests_for_a_cold_document_reach_the_app_once(database_url, upstream, key):
    path = f"/companies/{key}/pricing.json"
    with stack(database_url, upstream) as s, ThreadPoolExecutor(12) as pool:
        answers = list(pool.map(lambda _: requests.get(s.proxy + path, timeout=10), range(12)))
        assert {answer.status_code for answer in answers} == {200}
        assert len({answer.content for answer in answers}) == 1
        assert s.served(path) == 1


def test_a_query_string_always_reaches_the_app_so_every_source_is_recorded(database_url, upstream, key):
    path = f"/companies/{key}/pricing.json"
    with stack(database_url, upstream) as s:
        requests.get(s.proxy + path, timeout=10)  # stored
        for _ in range(3):
            answer = requests.get(s.proxy + path + "?source=wordpress", timeout=10)
            assert answer.status_code == 200 and answer.headers["X-Cache-Status"] == "BYPASS"
        assert s.served(path) == 4
        assert requests.get(s.proxy + path, timeout=10).headers["X-Cache-Status"] == "HIT"


def test_a_sync_shows_through_the_cache_when_it_expires_and_an_unchanged_copy_is_revalidated_by_etag(
    database_url, upstream, mirror, key
):
    path = f"/companies/{key}/pricing.json"
    with stack(database_url, upstream, CACHE_SECONDS) as s:
        before = requests.get(s.proxy + path, timeout=10).json()

        # Unchanged: once expired, nginx asks with the stored ETag and the app answers 304.
        wait_for(lambda: requests.get(s.proxy + path, timeout=10) and s._count(path, 304), "a 304 revalidation")
        assert requests.get(s.proxy + path, timeout=10).json() == before

        good = DEFAULT_PRODUCTS[0]
        set_product(upstream, key, **{**good, "price": "7999.00"})
        sync(mirror)
        after = wait_for(
            lambda: (body := requests.get(s.proxy + path, timeout=10).json()) != before and body,
            "the synced price through nginx",
            timeout=CACHE_SECONDS + 5,
        )
        assert after["content_version"] != before["content_version"]
        assert "7999" in json.dumps(after["categories"])


def test_an_unknown_company_is_never_stored_and_the_last_copy_outlives_an_app_restart(database_url, upstream, key):
    with stack(database_url, upstream, CACHE_SECONDS) as s:
        missing = "/companies/no-such-company/pricing.json"
        for _ in range(2):
            answer = requests.get(s.proxy + missing, timeout=10)
            assert answer.status_code == 404 and answer.headers["X-Cache-Status"] == "MISS"

        path = f"/companies/{key}/pricing.json"
        stored = requests.get(s.proxy + path, timeout=10)
        s.app.stop()
        time.sleep(CACHE_SECONDS + 1.5)  # nginx keeps time in whole seconds: a copy expires within a second after
        served = requests.get(s.proxy + path, timeout=10)
        assert served.status_code == 200 and served.content == stored.content
        assert served.headers["X-Cache-Status"] == "STALE"
        assert requests.get(s.proxy + missing, timeout=10).status_code == 502  # nothing stored for it
