"""The public documents rendered once per change: the sync stores their bytes, a request serves them.

A company's pricing.json and JSON-LD are pure functions of what the sync
wrote, except two values the clock moves: when the mirror last confirmed the
data (`last_synced_at`, which every whole run moves for every company) and
whether that is fresh or stale (which time alone turns). So the run that
changes a company renders its documents once, in its own transaction, with a
*slot* where each of those values goes (`publish`), and stores them in
`rendered_documents`. A request reads the one row by its primary key
(`load_template`), fills the slots with the values of its moment and serves
the bytes (mirror/render/cache.py keeps them per process, with their ETag).

One serialiser: a document's live rendering (`Document.render`, what a
request builds from the catalog when no stored row serves) is its template
filled with the view's own timing, the very same code path, so the stored
and the live bytes cannot differ (tests/mirror/render/test_documents.py compares them).

A stored row serves only while it is exactly current:
- its stamp is the company's (mirror.read.gate.Stamp: the generation the
  sync moves with every change, the record hash, the content version), as
  the process's gate state holds it;
- its `format` is the running release's (`document_format`): the
  FORMAT_VERSION of the serialisers and the settings they read (the public
  base URL, the referrer stamp). A release that renders differently, or a
  changed setting, makes every row stale; requests render live until the
  next run has rendered them again (`publish` renders every public company
  whose row is missing or stale, not only the ones the run changed).

Slots are marked by a control character JSON text never holds raw (json.dumps
escapes every one): a document whose text holds it anyway is not stored.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from sqlalchemy import bindparam, func, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from mirror.catalog.public_view import CompanyView
from mirror.read.company import CompanySnapshot, load_company_snapshots
from mirror.read.gate import Stamp, content_of
from mirror.render.schema_org import company_graph, script_safe_json
from mirror.runtime.config import Settings
from mirror.store.db import rows_by_name, statement_rows
from mirror.store.models import Company, RenderedDocument
from mirror.values.jsontext import dumps
from mirror.values.timestamps import rfc3339

# Bump when a document's bytes change for the same catalog and settings (a serialiser, a field, an order):
# every stored row then renders again at the next run. tests/mirror/render/test_documents.py fails until
# the golden payloads and this number move together.
FORMAT_VERSION = 1

SLOT = "\x01"  # then the slot's number (one digit): never raw in JSON text


class Timing(NamedTuple):
    """The values of a document the clock moves, in slot order."""

    last_synced_at: datetime | None
    freshness_state: str


# Each slot's text in a JSON document, by slot number (Timing's field order).
_SLOT_TEXT: tuple[Callable[[Timing], str], ...] = (
    lambda timing: dumps(rfc3339(timing.last_synced_at)),
    lambda timing: dumps(timing.freshness_state),
)


def view_timing(view: CompanyView) -> Timing:
    """The timing a view was built with."""
    return Timing(view.last_synced_at, view.freshness_state)


@dataclass(frozen=True)
class Template:
    """A document's text with a slot (SLOT, then its number) where each timing value goes."""

    text: str

    def fill(self, timing: Timing) -> bytes:
        """The document's bytes at `timing`."""
        head, *rest = self.text.split(SLOT)
        if not rest:
            return head.encode("utf-8")
        values = [text(timing) for text in _SLOT_TEXT]
        return "".join([head, *(values[int(part[0])] + part[1:] for part in rest)]).encode("utf-8")


class UnslottableText(ValueError):
    """A document's text already holds the slot mark: it cannot be stored as a template (it is served live)."""


def _without_slot_marks(text: str) -> str:
    """`text`, refused when it already holds the slot mark (it could not be told from a slot)."""
    if SLOT in text:
        raise UnslottableText("a document's text holds the slot mark")
    return text


def slotted_json(document: dict) -> Template:
    """`document` (a JSON object with Timing's fields among its keys, or not) as compact JSON with its timing
    values as slots.

    Each timing value is replaced by a marker no contractor text can know (a
    random token per call), the whole is serialised once, and each marker's
    JSON text becomes its slot: the rest is the serialiser's own output.
    """
    nonce = secrets.token_hex(16)
    markers = {}
    document = dict(document)
    for number, name in enumerate(Timing._fields):
        if name in document:
            markers[number] = f"{nonce}{number}"
            document[name] = markers[number]
    text = _without_slot_marks(dumps(document))
    for number, marker in markers.items():
        quoted = dumps(marker)
        if text.count(quoted) != 1:
            raise UnslottableText("a timing marker is not found once")
        text = text.replace(quoted, f"{SLOT}{number}")
    return Template(text)


@dataclass(frozen=True)
class Document:
    """One public document a company has: its kind (the stored row's key) and how it is rendered."""

    kind: str
    options: bool  # rendered from the complete view (it lists every option), else from the summary
    make: Callable[[CompanyView, Settings], Template]

    def template(self, view: CompanyView, settings: Settings) -> Template:
        """The document with its timing as slots."""
        return self.make(view, settings)

    def render(self, view: CompanyView, settings: Settings) -> bytes:
        """The document's bytes at the view's own timing (what a request renders when no stored row serves)."""
        return self.make(view, settings).fill(view_timing(view))


def _pricing_json(view: CompanyView, _settings: Settings) -> Template:
    return slotted_json(view.pricing_document())


def _jsonld(view: CompanyView, settings: Settings) -> Template:
    return Template(_without_slot_marks(script_safe_json(company_graph(view, settings))))  # no value of the clock


PRICING_DOCUMENT = Document("pricing.json", options=True, make=_pricing_json)
JSONLD_DOCUMENT = Document("jsonld", options=False, make=_jsonld)
DOCUMENTS = (PRICING_DOCUMENT, JSONLD_DOCUMENT)


def document_format(settings: Settings) -> str:
    """The running release's format of the stored documents: FORMAT_VERSION and the settings they read."""
    read = f"{FORMAT_VERSION}\n{settings.public_base_url}\n{settings.referrer_stamp}"
    return hashlib.sha256(read.encode("utf-8")).hexdigest()[:32]


# --- the request's read ----------------------------------------------------------------

_DOCS = RenderedDocument.__table__


class StoredTemplate(NamedTuple):
    """A stored document: its template text and the stamp it was rendered at."""

    body: str
    generation: int
    record_hash: str
    content_version: str | None

    @property
    def stamp(self) -> Stamp:
        """The company's rendering stamp this document was rendered at."""
        return content_of(self)


_TEMPLATE = select(_DOCS.c.body, _DOCS.c.generation, _DOCS.c.record_hash, _DOCS.c.content_version).where(
    _DOCS.c.plugin_key == bindparam("key"), _DOCS.c.kind == bindparam("kind"), _DOCS.c.format == bindparam("format")
)


def load_template(session: Session, plugin_key: str, document: Document, format_: str) -> StoredTemplate | None:
    """The company's stored `document` in `format_`, by its primary key (one statement); None when there is none."""
    rows = statement_rows(session, _TEMPLATE, {"key": plugin_key, "kind": document.kind, "format": format_})
    return rows_by_name(_TEMPLATE, rows, StoredTemplate)[0] if rows else None


# --- the sync's write ------------------------------------------------------------------

PUBLISH_BATCH = 200  # companies rendered per statement written
_INSERT = insert(RenderedDocument)
_UPSERT = _INSERT.on_conflict_do_update(
    index_elements=[_DOCS.c.plugin_key, _DOCS.c.kind],
    set_={name: _INSERT.excluded[name] for name in ("generation", "record_hash", "content_version", "format", "body")},
)


def publish(session: Session, settings: Settings) -> int:
    """Render and store, in `session`'s transaction, every public company's documents that are missing or stale.

    Called by the sync as the last step of a run (before its state version
    moves): the companies it changed, and any whose rows an older release or
    other settings rendered. Returns how many companies were rendered.
    """
    format_ = document_format(settings)
    keys = session.scalars(_stale_companies(format_)).all()
    options = any(document.options for document in DOCUMENTS)
    for start in range(0, len(keys), PUBLISH_BATCH):
        snapshots = load_company_snapshots(session, keys[start : start + PUBLISH_BATCH], options=options)
        rows = [row for snapshot in snapshots.values() for row in _rendered_rows(snapshot, settings, format_)]
        if rows:
            session.execute(_UPSERT, rows)
    return len(keys)


def _stale_companies(format_: str):
    """The public companies with fewer than all their documents stored at their current stamp in `format_`."""
    companies = Company.__table__
    current = (
        select(func.count())
        .where(
            _DOCS.c.plugin_key == companies.c.plugin_key,
            _DOCS.c.generation == companies.c.generation,
            _DOCS.c.record_hash == companies.c.record_hash,
            _DOCS.c.content_version.is_not_distinct_from(companies.c.content_version),
            _DOCS.c.format == format_,
        )
        .scalar_subquery()
    )
    return (
        select(companies.c.plugin_key)
        .where(companies.c.is_public, current < len(DOCUMENTS))
        .order_by(companies.c.plugin_key)
    )


def _rendered_rows(snapshot: CompanySnapshot, settings: Settings, format_: str) -> Iterator[dict]:
    """One company's document rows, rendered from its snapshot in the run's transaction."""
    view = snapshot.view(settings)
    stamp = content_of(snapshot.company)
    for document in DOCUMENTS:
        try:
            template = document.template(view, settings)
        except UnslottableText:
            continue  # served live, as before
        yield {
            "plugin_key": snapshot.company.plugin_key,
            "kind": document.kind,
            "format": format_,
            "body": template.text,
            **stamp._asdict(),
        }
