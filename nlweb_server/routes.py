"""HTTP routes of NLWeb `/ask`: a contractor's answers and the directory's.

The order every request meets (as on every surface): the gate on the
company's `a2a` switch (unknown, not public, switched off: the one JSON 404,
before anything is read) and its per-company rate limit, or, for the
directory, the per-client limit; then the body, checked at the boundary
(Content-Type, size, JSON, storable text, the request model: a 4xx in the
protocol's Failure shape, never a 500); then the answer, computed whole
before the first byte is sent, as one JSON object or as server-sent events.
The invocation log records every request like any other (web/observability.py).
"""

from __future__ import annotations

from flask import request
from pydantic import ValidationError

from agent_tools import CompanyContext
from agent_tools.company import at_gate_state
from mirror.answers.company import answer_company
from mirror.answers.directory import answer_directory
from mirror.catalog import urls
from mirror.catalog.channels import Channel
from mirror.catalog.public_view import CompanyView
from mirror.render.schema_org import SCHEMA_CONTEXT, business_node, category_node, document_url
from mirror.runtime.config import Settings
from mirror.runtime.deadline import DeadlineExceeded, check_deadline
from mirror.values.storable import REASON as UNSTORABLE_REASON
from mirror.values.storable import first_unstorable
from nlweb_server.blueprint import bp
from nlweb_server.protocol import (
    DEADLINE_EXCEEDED,
    EVENT_STREAM,
    INVALID_REQUEST,
    REQUEST_TOO_LARGE,
    UNSUPPORTED_MEDIA_TYPE,
    AskInput,
    answer_parts,
    describe,
    events,
    failure,
    merged,
)
from web.db import db, settings
from web.deadline import deadline_message, ran_out
from web.gate import following, gate, named_view, renderings
from web.jsonrpc import RpcError, decode_body
from web.limits import charge_client
from web.responses import Response, cors_preflight, json_response

CHANNEL = Channel.A2A  # the natural-language agent channel: the A2A agent's switch
MAX_BODY_BYTES = 16 * 1024
NO_STORE = {"Cache-Control": "no-store"}
# What a browser's fetch() of /ask sends beyond the CORS-safelisted: a JSON body and Accept for the stream.
REQUEST_HEADERS = "Content-Type, Accept"


class Refused(Exception):
    """A request refused at the boundary: its Failure response."""

    def __init__(self, response: Response) -> None:
        super().__init__(response.status)
        self.response = response


@bp.post(urls.flask_rule(urls.COMPANY_ASK), provide_automatic_options=False)
def company_ask(key: str) -> Response:
    """One question to a contractor: its answer sentence and the schema.org items it is about."""
    company = gate(key, CHANNEL)
    try:
        ask = _ask_input()
    except Refused as refused:
        return refused.response
    context = CompanyContext(
        session=db(),
        company=company,
        settings=settings(),
        renderings=renderings(company, options=False),
        follow=following(company),
    )

    def run(ctx: CompanyContext) -> tuple[str, list[dict]]:
        answer = answer_company(ctx.session, ctx.company, ctx.view, ask.query.text)
        return answer.sentence, company_items(ctx.settings, ctx.view, answer.categories, ask.max_results)

    sentence, items = at_gate_state(context, run)  # one gate state for the sentence and the items
    return _answer(ask, sentence, items)


@bp.route(urls.flask_rule(urls.COMPANY_ASK), methods=["OPTIONS"])
@bp.route(urls.ROOT_ASK, methods=["OPTIONS"])
def ask_preflight(key: str | None = None) -> Response:
    """CORS preflight from any site, so a chat widget on a contractor's own page can ask (the key is not looked up)."""
    return cors_preflight(REQUEST_HEADERS)


@bp.post(urls.ROOT_ASK, provide_automatic_options=False)
def directory_ask() -> Response:
    """One question to the directory: prices and businesses across the business feed."""
    charge_client()
    try:
        ask = _ask_input()
    except Refused as refused:
        return refused.response
    session, config = db(), settings()
    answer = answer_directory(session, config, ask.query.text)
    slugs = {b.plugin_key: b.category_slugs for b in answer.businesses}
    items: list[dict] = []
    for key in answer.business_keys:
        if len(items) >= ask.max_results:
            break
        check_deadline()
        view = named_view(key)
        if view is not None:
            shown = [c for c in view.categories if c.slug in slugs.get(key, ())]
            items += company_items(config, view, shown, ask.max_results, business_first=True)
    return _answer(ask, answer.sentence, items[: ask.max_results])


@bp.errorhandler(DeadlineExceeded)
def _deadline_exceeded(error: DeadlineExceeded) -> Response:
    """A question stopped at the request's deadline: 503 with Retry-After, in the protocol's Failure shape."""
    return ran_out(_failure(503, DEADLINE_EXCEEDED, deadline_message(error)), error)


def company_items(
    config: Settings, view: CompanyView, categories, limit: int, *, business_first: bool = False
) -> list[dict]:
    """The JSON-LD graph's own nodes for these categories and the business, as NLWeb result objects.

    Each node is the one mirror/render/schema_org.py builds for the .jsonld document
    (same @id, offers and seller), with its @context and, as grounding, the
    document it comes from.
    """
    base = document_url(config, view.business.plugin_key)
    business_id = base + "#business"
    nodes = [category_node(view, category, base, business_id) for category in categories if category is not None]
    business = business_node(view, business_id)
    nodes = [business, *nodes] if business_first else [*nodes, business]
    return [_item(node, base) for node in nodes[:limit]]


def _item(node: dict, source: str) -> dict:
    return {"@context": SCHEMA_CONTEXT, **node, "grounding": {"source_urls": [source]}}


def _ask_input() -> AskInput:
    """The request body, checked at the boundary, or Refused with its 4xx Failure."""
    if request.mimetype != "application/json":
        raise Refused(_failure(415, UNSUPPORTED_MEDIA_TYPE, "Content-Type must be application/json"))
    body = request.stream.read(MAX_BODY_BYTES + 1)
    if len(body) > MAX_BODY_BYTES:
        raise Refused(_failure(413, REQUEST_TOO_LARGE, f"Request body over {MAX_BODY_BYTES} bytes"))
    try:
        payload = decode_body(body)
    except RpcError:
        raise Refused(_failure(400, INVALID_REQUEST, "The body is not valid UTF-8 JSON")) from None
    if not isinstance(payload, dict):
        raise Refused(_failure(400, INVALID_REQUEST, "Invalid request: the body must be a JSON object"))
    where = first_unstorable(payload)
    if where is not None:
        raise Refused(_failure(400, INVALID_REQUEST, f"Invalid request: {where}: {UNSTORABLE_REASON}"))
    try:
        return AskInput.model_validate(payload)
    except ValidationError as error:
        raise Refused(_failure(400, INVALID_REQUEST, describe(error))) from None


def _answer(ask: AskInput, sentence: str, items: list[dict]) -> Response:
    parts = answer_parts(ask, sentence, items)
    if ask.streaming(request.accept_mimetypes.best_match(["application/json", EVENT_STREAM]) == EVENT_STREAM):
        response = Response(events(parts), mimetype=EVENT_STREAM)
        response.headers["Access-Control-Allow-Origin"] = "*"
        response.headers["Cache-Control"] = "no-store"
        response.headers["X-Accel-Buffering"] = "no"  # nginx: send each event as it is written
        return response
    return json_response(merged(parts), headers=NO_STORE)


def _failure(status: int, code: str, message: str) -> Response:
    return json_response(failure(code, message), status, headers=NO_STORE)
