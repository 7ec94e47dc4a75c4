"""Two of issue 12's smaller findings (10), over real HTTP:

- the COMPANY_HOSTS business profile's endpoint is built from the host as
  configured (and PUBLIC_BASE_URL's scheme and port), never from the
  request's Host, whose port any client chooses
  (`Host: shop.example:1337` used to publish `…shop.example:1337/ucp/mcp`,
  cached for five minutes);
- the provider server `POST /mcp` checks Host and Origin before it charges
  the client's budget, so requests it refuses as foreign never spend it.
"""

from __future__ import annotations

import requests

from tests.hardening_helpers import serving
from tests.ops_helpers import MCP_HEADERS
from tests.surface_helpers import add_company, sync

TOOLS_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}


def _profile_endpoint(base: str, host: str) -> str:
    response = requests.get(f"{base}/.well-known/ucp", headers={"Host": host}, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()["ucp"]["services"]["dev.ucp.shopping"][0]["endpoint"]


def test_the_custom_domain_profile_never_carries_the_requests_port(make_app, upstream):
    key, other = add_company(upstream), add_company(upstream)
    hosts = f"shop.example={key},ported.example:8443={other}"
    public = make_app(COMPANY_HOSTS=hosts, PUBLIC_BASE_URL="https://mirror.example")
    local = make_app(COMPANY_HOSTS=hosts)  # PUBLIC_BASE_URL http://127.0.0.1:8000
    sync(public.extensions["mirror"])
    with serving(public) as base:
        endpoints = [_profile_endpoint(base, host) for host in ("shop.example", "shop.example:1337", "SHOP.example:1")]
        ported = [_profile_endpoint(base, host) for host in ("ported.example:8443",)]
        unmapped = requests.get(f"{base}/.well-known/ucp", headers={"Host": "ported.example:1337"}, timeout=10)
    with serving(local) as base:
        development = [_profile_endpoint(base, host) for host in ("shop.example", "shop.example:1337")]
    assert endpoints == ["https://shop.example/ucp/mcp"] * 3  # PUBLIC_BASE_URL's scheme, the configured host
    assert ported == ["https://ported.example:8443/ucp/mcp"]  # a port in COMPANY_HOSTS is the configured one
    assert unmapped.status_code == 404
    assert development == ["http://shop.example:8000/ucp/mcp"] * 2  # else PUBLIC_BASE_URL's port, never the Host's


def test_foreign_host_or_origin_never_spends_the_provider_budget(make_app, upstream):
    app = make_app(RATE_LIMIT_PER_CLIENT="2/minute")
    sync(app.extensions["mirror"])
    with serving(app) as base:

        def post(**headers):
            return requests.post(f"{base}/mcp", json=TOOLS_LIST, headers={**MCP_HEADERS, **headers}, timeout=10)

        foreign = [post(Host="evil.example").status_code for _ in range(5)]
        foreign += [post(Origin="https://evil.example").status_code for _ in range(5)]
        ours = [post().status_code for _ in range(3)]
    assert foreign == [421] * 5 + [403] * 5
    assert ours == [200, 200, 429]
