"""A 304 carries the headers of its 200 (issue 22, section 6).

A cache that revalidates merges the 304's headers into the response it
stored (RFC 9111, 4.3.4), so a header the 304 adds and the 200 lacks ends up
on the stored body: every JSON and script 304 used to carry the HTML pages'
Content-Security-Policy and Referrer-Policy (a bodiless Response defaults to
text/html, and the security-header rule went by that). Every GET route of
the app that answers with an ETag is found from the URL map and revalidated
over real HTTP; its 304 must send exactly the 200's headers but the body's
own (Content-Type, Content-Length) and the server's clock (Date).
"""

from __future__ import annotations

import re

import requests

from tests.hardening_helpers import serving
from tests.surface_helpers import add_company, sync

COMPANY_HOST = "pros.example"
BODY_HEADERS = {"content-type", "content-length", "date"}  # what a 304 leaves out, or states anew (RFC 9110, 15.4.5)
NAMED_IN_THE_ISSUE = {"/companies/<key>/pricing.json", "/companies/<key>.jsonld", "/.well-known/ai-catalog.json"}


def _path(rule: str, key: str) -> str:
    path = rule.replace("<key>", key).replace("<version>", "2026-04-08")
    assert not re.search(r"<[^>]+>", path), f"no example value for a variable of {rule}: add one here"
    return path


def _headers(response: requests.Response) -> list[tuple[str, str]]:
    return sorted((name.lower(), value) for name, value in response.headers.items() if name.lower() not in BODY_HEADERS)


def test_every_304_carries_its_200s_headers(make_app, upstream):
    key = add_company(upstream)
    app = make_app(COMPANY_HOSTS=f"{COMPANY_HOST}={key}")
    sync(app.extensions["mirror"])
    rules = sorted({rule.rule for rule in app.url_map.iter_rules() if "GET" in rule.methods})
    revalidated = set()
    with serving(app) as base:
        for rule in rules:
            url = base + _path(rule, key)
            for host in ({}, {"Host": COMPANY_HOST}):  # the custom-domain routes answer on their host only
                first = requests.get(url, headers=host, timeout=10)
                if first.status_code != 200 or "ETag" not in first.headers:
                    continue
                again = requests.get(url, headers={**host, "If-None-Match": first.headers["ETag"]}, timeout=10)
                assert again.status_code == 304, (rule, host)
                assert _headers(again) == _headers(first), (rule, host)
                revalidated.add(rule)
    assert revalidated >= NAMED_IN_THE_ISSUE
    assert len(revalidated) >= 21, revalidated  # every document, page and script served with an ETag (21 today)
