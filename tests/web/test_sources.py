"""Source tracking (issue 3, common rules): `?source=LABEL` on any endpoint.

A request naming a source is recorded (label cut to 64 characters, endpoint
path, method, status); recording never changes the status, headers or body,
never fails or slows the request, and a redirect is recorded too. The
`flask --app wsgi sources [--since]` report counts hits by label and endpoint.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from urllib.parse import quote

import pytest
from sqlalchemy import insert, select, text

from mirror.store.models import SourceHit
from tests.feeds.test_business_feed import ALL_ON, add_company, sync

# Every kind of response the app gives: JSON, HTML, 302, 304, 400, 404 (JSON and
# HTML), 405, text, HEAD and POST.
ENDPOINTS = [
    ("GET", "/v1/businesses?page_size=2", None),
    ("HEAD", "/v1/businesses?page_size=2", None),
    ("GET", "/v1/businesses?page=0", None),
    ("POST", "/v1/businesses", None),
    ("GET", "/companies/funnel-co/quote", None),
    ("GET", "/companies/page-co/quote", None),
    ("GET", "/companies/page-co/pricing", None),
    ("GET", "/companies/page-co/pricing.json", None),
    ("GET", "/companies/page-co.jsonld", None),
    ("GET", "/companies/no-such-co/pricing.json", None),
    ("GET", "/companies/no-such-co/pricing", None),
    ("GET", "/companies/no-such-co/quote", None),
    ("GET", "/no/such/path", None),
    ("GET", "/llms.txt", None),
    ("GET", "/.well-known/mcp.json", None),
    ("POST", "/companies/page-co/mcp", b"{"),
]
# What is stored is the matched route: a key the gate refused stays `<key>`, an unrouted path `<unmatched>`.
RECORDED_AS = {
    "/companies/no-such-co/pricing.json": "/companies/<key>/pricing.json",
    "/companies/no-such-co/pricing": "/companies/<key>/pricing",
    "/companies/no-such-co/quote": "/companies/<key>/quote",
    "/no/such/path": "<unmatched>",
    "/v1/businesses": "<unmatched>",  # only called with POST here: a 405 matched no route
}


@pytest.fixture
def site(upstream, mirror):
    """One contractor with its own funnel (the quote link redirects) and one without."""
    add_company(
        upstream,
        "funnel-co",
        settings={
            "channels": ALL_ON,
            "systems_estimate_url": "https://funnel.example/estimate?ref=site",
            "systems_estimate_url_verified": True,
        },
    )
    add_company(upstream, "page-co", products=4)
    sync(mirror)
    return upstream


def call(
    client, method: str, path: str, body: bytes | None = None, source: str | None = None, raw_source: str | None = None
):
    if source is not None or raw_source is not None:
        label = raw_source if raw_source is not None else quote(source, safe="")
        path += ("&" if "?" in path else "?") + "source=" + label
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"} if body else {}
    return client.open(path, method=method, data=body, headers=headers)


def assert_same_response(plain, tagged) -> None:
    assert tagged.status_code == plain.status_code
    assert tagged.get_data() == plain.get_data()
    assert sorted(tagged.headers.items()) == sorted(plain.headers.items())


def hits(app) -> list[tuple]:
    app.extensions["source_recorder"].flush()
    with app.extensions["mirror"].Session() as session:
        rows = session.execute(
            select(SourceHit.label, SourceHit.endpoint, SourceHit.method, SourceHit.status).order_by(SourceHit.id)
        ).all()
    return [tuple(r) for r in rows]


# --- recording -------------------------------------------------------------------------


def test_every_kind_of_endpoint_records_and_answers_exactly_as_without_a_source(app, client, site):
    expected = []
    statuses = set()
    for number, (method, path, body) in enumerate(ENDPOINTS):
        plain = call(client, method, path, body)
        tagged = call(client, method, path, body, source=f"label-{number}")
        assert_same_response(plain, tagged)
        statuses.add(plain.status_code)
        expected.append((f"label-{number}", RECORDED_AS.get(path, path.split("?")[0]), method, plain.status_code))
    assert {200, 302, 400, 404, 405} <= statuses  # the list really covers every kind
    assert hits(app) == expected


def test_a_redirect_is_recorded_with_its_status(app, client, site):
    response = call(client, "GET", "/companies/funnel-co/quote", source="chatgpt")
    assert response.status_code == 302
    assert response.headers["Location"] == "https://funnel.example/estimate?ref=ai_interfaces"
    assert "source" not in response.headers["Location"]
    assert hits(app) == [("chatgpt", "/companies/funnel-co/quote", "GET", 302)]


def test_a_conditional_304_is_recorded(app, client, site):
    etag = client.get("/v1/businesses").headers["ETag"]
    response = client.get("/v1/businesses?source=poller", headers={"If-None-Match": etag})
    assert response.status_code == 304
    assert hits(app) == [("poller", "/v1/businesses", "GET", 304)]


@pytest.mark.parametrize("raw", ["", "%20%20", "%09", "&source=", "x&source="])
def test_an_empty_label_is_not_recorded(app, client, site, raw):
    plain = client.get("/v1/businesses")
    tagged = client.get("/v1/businesses?source=" + raw)
    assert_same_response(plain, tagged)
    if raw.startswith("x"):
        assert hits(app) == [("x", "/v1/businesses", "GET", 200)]  # the first value counts
    else:
        assert hits(app) == []


def test_the_label_is_cut_to_its_first_64_characters(app, client, site):
    call(client, "GET", "/v1/businesses", source="a" * 63 + "bc" + "d" * 100)
    call(client, "GET", "/v1/businesses", source="e" * 64)
    assert [h[0] for h in hits(app)] == ["a" * 63 + "b", "e" * 64]


HOSTILE = {
    "nul": ("%00evil%00", "evil"),
    "10kb": (quote("x" * 10240), "x" * 64),
    "sql": (quote("'); DROP TABLE source_hits; --"), "'); DROP TABLE source_hits; --"),
    "sql-union": (
        quote("1' OR '1'='1' UNION SELECT * FROM companies --"),
        "1' OR '1'='1' UNION SELECT * FROM companies --",
    ),
    "emoji": (quote("🔧" * 100), "🔧" * 64),
    "rtl": (quote("\u202egnp.exe\u202c שלום"), "\u202egnp.exe\u202c שלום"),
    "combining": (quote("e\u0301" * 40), ("e\u0301" * 40)[:64]),
    "html": (quote("<script>alert(1)</script>"), "<script>alert(1)</script>"),
    "crlf": ("a%0d%0aSet-Cookie:%20x=1", "a\r\nSet-Cookie: x=1"),
    "escape": ("%1b%5b2J%1b%5d0;pwned%07", "\x1b[2J\x1b]0;pwned\x07"),
    "bad-utf8": ("%ff%fe%c3", "%FF%FE%C3"),  # Werkzeug keeps undecodable bytes percent-encoded
    "percent": ("%25%25%25", "%%%"),
}


def test_hostile_labels_never_break_a_request_and_are_stored_as_data(app, client, site, subtests):
    # One site for every label (each a subtest): each label's rows are the three after the rows before it.
    for name, (raw, stored) in HOSTILE.items():
        with subtests.test(label=name):
            before = len(hits(app))
            for method, path, body in (
                ("GET", "/v1/businesses?page_size=3", None),
                ("GET", "/companies/funnel-co/quote", None),
                ("GET", "/companies/no-such-co/pricing.json", None),
            ):
                assert_same_response(call(client, method, path, body), call(client, method, path, body, raw_source=raw))
            recorded = hits(app)
            assert [h[0] for h in recorded[before:]] == [stored] * 3
            assert client.get("/v1/businesses").status_code == 200
            with app.extensions["mirror"].Session() as session:  # the table is still there and whole
                assert session.scalar(select(SourceHit.id).order_by(SourceHit.id.desc()).limit(1)) == before + 3


# --- failures and speed -----------------------------------------------------------------------


def test_a_recording_failure_still_answers_normally(app, client, mirror, site):
    recorder = app.extensions["source_recorder"]
    plain = client.get("/v1/businesses?page_size=3")
    with mirror.writer_engine.begin() as connection:
        connection.execute(text("ALTER TABLE source_hits RENAME TO source_hits_away"))
    try:
        dropped = recorder.dropped
        for number in range(3):
            assert_same_response(plain, client.get(f"/v1/businesses?page_size=3&source=lost-{number}"))
        redirect = client.get("/companies/funnel-co/quote?source=lost-redirect")
        assert redirect.status_code == 302
        recorder.flush()
        assert recorder.dropped == dropped + 4  # counted, not raised
    finally:
        with mirror.writer_engine.begin() as connection:
            connection.execute(text("ALTER TABLE source_hits_away RENAME TO source_hits"))
    # Recording resumes once the table is back.
    client.get("/v1/businesses?source=back")
    assert hits(app) == [("back", "/v1/businesses", "GET", 200)]


def _lock_source_hits(mirror):
    """Hold a lock that makes every write to source_hits wait; returns a release function."""
    connection = mirror.writer_engine.connect()
    # EXCLUSIVE blocks INSERT but still lets the test read the table.
    connection.exec_driver_sql("LOCK TABLE source_hits IN EXCLUSIVE MODE")
    return lambda: (connection.rollback(), connection.close())


def test_a_request_never_waits_for_the_recording(app, mirror, site):
    client = app.test_client()
    client.get("/v1/businesses?page_size=3")  # warm up (index, pools)
    release = _lock_source_hits(mirror)
    answered: list[float] = []
    try:

        def request():
            started = time.monotonic()
            assert client.get("/v1/businesses?page_size=3&source=while-locked").status_code == 200
            answered.append(time.monotonic() - started)

        worker = threading.Thread(target=request, daemon=True)
        worker.start()
        worker.join(timeout=5)
        assert answered, "the request waited for the source_hits lock"
        assert answered[0] < 1.0
        assert hits_without_flush(app) == []  # not yet written: the writer is waiting
    finally:
        release()
    assert hits(app) == [("while-locked", "/v1/businesses", "GET", 200)]


def hits_without_flush(app) -> list:
    with app.extensions["mirror"].Session() as session:
        return session.scalars(select(SourceHit.label)).all()


# --- the report -------------------------------------------------------------------------------


def _report(app, *args: str):
    result = app.test_cli_runner().invoke(args=["sources", *args])
    return result


def test_the_report_counts_hits_by_label_and_endpoint(app, client, site):
    empty = _report(app)
    assert empty.exit_code == 0 and "no source-tagged requests recorded" in empty.output
    for _ in range(3):
        client.get("/v1/businesses?source=chatgpt")
    client.get("/companies/funnel-co/quote?source=chatgpt")
    client.get("/companies/page-co/pricing.json?source=wordpress")
    client.get("/companies/page-co/pricing.json?source=wordpress")
    hits(app)
    # The report is stdout; the invocation log (stderr, written after each request by its listener) is not part of it.
    result = _report(app)
    assert result.exit_code == 0, result.output
    rows = [line.split() for line in result.stdout.strip().splitlines()]
    assert rows[0] == ["label", "count", "endpoint"]
    assert rows[1:] == [
        ["chatgpt", "3", "/v1/businesses"],
        ["wordpress", "2", "/companies/page-co/pricing.json"],
        ["chatgpt", "1", "/companies/funnel-co/quote"],
    ]


def test_the_report_since(app, client, mirror, site):
    with mirror.WriterSession() as session:
        session.execute(
            insert(SourceHit),
            [
                {
                    "label": "old-campaign",
                    "endpoint": "/v1/businesses",
                    "method": "GET",
                    "status": 200,
                    "recorded_at": datetime.now(UTC) - timedelta(days=3),
                }
            ],
        )
        session.commit()
    client.get("/v1/businesses?source=new-campaign")
    hits(app)
    everything = _report(app).stdout
    assert "old-campaign" in everything and "new-campaign" in everything
    for since in ("1d", "24h", "90m", (datetime.now(UTC) - timedelta(days=1)).isoformat()):
        recent = _report(app, "--since", since)
        assert recent.exit_code == 0, recent.output
        assert "new-campaign" in recent.output and "old-campaign" not in recent.output, since
    assert "old-campaign" in _report(app, "--since", "2020-01-01T00:00:00Z").output
    bad = _report(app, "--since", "last tuesday")
    assert bad.exit_code == 2 and "30m, 24h, 7d" in bad.output


def test_the_report_prints_hostile_labels_harmlessly(app, client, site):
    client.get("/v1/businesses?source=%1b%5b2J%1b%5d0;pwned%07")
    client.get("/v1/businesses?source=" + quote("<b>🔧</b> \u202eevil"))
    hits(app)
    output = _report(app).stdout
    assert "\x1b" not in output and "\x07" not in output and "\u202e" not in output
    assert "?[2J?]0;pwned?" in output
    assert "<b>🔧</b> ?evil" in output
