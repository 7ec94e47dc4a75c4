"""The demo upstream: a stand-in for the commerce platform's API.

It generates a seeded catalog, serves it over HTTP exactly as the platform's
API contract describes (docs/contracts/upstream.md), and can inject faults. The mirror
speaks to it only over HTTP; nothing in `mirror/` imports it, and it imports
nothing of the mirror (the import-linter contracts in pyproject.toml).

- `server`: the running server (`start_in_thread`, `DemoUpstream`, the CLI)
- `api`: the WSGI app and the platform list API (walks, cursors, faults applied)
- `admin`: the /_demo/ admin API; `responses`: JSON answers both send
- `faults`: the fault queue and the request log
- `catalog`: the catalog store (`DemoCatalog`); `generator`: seeded companies
  and products; `vocabulary`: what they are made of; `records`: record rules
"""


def init_app(app) -> None:
    """Attach `flask --app wsgi demo-upstream` to an app's CLI (the demo knows nothing else of the app)."""
    from demo.server import demo_upstream_command

    app.cli.add_command(demo_upstream_command)
