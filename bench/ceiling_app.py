"""The ceiling (bench/serve.py): the least a Flask app under gunicorn can do per request.

One route returning a fixed JSON body (read once, at import, from the file
named by CEILING_BODY_FILE: the bench writes a real pricing.json there, so
the bytes on the wire match) with the same headers pricing.json sends. No
database, no cache lookup, no logging: what is left is Flask, Werkzeug and
gunicorn, which every endpoint of the app pays too.

    CEILING_BODY_FILE=body.json gunicorn -w 2 -k gthread --threads 4 bench.ceiling_app:app
"""

from __future__ import annotations

import os

from flask import Flask, Response

BODY = open(os.environ["CEILING_BODY_FILE"], "rb").read()  # noqa: SIM115 - read once at start
ETAG = '"ceiling"'

app = Flask(__name__)


@app.get("/companies/<key>/pricing.json")
def pricing_json(key: str) -> Response:
    """The same bytes and headers for every key."""
    response = Response(BODY, mimetype="application/json")
    response.headers["ETag"] = ETAG
    response.headers["Cache-Control"] = "public, max-age=300"
    response.headers["Access-Control-Allow-Origin"] = "*"
    return response
