"""The demo upstream: a real HTTP server speaking the platform API over a DemoCatalog.

It serves the sync's tests (with fault injection), `make run` and the
benchmarks. It is a separate server, never a mock inside the client.

Python::

    from demo.server import start_in_thread
    with start_in_thread(companies=20, products=30, seed=7) as upstream:
        upstream.url                      # "http://127.0.0.1:<port>", token "demo-token"
        upstream.catalog.mutate(0.05)     # reprice 5% of products, stamped now
        upstream.faults.add("status", status=503, path="/v1/products", nth=2)
        upstream.requests.count, upstream.requests[-1].query

Command line (blocking; the docs' example companies, demo.examples, are
served too unless ``--no-examples``)::

    flask --app wsgi demo-upstream --port 8765 --companies 50 --products 100 --seed 1
    python -m demo.server --port 8765

Upstream API (docs/contracts/upstream.md): ``GET /v1/companies``, ``GET /v1/products``,
``GET /v1/companies/<plugin_key>/products`` with ``updated_since``, ``cursor``
and ``limit``. Cursors are base64url JSON of (list, updated_since, position,
issue time); a cursor from another list or another ``updated_since`` is a 400,
and, when ``cursor_ttl_seconds`` is set, an older one is a 410.

Admin API (same bearer token; never logged, never faulted; JSON bodies)::

    GET    /_demo/stats
    POST   /_demo/mutate                 {"fraction": 0.01, "seed": 7, "company_fraction": 0}
    POST   /_demo/companies              {"products": 10, "plugin_key": "...", ...fields} -> 201
    GET    /_demo/companies/<key>        (private fields included)
    PATCH  /_demo/companies/<key>        {...fields, "_unset": ["phone"], "updated_at": "..."}
    DELETE /_demo/companies/<key>        hard delete: no list will say so
    GET    /_demo/companies/<key>/products/<sku>
    PATCH  /_demo/companies/<key>/products/<sku>   {...fields, "_unset": [...]} (creates a new SKU)
    DELETE /_demo/companies/<key>/products/<sku>   -> the tombstone
    GET | POST | DELETE  /_demo/faults   POST: one fault spec or a list of them
    GET | DELETE         /_demo/requests

Stand-ins (``stand_ins=True``; the command's default): ``GET /sites/<host>/<path>`` answers
for the contractors' ``.example`` sites, whose URLs the records then name (demo.sites).

Fault specs (``upstream.faults.add`` and ``POST /_demo/faults``): demo.faults.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import click
from werkzeug.serving import WSGIRequestHandler, make_server

from demo.api import UpstreamApp
from demo.catalog import DemoCatalog
from demo.examples import EXAMPLE_KEYS
from demo.faults import Fault, FaultQueue, RequestLog
from demo.records import MISSING

__all__ = [
    "DemoCatalog",
    "DemoUpstream",
    "Fault",
    "FaultQueue",
    "MISSING",
    "RequestLog",
    "demo_upstream_command",
    "serve",
    "start_in_thread",
]

# --- the server ------------------------------------------------------------------------


class _QuietHandler(WSGIRequestHandler):
    """No access log line per request (tests and benchmarks make thousands)."""

    def log_request(self, code: Any = "-", size: Any = "-") -> None:
        pass


class DemoUpstream:
    """A running demo upstream: `.url`, `.catalog`, `.faults`, `.requests`, `.stop()`."""

    def __init__(
        self,
        catalog: DemoCatalog,
        host: str = "127.0.0.1",
        port: int = 0,
        token: str = "demo-token",
        *,
        cursor_ttl_seconds: float | None = None,
        quiet: bool = True,
        stand_ins: bool = False,
    ):
        self.catalog, self.token = catalog, token
        self.faults, self.requests = FaultQueue(), RequestLog()
        self._stopping = threading.Event()
        self.app = UpstreamApp(catalog, token, self.faults, self.requests, self._stopping, cursor_ttl_seconds)
        self._server = make_server(
            host, port, self.app, threaded=True, request_handler=_QuietHandler if quiet else None
        )
        self.host, self.port = host, self._server.socket.getsockname()[1]
        url_host = {"0.0.0.0": "127.0.0.1", "::": "[::1]"}.get(host, f"[{host}]" if ":" in host else host)
        self.url = f"http://{url_host}:{self.port}"
        # Stand-ins for the contractors' own sites (demo.sites): their URLs are served under this address.
        self.app.sites_base = self.url if stand_ins else None
        self._thread: threading.Thread | None = None

    @property
    def cursor_ttl_seconds(self) -> float | None:
        """Cursors older than this answer 410 cursor_expired (None: never)."""
        return self.app.cursor_ttl_seconds

    @cursor_ttl_seconds.setter
    def cursor_ttl_seconds(self, seconds: float | None) -> None:
        self.app.cursor_ttl_seconds = seconds

    def start(self) -> DemoUpstream:
        """Serve from a daemon thread; returns self."""
        # A short poll interval keeps stop() fast (tests start many servers).
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="demo-upstream", daemon=True
        )
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve on this thread until stop() (or Ctrl-C)."""
        self._server.serve_forever()

    def stop(self) -> None:
        """Stop serving and release the port; slow faults in flight end early."""
        self._stopping.set()
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join(timeout=5)
        self._server.server_close()

    def __enter__(self) -> DemoUpstream:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.stop()


def start_in_thread(
    catalog: DemoCatalog | None = None,
    host: str = "127.0.0.1",
    port: int = 0,
    token: str = "demo-token",
    *,
    cursor_ttl_seconds: float | None = None,
    quiet: bool = True,
    stand_ins: bool = False,
    **gen_kwargs: Any,
) -> DemoUpstream:
    """Start a demo upstream on a background thread (port 0: a free port).

    Without `catalog`, one is generated from `gen_kwargs` (DemoCatalog's
    arguments: companies, products, seed, empty_companies, messiness, ...).
    `stand_ins` serves the contractors' sites on its own port (demo.sites).
    """
    catalog = catalog if catalog is not None else DemoCatalog(**gen_kwargs)
    upstream = DemoUpstream(
        catalog, host, port, token, cursor_ttl_seconds=cursor_ttl_seconds, quiet=quiet, stand_ins=stand_ins
    )
    return upstream.start()


def serve(
    host: str = "127.0.0.1",
    port: int = 8765,
    companies: int = 50,
    products: int = 100,
    seed: int = 1,
    token: str = "demo-token",
    *,
    empty_companies: int = 0,
    messiness: float = 1.0,
    quiet: bool = False,
    examples: bool = True,
    stand_ins: bool = True,
) -> None:
    """Generate a catalog and serve it on this thread until interrupted.

    `examples` adds the companies the docs name (demo.examples) to the seeded ones;
    `stand_ins` serves their sites (quote pages, websites, pictures) on this port too (demo.sites).
    """
    started = time.monotonic()
    catalog = DemoCatalog(
        companies, products, seed, empty_companies=empty_companies, messiness=messiness, examples=examples
    )
    upstream = DemoUpstream(catalog, host, port, token, quiet=quiet, stand_ins=stand_ins)
    shown = f" + {len(EXAMPLE_KEYS)} docs examples" if examples else ""
    click.echo(
        f"Demo upstream: {companies + empty_companies} companies{shown}, {products} products each "
        f"(seed {seed}), generated in {time.monotonic() - started:.1f}s"
    )
    click.echo(f"  UPSTREAM_URL={upstream.url} UPSTREAM_TOKEN={token}")
    if stand_ins:
        click.echo(f"  the contractors' sites (.example) stand in at {upstream.url}/sites/<host>/...")
    try:
        upstream.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        upstream.stop()


@click.command("demo-upstream")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8765, show_default=True, type=int)
@click.option(
    "--companies", default=50, show_default=True, type=click.IntRange(min=0), help="Companies with a catalog."
)
@click.option(
    "--products",
    default=100,
    show_default=True,
    type=click.IntRange(min=0),
    help="Live products per company (tombstones come on top).",
)
@click.option(
    "--empty-companies",
    default=0,
    show_default=True,
    type=click.IntRange(min=0),
    help="Extra companies with no products.",
)
@click.option("--seed", default=1, show_default=True, type=int)
@click.option("--token", default="demo-token", show_default=True)
@click.option(
    "--messiness",
    default=1.0,
    show_default=True,
    type=click.FloatRange(min=0),
    help="Multiplier on every irregularity rate; 0 gives clean data.",
)
@click.option("--quiet/--verbose", default=False, help="Hide the per-request access log.")
@click.option(
    "--examples/--no-examples",
    default=True,
    show_default=True,
    help="Also serve the companies the docs name (Tudi Mechanical Systems and the others in demo/examples.py).",
)
@click.option(
    "--stand-ins/--no-stand-ins",
    default=True,
    show_default=True,
    help="Serve stand-ins for the contractors' .example sites (quote pages, websites, pictures) on this port, "
    "and publish their URLs there (demo/sites.py), so every link of the demo opens offline.",
)
def demo_upstream_command(
    host: str,
    port: int,
    companies: int,
    products: int,
    empty_companies: int,
    seed: int,
    token: str,
    messiness: float,
    quiet: bool,
    examples: bool,
    stand_ins: bool,
) -> None:
    """Serve a seeded demo catalog over the upstream API (docs/contracts/upstream.md)."""
    serve(
        host,
        port,
        companies,
        products,
        seed,
        token,
        empty_companies=empty_companies,
        messiness=messiness,
        quiet=quiet,
        examples=examples,
        stand_ins=stand_ins,
    )


if __name__ == "__main__":
    demo_upstream_command()
