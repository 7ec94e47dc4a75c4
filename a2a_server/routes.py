"""HTTP routes of the A2A agents.

- `GET /companies/<key>/.well-known/agent-card.json` and `POST /companies/<key>/a2a`:
  one contractor's agent, behind the gate on the company's `a2a` switch
  (unknown, not public or switched off: the one JSON 404), then its rate limit;
- `GET /.well-known/agent-card.json` and `POST /a2a`: on a COMPANY_HOSTS
  custom domain, that company's agent; elsewhere the install's directory agent
  (which, like the provider MCP server, follows the feed, not a switch).

JSON-RPC errors are sent with HTTP 200, as the A2A SDK's own server does,
except a request stopped at its deadline (HTTP 503 with Retry-After and the
JSON-RPC error -32010, web/deadline.py); the HTTP-level refusals (Host,
size, Content-Type) come first.
"""

from __future__ import annotations

from flask import request

from a2a_server.blueprint import bp
from a2a_server.cards import company_card, directory_card
from a2a_server.protocol import MEDIA_TYPES, VERSION_HEADER, check_version, parse_request, refuse_unsupported
from a2a_server.skills import COMPANY_AGENT, DIRECTORY_AGENT, Agent, answer
from agent_tools import CompanyContext, ProviderContext
from mcp_server.hosts import host_allowed
from mcp_server.ucp.profile import host_root
from mcp_server.ucp.server import company_for_host, company_host
from mirror.catalog import urls
from mirror.catalog.channels import Channel
from mirror.runtime.deadline import DeadlineExceeded
from mirror.values.jsontext import dumps
from web.db import db, settings
from web.deadline import deadline_rpc_error, ran_out
from web.gate import following, gate, gate_state, renderings
from web.jsonrpc import INVALID_REQUEST, RpcError, result_body, serialise
from web.limits import charge_client
from web.observability import note_rpc_error
from web.responses import Response, conditional

CHANNEL = Channel.A2A
MAX_BODY_BYTES = 16 * 1024
CACHE_CONTROL = "public, max-age=300"


def _card_response(card: dict) -> Response:
    return conditional(dumps(card).encode("utf-8"), mimetype="application/json", cache_control=CACHE_CONTROL)


@bp.get(urls.flask_rule(urls.COMPANY_AGENT_CARD))
def company_agent_card(key: str) -> Response:
    """One contractor's agent card."""
    company = gate(key, CHANNEL)
    return _card_response(
        company_card(settings(), company, settings().absolute(urls.company_path(urls.COMPANY_A2A, company.plugin_key)))
    )


@bp.post(urls.flask_rule(urls.COMPANY_A2A))
def company_agent(key: str) -> Response:
    """One JSON-RPC request to a contractor's agent."""
    refusal = _http_refusal()
    if refusal is not None:
        return refusal
    company = gate(key, CHANNEL, mcp=True)
    return _serve(COMPANY_AGENT, lambda: _company_context(company))


@bp.get(urls.AGENT_CARD)
def root_agent_card() -> Response:
    """The mapped company's card on a COMPANY_HOSTS domain; the directory agent's card elsewhere."""
    entry = company_host(settings(), request.host)
    if entry is None:
        return _card_response(directory_card(settings()))
    company = gate(entry[1], CHANNEL)
    return _card_response(company_card(settings(), company, host_root(settings(), entry[0]) + urls.ROOT_A2A))


@bp.post(urls.ROOT_A2A)
def root_agent() -> Response:
    """One JSON-RPC request to the mapped company's agent, or to the directory agent."""
    refusal = _http_refusal()
    if refusal is not None:
        return refusal
    key = company_for_host(settings(), request.host)
    if key is None:
        charge_client(mcp=True)
        return _serve(
            DIRECTORY_AGENT,
            lambda: ProviderContext(session=db(), settings=settings(), last_success_at=gate_state().last_success_at),
        )
    company = gate(key, CHANNEL, mcp=True)
    return _serve(COMPANY_AGENT, lambda: _company_context(company))


def _company_context(company) -> CompanyContext:
    return CompanyContext(
        session=db(),
        company=company,
        settings=settings(),
        renderings=renderings(company, options=False),
        follow=following(company),
    )


def _serve(agent: Agent, make_context) -> Response:
    body = request.stream.read(MAX_BODY_BYTES + 1)
    if len(body) > MAX_BODY_BYTES:
        return _json(RpcError(INVALID_REQUEST, f"Request body over {MAX_BODY_BYTES} bytes").body(), 413)
    try:
        message = parse_request(body)
    except RpcError as error:
        note_rpc_error()
        return _json(error.body())
    if message.is_notification_or_response:
        return Response(status=202)  # a notification is never answered (JSON-RPC 2.0), as on MCP
    try:
        check_version(request.headers.get(VERSION_HEADER))
        refuse_unsupported(message)
        return _json(result_body(message.id, answer(agent, make_context(), message)))
    except RpcError as error:
        error.id = message.id
        note_rpc_error()
        return _json(error.body())
    except DeadlineExceeded as exceeded:  # the one JSON-RPC error sent with its own HTTP status (web/deadline.py)
        note_rpc_error()
        return ran_out(_json(deadline_rpc_error(exceeded, message.id).body()), exceeded)


def _http_refusal() -> Response | None:
    if not host_allowed(request.host, settings()):
        return _json(RpcError(INVALID_REQUEST, "Misdirected request: this Host is not served here").body(), 421)
    if request.mimetype not in MEDIA_TYPES:
        return _json(RpcError(INVALID_REQUEST, "Content-Type must be application/json").body(), 415)
    if request.content_length is not None and request.content_length > MAX_BODY_BYTES:
        return _json(RpcError(INVALID_REQUEST, f"Request body over {MAX_BODY_BYTES} bytes").body(), 413)
    return None


def _json(payload: dict, status: int = 200) -> Response:
    response = Response(serialise(payload), status=status, mimetype="application/json")
    response.headers["Cache-Control"] = "no-store"
    return response
