"""/healthz, /readyz and /metrics (Prometheus), including gunicorn's several workers."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from tests import REPO_ROOT
from tests.ops_helpers import MCP_HEADERS, UNKNOWN_KEY, flask_command, free_port, process_env, running_gunicorn
from tests.surface_helpers import add_company, sync

UNREACHABLE_DB = "postgresql://mirror:s3cret-password@127.0.0.1:1/mirror"


def samples(text: str) -> dict[tuple, float]:
    """{(sample name, sorted labels...): value} from the exposition text."""
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, *sorted(sample.labels.items()))] = sample.value
    return found


def metric(found: dict, name: str, **labels) -> float | None:
    return found.get((name, *sorted(labels.items())))


def test_healthz_needs_nothing_but_the_process(make_app):
    client = make_app(DATABASE_URL=UNREACHABLE_DB).test_client()
    response = client.get("/healthz")
    assert response.status_code == 200 and response.get_json() == {"status": "ok"}
    assert response.headers["Cache-Control"] == "no-store"


def test_readyz_before_and_after_the_first_sync(app, mirror, client):
    before = client.get("/readyz")
    assert before.status_code == 503
    assert before.get_json() | {"freshness_threshold_seconds": 0} == {
        "ready": False,
        "reasons": ["never_synced"],
        "database": "ok",
        "last_sync_at": None,
        "last_sync_age_seconds": None,
        "freshness_threshold_seconds": 0,
    }
    sync(mirror)
    after = client.get("/readyz")
    assert after.status_code == 200
    body = after.get_json()
    assert body["ready"] is True and body["reasons"] == [] and body["last_sync_age_seconds"] <= 5
    assert body["freshness_threshold_seconds"] == 86400


def test_readyz_says_stale_past_the_freshness_threshold(make_app):
    app = make_app(FRESHNESS_THRESHOLD_SECONDS="1")
    sync(app.extensions["mirror"])
    assert app.test_client().get("/readyz").status_code == 200
    time.sleep(2.1)
    stale = app.test_client().get("/readyz")
    assert stale.status_code == 503 and stale.get_json()["reasons"] == ["sync_stale"]
    assert stale.get_json()["last_sync_age_seconds"] >= 2


def test_readyz_without_a_database_is_a_clean_503(make_app):
    response = make_app(DATABASE_URL=UNREACHABLE_DB).test_client().get("/readyz")
    assert response.status_code == 503
    body = response.get_data(as_text=True)
    assert response.get_json()["reasons"] == ["database_unreachable"]
    assert "s3cret" not in body and "Traceback" not in body and "psycopg" not in body


def test_request_metrics_by_route_rule(upstream, make_app):
    app = make_app()
    key = add_company(upstream)
    sync(app.extensions["mirror"])
    client = app.test_client()
    for _ in range(3):
        client.get(f"/companies/{key}/pricing.json")
    for n in range(40):  # many distinct keys: still one label value
        client.get(f"/companies/{UNKNOWN_KEY}{n}/pricing.json")
    client.get("/nowhere/at/all")
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "list_categories", "arguments": {}}}
    client.post(f"/companies/{key}/mcp", json=body, headers=MCP_HEADERS)
    response = client.get("/metrics")
    assert response.status_code == 200 and response.mimetype == "text/plain"
    text = response.get_data(as_text=True)
    found = samples(text)
    rule = "/companies/<key>/pricing.json"
    assert metric(found, "mirror_http_requests_total", endpoint=rule, method="GET", status="200") == 3
    assert metric(found, "mirror_http_requests_total", endpoint=rule, method="GET", status="404") == 40
    assert metric(found, "mirror_http_requests_total", endpoint="<unmatched>", method="GET", status="404") == 1
    assert metric(found, "mirror_http_request_duration_seconds_count", endpoint=rule, method="GET") == 43
    assert (
        metric(
            found,
            "mirror_mcp_calls_total",
            endpoint="/companies/<key>/mcp",
            rpc_method="tools/call",
            tool="list_categories",
            outcome="ok",
        )
        == 1
    )
    assert key not in text and UNKNOWN_KEY not in text  # labels are rules, never raw paths


def test_sync_metrics_come_from_the_database(database_url, upstream, make_app):
    app = make_app()
    client = app.test_client()
    found = samples(client.get("/metrics").get_data(as_text=True))
    assert metric(found, "mirror_database_up") == 1
    assert metric(found, "mirror_sync_last_success_timestamp_seconds") is None
    # A run made by another process (the scheduler, the CLI) shows up all the same.
    run = subprocess.run(
        flask_command("sync"),
        cwd=REPO_ROOT,
        env=process_env(database_url, upstream),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    upstream.faults.add("unauthorized", path="/v1/companies", nth=1)
    assert app.extensions["mirror"].sync().status == "failed"
    found = samples(client.get("/metrics").get_data(as_text=True))
    assert metric(found, "mirror_sync_runs_total", mode="incremental", outcome="success") == 1
    assert metric(found, "mirror_sync_runs_total", mode="incremental", outcome="failed") == 1
    assert metric(found, "mirror_sync_runs_unfinished") == 0
    assert metric(found, "mirror_sync_last_duration_seconds", mode="incremental", outcome="failed") >= 0
    assert metric(found, "mirror_sync_last_rows_changed", mode="incremental", kind="companies_written") == 12
    assert metric(found, "mirror_sync_last_rows_changed", mode="incremental", kind="products_written") > 100
    assert abs(metric(found, "mirror_sync_last_success_timestamp_seconds") - time.time()) < 120
    assert metric(found, "mirror_companies", state="public") >= 1


def test_metrics_without_a_database_still_answer(make_app):
    client = make_app(DATABASE_URL=UNREACHABLE_DB).test_client()
    client.get("/healthz")
    response = client.get("/metrics")
    assert response.status_code == 200
    found = samples(response.get_data(as_text=True))
    assert metric(found, "mirror_database_up") == 0
    assert metric(found, "mirror_http_requests_total", endpoint="/healthz", method="GET", status="200") == 1


@pytest.mark.slow
def test_gunicorn_workers_report_one_set_of_metrics(database_url, upstream, mirror, tmp_path):
    key = add_company(upstream)
    sync(mirror)
    env = process_env(database_url, upstream, PROMETHEUS_MULTIPROC_DIR=tmp_path)
    # Each worker retires after 5 requests, so at least six processes answer the 30 requests below.
    with running_gunicorn(env, 2, "--max-requests", "5") as base:
        for _ in range(30):
            assert requests.get(f"{base}/companies/{key}/pricing.json", timeout=10).status_code == 200
        scrapes = [samples(requests.get(f"{base}/metrics", timeout=10).text) for _ in range(6)]
    assert len(list(tmp_path.glob("counter_*.db"))) >= 6
    for found in scrapes:  # whichever worker answers the scrape, the totals are the whole server's
        assert (
            metric(
                found,
                "mirror_http_requests_total",
                endpoint="/companies/<key>/pricing.json",
                method="GET",
                status="200",
            )
            == 30
        )
        assert metric(found, "mirror_sync_runs_total", mode="incremental", outcome="success") == 1


@pytest.mark.slow
def test_the_metrics_folder_a_start_makes_is_removed_when_gunicorn_stops(database_url, upstream, tmp_path):
    """Each start without PROMETHEUS_MULTIPROC_DIR makes a folder: gone at exit, after a reload, and after a refusal."""
    from commands import EXIT_CONFIG
    from tests.deploy.test_production_topology import worker_pids

    temp = tmp_path / "tmp"  # where tempfile (so gunicorn.conf.py) makes the folder
    temp.mkdir()
    port = free_port()
    env = process_env(database_url, upstream, TMPDIR=temp, PUBLIC_BASE_URL=f"http://127.0.0.1:{port}")
    command = [sys.executable, "-m", "gunicorn", "--workers", "2", "--bind", f"127.0.0.1:{port}", "wsgi:create_app()"]
    server = subprocess.Popen(command, cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_until(lambda: _answers(f"http://127.0.0.1:{port}/healthz") and len(worker_pids(server.pid)) == 2)
        [made] = temp.glob("mirror-prometheus-*")
        workers = worker_pids(server.pid)
        server.send_signal(signal.SIGHUP)  # a reload runs gunicorn.conf.py again in the same master
        _wait_until(lambda: len(worker_pids(server.pid)) == 2 and not worker_pids(server.pid) & workers)
        _wait_until(lambda: _answers(f"http://127.0.0.1:{port}/healthz"))  # the new workers serve
        assert list(temp.glob("mirror-prometheus-*")) == [made]  # the one folder, kept while it serves
    finally:
        server.terminate()
        server.wait(30)
    assert list(temp.iterdir()) == []
    refused = subprocess.run(command, cwd=REPO_ROOT, env={**env, "SYNC_INTERVAL_SECONDS": "abc"}, capture_output=True)
    assert refused.returncode == EXIT_CONFIG
    assert list(temp.iterdir()) == []  # a start refused for a bad setting leaves nothing either


def _answers(url: str) -> bool:
    try:
        return requests.get(url, timeout=5).status_code == 200
    except requests.RequestException:
        return False


def _wait_until(condition, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.2)
