"""The public documents rendered once per change: the sync stores their bytes, a request serves them.

A company's pricing.json, JSON-LD and hosted pages are pure functions of
what the sync wrote, except two values the clock moves: when the mirror last
confirmed the data (`last_synced_at`, which every whole run moves for every
company) and whether that is fresh or stale (which time alone turns). So the
run that changes a company renders its documents once, in its own
transaction, with a *slot* wherever a value of the clock goes (`publish`), and
stores them in `rendered_documents`. pricing.json and the JSON-LD are
declared here (`DOCUMENTS`); a surface registers its own documents in the
app's `DocumentSet` at start-up (the hosted pages, feeds/pages.py), each with
the text of its slots (a JSON value, an HTML sentence). A request reads the one row by its primary key
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
- its `format` is the running release's (`DocumentSet.format`): the
  FORMAT_VERSION of the serialisers, each document's version and the settings they read (the public
  base URL, the referrer stamp). A release that renders differently, or a
  changed setting, makes every row stale; requests render live until the
  next run has rendered them again (`publish` renders every public company
  whose row is missing or stale, not only the ones the run changed).

Slots are marked by a control character JSON text never holds raw (json.dumps
escapes every one) and the pages never show: a document whose text holds it
anyway is not stored (NOT_STORED), and requests render it live.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import bindparam, func, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from mirror.catalog.channels import Channel, company_open
from mirror.catalog.public_view import CompanyView
from mirror.read.company import CompanySnapshot, load_company_snapshots
from mirror.read.gate import Stamp, content_of
from mirror.render.schema_org import company_graph, script_safe_json
from mirror.runtime.config import Settings
from mirror.store.db import rows_by_name, statement_rows
from mirror.store.models import Company, RenderedDocument
from mirror.values.jsontext import dumps
from mirror.values.timestamps import rfc3339

# Bump when a document's bytes change for the same catalog and settings (a serialiser, a field, an order, a page):
# every stored row then renders again at the next run. tests/mirror/render/test_documents.py fails until
# the golden payloads and this number move together.
FORMAT_VERSION = 2

SLOT = "\x01"  # then the slot's number (one digit): never raw in JSON or HTML text


class Timing(NamedTuple):
    """The values of a document the clock moves."""

    last_synced_at: datetime | None
    freshness_state: str


# A document's slots: each one's text at a timing, by slot number (at most ten).
Slots = tuple[Callable[[Timing], str], ...]

# The slots of a JSON document with both timing fields (json_marked): each field's JSON text.
JSON_SLOTS: Slots = (
    lambda timing: dumps(rfc3339(timing.last_synced_at)),
    lambda timing: dumps(timing.freshness_state),
)


def view_timing(view: CompanyView) -> Timing:
    """The timing a view was built with."""
    return Timing(view.last_synced_at, view.freshness_state)


@dataclass(frozen=True)
class Template:
    """A document's text with a slot (SLOT, then its number) wherever a value of the clock goes."""

    text: str
    slots: Slots

    def fill(self, timing: Timing) -> bytes:
        """The document's bytes at `timing`."""
        head, *rest = self.text.split(SLOT)
        if not rest:
            return head.encode("utf-8")
        values = [str(text(timing)) for text in self.slots]  # plain text: Markup would escape what follows it
        return "".join([head, *(values[int(part[0])] + part[1:] for part in rest)]).encode("utf-8")


class UnslottableText(ValueError):
    """A document's text already holds the slot mark: it cannot be stored as a template (it is served live)."""


def _without_slot_marks(text: str) -> str:
    """`text`, refused when it already holds the slot mark (it could not be told from a slot)."""
    if SLOT in text:
        raise UnslottableText("a document's text holds the slot mark")
    return text


def slot_marks(slots: Slots) -> tuple[str, ...]:
    """One mark per slot for a rendering to write where the slot's value goes: a random token per call, which no
    contractor text can know, then the slot's number (letters and digits: the same in JSON, HTML and text)."""
    nonce = secrets.token_hex(16)
    return tuple(f"{nonce}{number}" for number in range(len(slots)))


class Marked(NamedTuple):
    """A document's text rendered with a mark (slot_marks) wherever a slot's value goes, and each mark as the text
    shows it (in JSON: quoted)."""

    text: str
    written: tuple[str, ...]

    def slotted(self, slots: Slots) -> Template:
        """The template of `slots`: each mark's every occurrence becomes its slot (a page may show a value twice, or
        not at all); the rest is the renderer's own output. UnslottableText when the text holds the slot mark."""
        text = _without_slot_marks(self.text)
        for number, mark in enumerate(self.written):
            text = text.replace(mark, f"{SLOT}{number}")
        return Template(text, slots)

    def filled(self, slots: Slots, timing: Timing) -> bytes:
        """The text with each mark replaced by its slot's value at `timing` (no template in between)."""
        text = self.text
        for mark, slot in zip(self.written, slots, strict=False):
            text = text.replace(mark, str(slot(timing)))
        return text.encode("utf-8")


def json_marked(document: dict, marks: tuple[str, ...]) -> Marked:
    """`document` (a JSON object with Timing's fields among its keys, or not) as compact JSON with each timing
    value replaced by its mark: serialised once, each mark's JSON text is where JSON_SLOTS' values go."""
    document = dict(document)
    for name, mark in zip(Timing._fields, marks, strict=False):
        if name in document:
            document[name] = mark
    return Marked(dumps(document), tuple(dumps(mark) for mark in marks))


def _always(_company, _settings: Settings) -> bool:
    return True


@dataclass(frozen=True)
class Document:
    """One public document a company has: its kind (the stored row's key) and how it is rendered.

    `make` renders it with a mark wherever a value of the clock goes (one per
    slot, in slot order), given a dict it shares with the other documents of
    the same rendering (the two pages render their common part once);
    `slots` is each slot's text at a timing. A company
    has the document while its `channel` is open (mirror/catalog/channels.py:
    the surface that serves it) and `applies` says so (the quote page of a
    company with its own funnel does not: a redirect is served instead).
    `version` names what renders it besides FORMAT_VERSION (a page's
    templates), so that changing it makes every stored row stale.
    """

    kind: str
    channel: Channel
    options: bool  # rendered from the complete view (it lists every option), else from the summary
    make: Callable[[CompanyView, Settings, tuple[str, ...], dict], Marked]
    slots: Slots = JSON_SLOTS
    applies: Callable[[Any, Settings], bool] = _always  # (a company row, the settings)
    version: str = ""

    def served_for(self, company, settings: Settings) -> bool:
        """Whether `company` (a row) has this document: its channel open, and the document applying to it."""
        return company_open(company, self.channel) and self.applies(company, settings)

    def template(self, view: CompanyView, settings: Settings, shared: dict | None = None) -> Template:
        """The document with its timing as slots (UnslottableText when its text holds the slot mark); `shared`:
        what the other documents of this rendering of `view` left for it."""
        marks = slot_marks(self.slots)
        return self.make(view, settings, marks, {} if shared is None else shared).slotted(self.slots)

    def render(self, view: CompanyView, settings: Settings) -> bytes:
        """The document's bytes at the view's own timing (what a request renders when no stored row serves): the
        same rendering, each mark replaced by its value."""
        return self.make(view, settings, slot_marks(self.slots), {}).filled(self.slots, view_timing(view))

    def stored(self, text: str) -> Template:
        """The template a stored row's text is."""
        return Template(text, self.slots)


def _pricing_json(view: CompanyView, _settings: Settings, marks: tuple[str, ...], _shared: dict) -> Marked:
    return json_marked(view.pricing_document(), marks)


def _jsonld(view: CompanyView, settings: Settings, _marks: tuple[str, ...], _shared: dict) -> Marked:
    return Marked(script_safe_json(company_graph(view, settings)), ())  # no value of the clock


PRICING_DOCUMENT = Document("pricing.json", Channel.PRICING, options=True, make=_pricing_json)
JSONLD_DOCUMENT = Document("jsonld", Channel.JSONLD, options=False, make=_jsonld)
DOCUMENTS = (PRICING_DOCUMENT, JSONLD_DOCUMENT)


class DocumentSet:
    """The documents an app renders once per change: pricing.json and the JSON-LD (rendered here), and those its
    surfaces register at start-up (the hosted pages, feeds/pages.py), before the first run or request reads them."""

    def __init__(self, documents: tuple[Document, ...] = DOCUMENTS) -> None:
        self._documents = list(documents)
        self._frozen = False

    def register(self, document: Document) -> None:
        """Add a surface's document (at start-up: once the set was read, the stored rows' format is fixed)."""
        if self._frozen:
            raise RuntimeError(f"document {document.kind!r} registered after the documents were read")
        if any(known.kind == document.kind for known in self._documents):
            raise ValueError(f"a document of kind {document.kind!r} is registered already")
        self._documents.append(document)

    def __iter__(self) -> Iterator[Document]:
        self._frozen = True
        return iter(tuple(self._documents))

    def format(self, settings: Settings) -> str:
        """The running release's format of the stored documents: FORMAT_VERSION, what renders each document (its
        version) and the settings they read."""
        versions = "\n".join(f"{document.kind}={document.version}" for document in self)
        read = f"{FORMAT_VERSION}\n{settings.public_base_url}\n{settings.referrer_stamp}\n{versions}"
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
    """The company's stored `document` in `format_`, by its primary key (one statement); None when there is none
    (or it is NOT_STORED)."""
    rows = statement_rows(session, _TEMPLATE, {"key": plugin_key, "kind": document.kind, "format": format_})
    stored = rows_by_name(_TEMPLATE, rows, StoredTemplate)[0] if rows else None
    return stored if stored is not None and stored.body != NOT_STORED else None


# --- the sync's write ------------------------------------------------------------------

# Companies read, rendered and written per statement. Their documents are held until written (a company of 100
# products: about 150 kB with its pages): 200 at a time took the sync from 210 to 370 MB; 10 cost the same time.
PUBLISH_BATCH = 10
_INSERT = insert(RenderedDocument)
_UPSERT = _INSERT.on_conflict_do_update(
    index_elements=[_DOCS.c.plugin_key, _DOCS.c.kind],
    set_={name: _INSERT.excluded[name] for name in ("generation", "record_hash", "content_version", "format", "body")},
)


# The body stored for a document a company does not have (Document.served_for) or whose text cannot be a template
# (UnslottableText): no stored row serves it, and the company's documents are current all the same.
NOT_STORED = ""


def publish(session: Session, settings: Settings, documents: DocumentSet) -> int:
    """Render and store, in `session`'s transaction, every public company's `documents` that are missing or stale.

    Called by the sync as the last step of a run (before its state version
    moves): the companies it changed, and any whose rows an older release or
    other settings rendered. Returns how many companies were rendered.
    """
    format_ = documents.format(settings)
    keys = session.scalars(_stale_companies(format_, [document.kind for document in documents])).all()
    options = any(document.options for document in documents)
    for start in range(0, len(keys), PUBLISH_BATCH):
        snapshots = load_company_snapshots(session, keys[start : start + PUBLISH_BATCH], options=options)
        rows = [
            row for snapshot in snapshots.values() for row in _rendered_rows(snapshot, settings, documents, format_)
        ]
        if rows:
            session.execute(_UPSERT, rows)
    return len(keys)


def _stale_companies(format_: str, kinds: list[str]):
    """The public companies with fewer than all their documents of `kinds` stored at their current stamp in
    `format_`."""
    companies = Company.__table__
    current = (
        select(func.count())
        .where(
            _DOCS.c.plugin_key == companies.c.plugin_key,
            _DOCS.c.kind.in_(kinds),
            _DOCS.c.generation == companies.c.generation,
            _DOCS.c.record_hash == companies.c.record_hash,
            _DOCS.c.content_version.is_not_distinct_from(companies.c.content_version),
            _DOCS.c.format == format_,
        )
        .scalar_subquery()
    )
    return (
        select(companies.c.plugin_key)
        .where(companies.c.is_public, current < len(kinds))
        .order_by(companies.c.plugin_key)
    )


def _rendered_rows(
    snapshot: CompanySnapshot, settings: Settings, documents: DocumentSet, format_: str
) -> Iterator[dict]:
    """One company's document rows, rendered from its snapshot in the run's transaction."""
    view = snapshot.view(settings)
    stamp = content_of(snapshot.company)
    shared: dict = {}  # what one document renders of the view for the others (Document.make)
    for document in documents:
        yield {
            "plugin_key": snapshot.company.plugin_key,
            "kind": document.kind,
            "format": format_,
            "body": _stored_text(document, snapshot, view, settings, shared),
            **stamp._asdict(),
        }


def _stored_text(
    document: Document, snapshot: CompanySnapshot, view: CompanyView, settings: Settings, shared: dict
) -> str:
    if not document.served_for(snapshot.company, settings):
        return NOT_STORED
    try:
        return document.template(view, settings, shared).text
    except UnslottableText:
        return NOT_STORED  # served live, as before
