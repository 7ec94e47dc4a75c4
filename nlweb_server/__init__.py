"""NLWeb `/ask`: natural-language answers with schema.org items (protocol v0.54, nlweb-ai).

- `POST /companies/<key>/ask`: one contractor's answers, behind the gate on the
  company's `a2a` switch (the natural-language agent channel, like its A2A
  agent): unknown, not public or switched off is the one JSON 404;
- `POST /ask`: the install's directory, across the business feed's
  businesses (no switch of its own, like the directory agent), rate limited
  per client like the other install-wide endpoints.

The answers are mirror/answers' (the same sentences as the A2A agents); the
items are the JSON-LD graph's own nodes (mirror/render/schema_org.py). The request
model and the answer shapes are in `protocol`; the routes in `routes`.
"""

from flask import Flask

from nlweb_server import routes  # noqa: F401  (register routes)
from nlweb_server.blueprint import bp


def init_app(app: Flask) -> None:
    """Register the /ask routes."""
    app.register_blueprint(bp)
