"""The gate chain: resolve the key -> public and switched on (the one 404) -> rate limit -> serve.

Every keyed route goes through web.gate.gate(). These tests hold it to its
order: a closed key answers the same 404 as an unknown one after the same
single query, is never counted or refused by the rate limiter (a flood gets
404s, never a 429), and a key's budget is spent only by requests that were
going to be served.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

import pytest

from tests.mirror_helpers import postgres_statements
from tests.ops_helpers import KEYED_SURFACES, UNKNOWN_KEY, closed_companies
from tests.surface_helpers import ALL_CHANNELS, add_company, response_signature, set_settings, sync

# Keyed rules that deliberately do not go through the gate, and why.
UNGATED = {
    # Never a 404 by design (webmcp/routes.py): an identical {"enabled": false}
    # for unknown, closed and switched-off keys, so it reveals nothing either.
    ("/companies/<key>/webmcp.json", "GET"),
    # CORS preflight and the 405 for other methods never look the key up.
    ("/companies/<key>/mcp", "OPTIONS"),
    ("/companies/<key>/mcp", "GET"),
    ("/companies/<key>/mcp", "DELETE"),
    ("/companies/<key>/mcp", "PUT"),
    ("/companies/<key>/mcp", "PATCH"),
    *(("/companies/<key>/ucp/mcp", method) for method in ("OPTIONS", "GET", "DELETE", "PUT", "PATCH")),
    *(("/companies/<key>/webmcp/mcp", method) for method in ("OPTIONS", "GET", "DELETE", "PUT", "PATCH")),
}


def _limiter_storage(app):
    return app.extensions["rate_limits"].storage


def _counted(app) -> list[str]:
    storage = _limiter_storage(app)
    return [key for key in (*storage.events, *storage.storage) if "LIMITER" in key]


def test_every_keyed_route_is_a_gated_surface_or_a_documented_exception(app):
    gated = {(s.rule or s.path.replace("{key}", "<key>"), s.method) for s in KEYED_SURFACES}
    for rule in app.url_map.iter_rules():
        if "<key>" not in rule.rule:
            continue
        for method in rule.methods - {"HEAD"}:
            if method == "OPTIONS" and (rule.rule, "OPTIONS") not in UNGATED:
                continue  # Flask's automatic OPTIONS
            assert (rule.rule, method) in gated | UNGATED, f"{method} {rule.rule} is neither gated nor exempt"


def test_closed_keys_answer_exactly_what_an_unknown_key_answers(upstream, mirror, client, subtests):
    # One sync for every surface (each a subtest), each with closed companies of its own.
    public = add_company(upstream)
    closed = {surface.name: closed_companies(upstream, surface.channels) for surface in KEYED_SURFACES}
    sync(mirror)
    for surface in KEYED_SURFACES:
        with subtests.test(surface=surface.name):
            unknown = response_signature(surface.call(client, UNKNOWN_KEY))
            assert unknown[0] == 404
            assert (b"<html" in unknown[2].lower()) is surface.html
            for name, key in closed[surface.name].items():
                assert response_signature(surface.call(client, key)) == unknown, name
            assert surface.call(client, public).status_code == 200


def test_the_one_gate_rule():
    """mirror.catalog.channels.company_open: public, and a missing switch is on; only an explicit false closes."""
    from types import SimpleNamespace

    from mirror.catalog.channels import company_open

    def company(channels, public=True):
        return SimpleNamespace(is_public=public, channels=channels)

    assert company_open(company({}), "mcp") is True
    assert company_open(company(None), "webmcp") is True
    assert company_open(company({"mcp": True, "webmcp": False}), "mcp") is True
    assert company_open(company({"mcp": True, "webmcp": False}), "webmcp") is False
    assert company_open(company({}, public=False), "mcp") is False  # not public: closed whatever the switch
    assert company_open(company({}, public=False)) is False and company_open(company({})) is True
    assert company_open(None, "mcp") is False
    with pytest.raises(ValueError):
        company_open(company({}), "mpc")  # a typo must not read as "on"


def test_each_surface_follows_its_own_switch_and_no_other(upstream, mirror, client):
    """Channels are independent: one company per switch, with only that switch off.

    Each keyed surface answers 404 exactly for the companies whose switch is
    one of its own, and serves the others (so, e.g., `mcp` off leaves the
    webmcp.js call endpoint open and `webmcp` off leaves the MCP endpoint open).
    """
    off = {}
    for switch in ALL_CHANNELS:
        off[switch] = add_company(upstream)
        set_settings(upstream, off[switch], channels={**ALL_CHANNELS, switch: False})
    sync(mirror)
    for surface in KEYED_SURFACES:
        for switch, key in off.items():
            status = surface.call(client, key).status_code
            if switch in surface.channels:
                assert status == 404, (surface.name, f"{switch} off")
            else:
                assert status in (200, 302), (surface.name, f"{switch} off", status)


def test_every_json_surface_answers_one_and_the_same_404(upstream, mirror, client):
    """The webmcp.js call endpoint's 404 is the MCP endpoint's, pricing.json's and every JSON surface's."""
    closed = closed_companies(upstream, ("webmcp", "mcp", "pricing"))
    sync(mirror)
    json_surfaces = [s for s in KEYED_SURFACES if not s.html]
    signatures = {
        (s.name, name): response_signature(s.call(client, key))
        for s in json_surfaces
        for name, key in {"unknown": UNKNOWN_KEY, **closed}.items()
        if name == "unknown" or name.split(" ")[0] in s.channels or name in ("churned", "not live")
    }
    assert len(set(signatures.values())) == 1, sorted(signatures)
    assert next(iter(signatures.values()))[0] == 404


@contextmanager
def statements_on_this_thread(mirror):
    """Every SQL statement sent from this thread (the test client's), at the
    psycopg cursor (where the gate may talk to the driver directly)."""
    statements: list[str] = []
    request_thread = threading.get_ident()  # the background recorders write on their own threads

    def keep(statement) -> None:
        text = str(statement)
        if threading.get_ident() == request_thread and text.strip().upper() not in ("BEGIN", "COMMIT", "ROLLBACK"):
            statements.append(text)

    with postgres_statements(keep):
        yield statements


def test_every_closed_case_costs_the_same_and_asks_the_database_nothing(upstream, mirror, app, client):
    """The gate decides from the process's gate state (mirror/read/gate.py): an unknown key and every
    closed case are the same absent entry, with no statement at all."""
    closed = closed_companies(upstream, ("pricing",))
    sync(mirror)
    client.get(f"/companies/{UNKNOWN_KEY}/pricing.json")  # warm: the pool's first connection says hello
    seen = {}
    with statements_on_this_thread(mirror) as statements:
        for name, key in {"unknown": UNKNOWN_KEY, **closed}.items():
            statements.clear()
            assert client.get(f"/companies/{key}/pricing.json").status_code == 404
            seen[name] = list(statements)
    assert all(found == [] for found in seen.values()), seen


@pytest.mark.parametrize("surface", KEYED_SURFACES, ids=lambda s: s.name)
def test_a_flood_of_closed_keys_gets_404s_never_429_and_is_never_counted(surface, make_app, upstream):
    app = make_app(RATE_LIMIT_PER_COMPANY="2/hour", RATE_LIMIT_COMPANY_CLIENT_SHARE="1")
    mirror, client = app.extensions["mirror"], app.test_client()
    public = add_company(upstream)
    closed = closed_companies(upstream, surface.channels)
    sync(mirror)
    for _ in range(10):
        for key in (UNKNOWN_KEY, *closed.values()):
            assert surface.call(client, key).status_code == 404
    assert _counted(app) == []
    assert [surface.call(client, public).status_code for _ in range(3)] == [200, 200, 429]
    assert len(_counted(app)) == 2 and all(public in key for key in _counted(app))  # client share, company


def test_404s_never_spend_a_budget_the_key_has_once_it_opens(make_app, upstream):
    app = make_app(RATE_LIMIT_PER_COMPANY="3/hour", RATE_LIMIT_COMPANY_CLIENT_SHARE="1")
    mirror, client = app.extensions["mirror"], app.test_client()
    key = add_company(upstream)
    set_settings(upstream, key, channels={**ALL_CHANNELS, "pricing": False})
    sync(mirror)
    assert {client.get(f"/companies/{key}/pricing.json").status_code for _ in range(20)} == {404}
    set_settings(upstream, key, channels=dict(ALL_CHANNELS))
    sync(mirror)
    statuses = [client.get(f"/companies/{key}/pricing.json").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    # Closing it again: the 404 comes first, whatever is left of the budget.
    set_settings(upstream, key, channels={**ALL_CHANNELS, "pricing": False})
    sync(mirror)
    assert client.get(f"/companies/{key}/pricing.json").status_code == 404


def test_the_budget_is_per_company_and_shared_by_its_surfaces(make_app, upstream):
    app = make_app(RATE_LIMIT_PER_COMPANY="4/hour", RATE_LIMIT_COMPANY_CLIENT_SHARE="1")
    mirror, client = app.extensions["mirror"], app.test_client()
    first, second = add_company(upstream), add_company(upstream)
    sync(mirror)
    calls = [surface.call(client, first).status_code for surface in KEYED_SURFACES[:4]]
    assert calls == [200, 200, 200, 200]
    assert [surface.call(client, first).status_code for surface in KEYED_SURFACES] == [429] * len(KEYED_SURFACES)
    assert client.get(f"/companies/{second}/pricing.json").status_code == 200


def test_a_refused_request_does_no_work_past_the_gate(make_app, upstream, monkeypatch):
    app = make_app(RATE_LIMIT_PER_COMPANY="1/hour")
    mirror, client = app.extensions["mirror"], app.test_client()
    key = add_company(upstream)
    sync(mirror)
    assert client.get(f"/companies/{key}/pricing.json").status_code == 200

    def no_rendering(*args, **kwargs):
        raise AssertionError("rendered past the gate")

    monkeypatch.setattr(app.extensions["render_cache"], "entry", no_rendering)
    assert client.get(f"/companies/{key}/pricing.json").status_code == 429
    assert client.get(f"/companies/{UNKNOWN_KEY}/pricing.json").status_code == 404
