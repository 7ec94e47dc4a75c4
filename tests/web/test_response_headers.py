"""The app's Response sends exactly the headers Werkzeug's would (web.responses.Response).

It skips Werkzeug's second copy of the headers only where the copy would
change nothing; every case where Werkzeug changes them (a Location made
absolute, a Content-Location made a URI, Content-Length dropped from a 1xx,
204 or 304, a missing Content-Length computed) must still come out exactly
as Werkzeug makes it.
"""

from __future__ import annotations

import flask
import pytest
from werkzeug.test import EnvironBuilder

from web.responses import Response


def _cases():
    yield "200 json", {"response": b'{"a":1}', "mimetype": "application/json", "headers": {"ETag": '"x"'}}
    yield "404 json", {"response": b"{}", "status": 404, "mimetype": "application/json"}
    yield "302 relative Location", {"status": 302, "headers": {"Location": "/companies/k/pricing"}}
    yield "301 IRI Location", {"status": 301, "headers": {"Location": "https://ex.example/caf\u00e9?q=\u00fc"}}
    yield "200 Content-Location", {"response": b"x", "headers": {"Content-Location": "/caf\u00e9"}}
    yield "304", {"status": 304, "headers": {"ETag": '"x"', "Cache-Control": "public, max-age=300"}}
    yield "204", {"status": 204, "headers": {"Access-Control-Allow-Origin": "*"}}
    yield "200 no length (a list body)", {"response": [b"a", b"bc"]}
    yield "200 streamed (a generator)", {"response": (part for part in [b"a", b"b"])}
    yield "500 html", {"response": "<p>x</p>", "status": 500, "mimetype": "text/html"}


@pytest.mark.parametrize("name,arguments", list(_cases()), ids=[name for name, _ in _cases()])
def test_the_headers_sent_are_werkzeugs(name, arguments):
    environ = EnvironBuilder(path="/companies/k/quote", base_url="http://mirror.example/").get_environ()
    ours = Response(**arguments)
    if isinstance(arguments.get("response"), list):
        ours.headers.pop("Content-Length", None)  # as a body set without a known length
    theirs_headers = flask.Response.get_wsgi_headers(ours, environ).to_wsgi_list()
    assert ours.get_wsgi_headers(environ).to_wsgi_list() == theirs_headers, name


def test_the_app_answers_with_it(client):
    response = client.get("/healthz")
    assert isinstance(response, Response) and client.application.response_class is Response


def _hostile_payloads(seed: int, count: int):
    """Random nested JSON values full of the cases where orjson and json could differ."""
    import random

    chance = random.Random(seed)
    scalars = [
        None,
        True,
        False,
        0,
        -5,
        2**40,
        2**70,
        3.25,
        60.05,
        1e-7,
        2.5e-05,
        1.5e16,
        "",
        "7lScpX0eQ",
        'a"b\\c\n\t\x01é€😀\u2028\x7f',
    ]

    def value(depth=0):
        pick = chance.random()
        if depth > 3 or pick < 0.3:
            return chance.choice(scalars)
        if pick < 0.6:
            return [value(depth + 1) for _ in range(chance.randint(0, 3))]
        return {f"k{i}" + chance.choice(["", "é", "\n", "1e5"]): value(depth + 1) for i in range(chance.randint(0, 3))}

    return [value() for _ in range(count)]


def test_pretty_json_is_json_dumps_with_an_indent_of_two():
    # mirror.values.jsontext.pretty_dumps (the text of every MCP tool result) writes
    # exactly what the standard library writes, whichever encoder it used.
    import json

    from mirror.values.jsontext import pretty_dumps

    for payload in _hostile_payloads(11, 3000):
        assert pretty_dumps(payload) == json.dumps(payload, indent=2, ensure_ascii=False)


def test_message_json_is_the_compact_dumps():
    # web.jsonrpc.serialise (every JSON-RPC body: MCP, UCP, A2A) writes exactly
    # what mirror.values.jsontext.dumps writes, as UTF-8, whichever encoder it used.
    from mirror.values.jsontext import dumps
    from web.jsonrpc import serialise

    for payload in _hostile_payloads(12, 3000):
        assert serialise(payload) == dumps(payload).encode("utf-8")


def test_message_json_writes_nan_and_infinities_as_null_whichever_encoder_writes_it():
    # NaN and Infinity are not JSON: a strict client would refuse the whole
    # message. With an exponent float beside them the standard library
    # writes the message, and still writes null.
    import json
    import math

    from mirror.values.jsontext import pretty_dumps
    from web.jsonrpc import serialise

    for extra in (1, 1e-7, 2**70):
        payload = {"a": [math.nan, {"b": math.inf}], "c": -math.inf, "d": extra, "e": (1.5, math.nan)}
        expected = {"a": [None, {"b": None}], "c": None, "d": extra, "e": [1.5, None]}
        assert json.loads(serialise(payload)) == expected
        assert json.loads(pretty_dumps(payload)) == expected
        assert b"NaN" not in serialise(payload) and "Infinity" not in pretty_dumps(payload)


def test_a_digit_and_an_e_inside_a_string_stays_on_orjson():
    # Company keys ("7lScpX0eQ...") and URLs hold a digit followed by an e; only a number
    # in exponent form sends a payload to the standard library's (pure Python, with an indent) encoder.
    import orjson

    from mirror.values.jsontext import orjson_text

    keyed = {"business_id": "7lScpX0eQtz", "quote_url": "https://x.example/c/9E1/quote", "price": 8500.5}
    assert orjson_text(keyed, orjson.OPT_INDENT_2) is not None
    assert orjson_text({"escaped": 'say "1e5"', "n": 1}, 0) is not None
    assert orjson_text({"business_id": "7lScpX0eQtz", "tiny": 1e-05}, 0) is None
    assert orjson_text([1.5e16], orjson.OPT_INDENT_2) is None
    assert orjson_text({"k": -2.5e-06}, 0) is None and orjson_text({"k": 1e-07}, 0) is None
