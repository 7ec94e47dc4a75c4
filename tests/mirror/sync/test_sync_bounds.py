"""The sync's bounds against a hostile upstream, over real HTTP (docs/operations.md, "The sync's bounds").

The demo upstream serves the catalog; `HostileProxy` stands in front of it
and breaks the contract the way an upstream could: cursors that lead round
in a loop, a page dripped a byte at a time, a body that never ends. Each
run must fail in bounded time with one line naming the bound, and change
nothing visible. The record bounds (a stamp in the far future, fields past
their caps) are set on the demo catalog itself.
"""

from __future__ import annotations

import json
import threading
import time
from datetime import UTC, datetime, timedelta

import pytest
import requests
from sqlalchemy import select
from werkzeug.serving import make_server
from werkzeug.wrappers import Request, Response

from mirror.catalog.records import parse_product
from mirror.store.lock import SyncBusy, sync_lock
from mirror.store.models import NAME_MAX_CHARS, SERVICE_AREA_MAX_POSTAL_CODES, Company, Product, SyncRun
from mirror.sync.run import INTERRUPTED
from mirror.sync.upstream import UpstreamClient
from mirror.values.timestamps import aware
from tests.mirror.catalog.test_records_unstorable import PRODUCT
from tests.mirror_helpers import a_product, public_key, quick_client, snapshot

FAR_FUTURE = "9999-12-31T23:59:59Z"


class HostileProxy:
    """A real HTTP server forwarding to the demo upstream, each page of /v1/products broken as `mode` says.

    - `loop_to_first`: from the second page on, `next_cursor` leads back to the first page;
    - `same_cursor`: a page's `next_cursor` is the cursor that asked for it;
    - `drip`: the page's body is sent one byte every `drip_interval` seconds;
    - `endless`: the body never ends (stopped at `endless_limit` bytes, so a client without a cap fails too).
    `sent` counts the body bytes the proxy managed to send.
    """

    FIRST = "back-to-the-first-page"

    def __init__(self, upstream, mode: str, *, drip_interval: float = 0.1, endless_limit: int = 96 << 20):
        self.upstream, self.mode = upstream, mode
        self.drip_interval, self.endless_limit = drip_interval, endless_limit
        self.sent = 0
        self.stopping = threading.Event()
        self.server = make_server("127.0.0.1", 0, self, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self.server.shutdown()
        self.server.server_close()

    def __call__(self, environ, start_response):
        request = Request(environ)
        params = request.args.to_dict()
        hostile = request.path == "/v1/products"
        if hostile and params.get("cursor") == self.FIRST:
            del params["cursor"]
        forwarded = requests.get(
            self.upstream.url + request.path, params=params, headers={"Authorization": "Bearer demo-token"}
        )
        if not hostile or forwarded.status_code != 200:
            return Response(forwarded.content, forwarded.status_code, content_type="application/json")(
                environ, start_response
            )
        page = forwarded.json()
        if self.mode == "loop_to_first" and "cursor" in params and page["next_cursor"]:
            page["next_cursor"] = self.FIRST
        if self.mode == "same_cursor" and "cursor" in params:
            page["next_cursor"] = params["cursor"]
        body = json.dumps(page).encode()
        if self.mode == "drip":
            return Response(self._drip(body), 200, content_type="application/json")(environ, start_response)
        if self.mode == "endless":
            return Response(self._endless(), 200, content_type="application/json")(environ, start_response)
        return Response(body, 200, content_type="application/json")(environ, start_response)

    def _drip(self, body: bytes):
        for index in range(len(body)):
            if self.stopping.wait(self.drip_interval):
                return
            self.sent += 1
            yield body[index : index + 1]

    def _endless(self):
        yield b'{"data": ["'
        chunk = b"x" * 65536
        while self.sent < self.endless_limit and not self.stopping.is_set():
            self.sent += len(chunk)
            yield chunk


@pytest.fixture
def hostile(upstream):
    proxies = []

    def start(mode: str, **options) -> HostileProxy:
        proxy = HostileProxy(upstream, mode, **options)
        proxies.append(proxy)
        return proxy

    yield start
    for proxy in proxies:
        proxy.stop()


def _hostile_client(proxy: HostileProxy, **kwargs) -> UpstreamClient:
    kwargs.setdefault("page_limit", 7)
    kwargs.setdefault("backoff_seconds", 0.0)
    kwargs.setdefault("timeout", (2.0, 2.0))
    return UpstreamClient(proxy.url, "demo-token", **kwargs)


def _run_bounded(mirror, client, seconds: float = 60, **kwargs):
    """The run's result, or a failure naming the hang when it is still running after `seconds` (a guard, not a
    speed target: every bound under test is one or two seconds)."""
    outcome: list = []
    runner = threading.Thread(target=lambda: outcome.append(mirror.sync(client=client, **kwargs)), daemon=True)
    runner.start()
    runner.join(seconds)
    assert outcome, f"the run was still going after {seconds} s: nothing bounded it"
    return outcome[0]


def _company(mirror, key: str) -> Company | None:
    with mirror.Session() as session:
        return session.get(Company, key)


def _product(mirror, key: str, sku: str) -> Product | None:
    with mirror.Session() as session:
        return session.get(Product, (key, sku))


def _sync(mirror, upstream, **kwargs):
    result = mirror.sync(client=quick_client(upstream), **kwargs)
    assert result.status == "success", result.error
    return result


# --- 4. a far-future updated_at never freezes a record ------------------------------


@pytest.mark.parametrize("full", [False, True], ids=["incremental", "full"])
def test_a_company_stamped_in_the_far_future_still_takes_its_later_changes(mirror, upstream, client, full):
    _sync(mirror, upstream)
    key = public_key(upstream)
    upstream.catalog.touch_company(key, name="From The Future", updated_at=FAR_FUTURE)
    result = _sync(mirror, upstream)
    stored = _company(mirror, key)
    assert stored.name == "From The Future" and result.counts.capped_records >= 1
    assert aware(stored.upstream_updated_at) <= datetime.now(UTC) + timedelta(seconds=300), "clamped to the clock"
    assert client.get(f"/companies/{key}/pricing.json").status_code == 200

    upstream.catalog.touch_company(key, status="churned")  # stamped now: long before the far future
    _sync(mirror, upstream, full=full)
    assert _company(mirror, key).status == "churned"
    assert client.get(f"/companies/{key}/pricing.json").status_code == 404


@pytest.mark.parametrize("full", [False, True], ids=["incremental", "full"])
def test_a_product_stamped_in_the_far_future_still_takes_its_price_and_its_tombstone(mirror, upstream, full):
    _sync(mirror, upstream)
    key = public_key(upstream)
    sku = a_product(upstream, key)["sku"]
    upstream.catalog.set_product(key, sku, price="1111.00", updated_at=FAR_FUTURE)
    _sync(mirror, upstream)
    assert _product(mirror, key, sku).price_cents == 111100

    upstream.catalog.set_product(key, sku, price="2222.00")  # stamped now
    _sync(mirror, upstream, full=full)
    assert _product(mirror, key, sku).price_cents == 222200

    upstream.catalog.set_product(key, sku, price="3333.00", updated_at=FAR_FUTURE)
    _sync(mirror, upstream)
    upstream.catalog.delete_product(key, sku)  # the tombstone, stamped now
    _sync(mirror, upstream, full=full)
    assert _product(mirror, key, sku) is None


# --- 5. cursor loops, drip-fed pages, the run's deadline, runs left running ----------


@pytest.mark.parametrize("mode", ["loop_to_first", "same_cursor"])
def test_a_cursor_loop_fails_the_run_at_once_and_changes_nothing(mirror, upstream, hostile, mode):
    _sync(mirror, upstream)
    upstream.catalog.mutate(0.5, seed=5, company_fraction=0.5)
    before = snapshot(mirror)
    pages = -(-upstream.catalog.stats()["products"] // 7)
    client = _hostile_client(hostile(mode))
    result = _run_bounded(mirror, client, full=True)
    assert result.status == "failed"
    assert "cursor loop" in result.error and "/v1/products" in result.error
    assert client.requests_made <= 2 * pages + 10, "the loop was caught on its first lap, not walked on"
    assert snapshot(mirror) == before


def test_a_drip_fed_page_fails_within_its_deadline_and_changes_nothing(mirror, upstream, hostile):
    _sync(mirror, upstream)
    upstream.catalog.mutate(0.5, seed=5)
    before = snapshot(mirror)
    proxy = hostile("drip", drip_interval=0.05)
    client = _hostile_client(proxy, page_deadline_seconds=1, max_retries=1)
    result = _run_bounded(mirror, client)
    assert result.status == "failed"
    assert "UPSTREAM_PAGE_DEADLINE_SECONDS" in result.error
    assert snapshot(mirror) == before


def test_a_run_past_its_deadline_fails_and_changes_nothing(mirror, upstream):
    _sync(mirror, upstream)
    upstream.catalog.mutate(0.5, seed=5)
    before = snapshot(mirror)
    upstream.faults.add("slow", seconds=0.6, path="/v1/products", times=None)
    result = _run_bounded(mirror, quick_client(upstream), deadline_seconds=1)
    assert result.status == "failed"
    assert "SYNC_RUN_DEADLINE_SECONDS" in result.error
    assert snapshot(mirror) == before


def test_a_run_left_running_by_a_killed_process_is_marked_failed_at_the_next_start(mirror, upstream):
    with mirror.WriterSession() as session:
        session.add(SyncRun(mode="full", started_at=datetime.now(UTC), status="running", counts={}))
        session.commit()
    with sync_lock(mirror.writer_engine), pytest.raises(SyncBusy):  # a run holding the lock is not stale
        mirror.sync(client=quick_client(upstream))
    with mirror.Session() as session:
        assert session.scalars(select(SyncRun.status)).all() == ["running"]
    _sync(mirror, upstream)
    with mirror.Session() as session:
        killed, ran = session.scalars(select(SyncRun).order_by(SyncRun.id)).all()
    assert (killed.status, killed.error, ran.status) == ("failed", INTERRUPTED, "success")
    assert killed.finished_at is not None


# --- 6. a body that never ends --------------------------------------------------------


def test_an_endless_body_is_refused_at_the_cap_and_changes_nothing(mirror, upstream, hostile):
    _sync(mirror, upstream)
    upstream.catalog.mutate(0.5, seed=5)
    before = snapshot(mirror)
    proxy = hostile("endless")
    cap = 1 << 20
    result = _run_bounded(mirror, _hostile_client(proxy, max_page_bytes=cap))
    assert result.status == "failed"
    assert "UPSTREAM_MAX_PAGE_BYTES" in result.error and f"{cap:,} bytes" in result.error
    time.sleep(0.2)  # the proxy notices the closed connection
    # Read to the cap, then refused once: what the proxy got out is the cap and the sockets' buffers, not the body.
    assert proxy.sent < proxy.endless_limit // 2
    assert snapshot(mirror) == before


# --- 7. field caps at the record boundary ---------------------------------------------


def test_an_oversize_name_and_a_hundred_thousand_zips_are_held_to_their_caps(mirror, upstream):
    _sync(mirror, upstream)
    key = public_key(upstream)
    sku = a_product(upstream, key)["sku"]
    huge_name = "Contractor " * 100_000  # 1.1 MB
    zips = [f"{n:05d}" for n in range(100_000)]
    upstream.catalog.touch_company(key, name=huge_name, service_area={"postal_codes": zips})
    upstream.catalog.set_product(key, sku, name="Heat pump " * 100_000)
    result = _sync(mirror, upstream)
    company, product = _company(mirror, key), _product(mirror, key, sku)
    assert len(company.name) <= NAME_MAX_CHARS + 1 and company.name.endswith("Contractor…")
    assert len(product.name) <= NAME_MAX_CHARS + 1 and product.name.endswith("pump…")
    assert company.service_postal_codes == []  # more ZIPs than any contractor serves: missing, not a guess
    assert result.counts.capped_records == 2 and result.counts.invalid_records == 0

    upstream.catalog.touch_company(key, service_area={"postal_codes": zips[:SERVICE_AREA_MAX_POSTAL_CODES]})
    _sync(mirror, upstream)
    assert len(_company(mirror, key).service_postal_codes) == SERVICE_AREA_MAX_POSTAL_CODES


def test_specs_too_deep_or_too_large_and_too_many_model_numbers_are_held_to_their_caps():
    capped: list = []
    deep = {"a": {"b": {"c": {"d": {"e": 1}}}}}
    for specs in (deep, {"notes": "x" * 10_000}):
        product = parse_product({**PRODUCT, "specs": specs}, on_cap=lambda record, fields: capped.append(fields))
        assert product.specs == {}
    product = parse_product({**PRODUCT, "model_numbers": [f"M{n}" for n in range(1000)]})
    assert product.model_numbers == [f"M{n}" for n in range(20)]
    shallow = parse_product({**PRODUCT, "specs": {"a": {"b": {"c": 1}}}})
    assert shallow.specs == {"a": {"b": {"c": 1}}}
    assert capped == [["specs"], ["specs"]]
