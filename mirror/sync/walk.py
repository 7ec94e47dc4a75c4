"""The walk of the upstream: which lists are read, in which order, and how pages reach the apply step."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from datetime import timedelta

from sqlalchemy.orm import Session

from mirror.catalog.records import parse_product
from mirror.store import state as st
from mirror.sync.apply import (
    SeenProducts,
    apply_companies,
    apply_products,
    remove_companies,
    remove_unseen_companies,
)
from mirror.sync.bulk import await_copy
from mirror.sync.runstate import Progress, RunState, log
from mirror.sync.upstream import PAGE_LIMIT, UpstreamNotFound

# Product records a walk buffers before one round of database work (one
# lookup of what is held, one COPY): pages are PAGE_LIMIT records, and a round per
# page spent more on round trips than on the rows. The COPY runs
# on a writer thread while the next batch is parsed (_BackgroundCopy).
APPLY_BATCH = 5000


def walk_upstream(session: Session, client, run: RunState, overlap: int, company_key: str | None, progress: Progress):
    saved = st.read_state(session)
    incremental = run.mode == "incremental"
    since = st.get_time(saved, st.WATERMARK_COMPANIES) if incremental else None
    for page in prefetch(client.walk("/v1/companies", since)):
        # A server_time ahead of this clock past the allowed skew is held to it: a watermark in the
        # future would make every later incremental run read nothing.
        run.first_server_time = run.first_server_time or min(page.server_time, run.latest_stamp())
        records = page.data
        if company_key:
            records = [r for r in records if isinstance(r, dict) and r.get("plugin_key") == company_key]
        apply_companies(session, run, records)
        progress("companies", len(page.data))
    # Every company row settled (its COPY awaited, refused rows known) before
    # anything asks which companies are new or held.
    await_copy(session)
    if run.mode == "company":
        sync_one_catalog(session, client, run, company_key)
        return
    products_since = st.get_time(saved, st.WATERMARK_PRODUCTS) if incremental else None
    if products_since is None:
        # A full (or first) run reads every product of every company in one
        # walk of /v1/products: that covers each company's whole catalog in
        # ~400 requests instead of one walk per company.
        walk_products(session, client, run, None, progress, reconcile=run.mode == "full")
        if run.mode == "full":
            remove_unseen_companies(session, run)
    else:
        # Companies new to the mirror: their older products will never come
        # again through /v1/products, so read their whole catalogs first.
        for key in sorted(run.new_companies):
            read_whole_catalog(session, client, run, key)
            progress("catalogs", 1)
        walk_products(session, client, run, products_since, progress, reconcile=False)
    watermark = run.first_server_time - timedelta(seconds=overlap)
    st.put(session, st.WATERMARK_COMPANIES, watermark)
    st.put(session, st.WATERMARK_PRODUCTS, watermark)


def sync_one_catalog(session: Session, client, run: RunState, company_key: str) -> None:
    """`sync --company KEY`: that company's record and whole catalog, reconciled."""
    if company_key in run.seen_companies:
        read_whole_catalog(session, client, run, company_key)
    else:
        remove_companies(session, run, [company_key])


def walk_products(session: Session, client, run: RunState, since, progress: Progress, *, reconcile: bool):
    """Apply a walk of /v1/products; with `reconcile`, drop every product it did not return."""
    seen = SeenProducts(session) if reconcile else None
    batch: list = []
    # Read ahead at least a whole batch, so the walk goes on while one is written.
    for page in prefetch(client.walk("/v1/products", since), depth=APPLY_BATCH // PAGE_LIMIT + 2):
        # Parsed as each page arrives, so parsing overlaps the next page's
        # fetch instead of following the batch's last page.
        checks = run.record_checks()
        batch.extend(parse_product(raw, **checks) for raw in page.data)
        if len(batch) >= APPLY_BATCH:
            apply_products(session, run, batch, seen=seen, are_parsed=True)
            batch = []
        progress("products", len(page.data))
    if batch:
        apply_products(session, run, batch, seen=seen, are_parsed=True)
    if seen is not None:
        seen.remove_unseen(run)


def read_whole_catalog(session: Session, client, run: RunState, key: str) -> None:
    """Read one company's whole current catalog and drop what it no longer has."""
    seen = SeenProducts(session, company=key)
    try:
        for page in client.walk(f"/v1/companies/{key}/products"):
            apply_products(session, run, page.data, seen=seen, only_company=key)
    except UpstreamNotFound:
        log.warning("company %s is gone upstream (404 on its catalog)", key)
        run.seen_companies.discard(key)
        remove_companies(session, run, [key])
        return
    seen.remove_unseen(run)


def prefetch(pages: Iterator, depth: int = 2) -> Iterator:
    """Fetch the next pages on a thread while the caller writes this one.

    Network waits and JSON decoding overlap the database work; errors are
    re-raised in the caller, in order, and an abandoned walk stops promptly.
    """
    buffer: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()
    done = object()

    def produce() -> None:
        try:
            for page in pages:
                while not stop.is_set():
                    try:
                        buffer.put(("page", page), timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            buffer.put(("end", done))
        except BaseException as error:
            buffer.put(("error", error))

    worker = threading.Thread(target=produce, name="upstream-prefetch", daemon=True)
    worker.start()
    try:
        while True:
            kind, item = buffer.get()
            if kind == "page":
                yield item
            elif kind == "error":
                raise item
            else:
                return
    finally:
        stop.set()
