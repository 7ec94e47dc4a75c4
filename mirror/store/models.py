"""The mirror's tables, as SQLAlchemy 2 typed models.

Only public facts are stored: the upstream client drops private fields
(internal ids, owner data, cost, dealer notes) before anything reaches here.
Money is integer cents, so no float ever touches a price.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, BigInteger, Boolean, DateTime, ForeignKey, Index, Integer, String, Text, text
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Mapped, mapped_column

from mirror.store.db import Base

# The stored lengths the upstream boundary (mirror.catalog.records) holds values to.
KEY_LENGTH = 128  # a pluginKey
SKU_LENGTH = 255
SLUG_LENGTH = 255  # a category slug
STATUS_LENGTH = 16
MAX_CENTS = 2**63 - 1  # BigInteger
# The size caps the upstream boundary holds contractor data to (mirror.catalog.records; docs/core.md, "Bounds"):
# text past its cap is cut at a word boundary, a list or object past its cap counts as missing.
NAME_MAX_CHARS = 300  # a company's or product's name, a brand, a category name, an address line, a model number
DESCRIPTION_MAX_CHARS = 5000  # a product's description, a company's price description
MODEL_NUMBERS_MAX = 20  # model numbers kept per product (the first ones)
SPECS_MAX_BYTES = 8192  # a product's specs object, as compact JSON
SPECS_MAX_DEPTH = 4  # levels of nesting in a product's specs object
SERVICE_AREA_MAX_POSTAL_CODES = 3000  # distinct ZIPs a company serves (the largest state has about 2,700)
CONCEPT_LENGTH = 64  # a concept slug of the vocabulary (mirror/query/concepts.py)
FEATURE_LENGTH = 32  # a feature slug of the vocabulary (mirror/catalog/vocabulary.py FEATURES)
# Keys sort in byte order (the C collation).
KEY = String(KEY_LENGTH, collation="C")


class Company(Base):
    """A contractor, normalised at the boundary (see mirror.catalog.records)."""

    __tablename__ = "companies"

    plugin_key: Mapped[str] = mapped_column(KEY, primary_key=True)
    name: Mapped[str] = mapped_column(Text)
    trades: Mapped[list] = mapped_column(JSON, default=list)
    status: Mapped[str] = mapped_column(String(STATUS_LENGTH))
    storefront_live: Mapped[bool] = mapped_column(Boolean, default=False)
    is_public: Mapped[bool] = mapped_column(Boolean, default=False, index=True)
    phone: Mapped[str | None] = mapped_column(String(16))
    website: Mapped[str | None] = mapped_column(Text)
    address: Mapped[dict | None] = mapped_column(JSON)
    service_postal_codes: Mapped[list] = mapped_column(JSON, default=list)
    currency: Mapped[str] = mapped_column(String(3), default="USD")
    price_description: Mapped[str | None] = mapped_column(Text)
    estimate_url: Mapped[str | None] = mapped_column(Text)
    shop_url: Mapped[str | None] = mapped_column(Text)
    channels: Mapped[dict] = mapped_column(JSON, default=dict)
    upstream_updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # Hash of every stored field: an unchanged record is not rewritten.
    record_hash: Mapped[str] = mapped_column(String(32))
    # Offer-group summary, rebuilt in the same transaction as the products.
    content_version: Mapped[str | None] = mapped_column(String(16))
    content_updated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # Its public products (the sum of its groups' offer_count): the search's choice of index (migration 0014).
    offer_count: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # Set by single-company runs; whole runs record their end once, as sync_state
    # "last_success_at", and public_view.effective_synced_at() takes the later of the two.
    last_synced_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # Business-feed bookkeeping: membership and the millisecond stamp of the
    # last change to the record as the feed serves it.
    in_feed: Mapped[bool] = mapped_column(Boolean, default=False)
    feed_hash: Mapped[str | None] = mapped_column(String(32))
    feed_changed_ms: Mapped[int | None] = mapped_column(BigInteger)
    # Bumped whenever anything a public surface renders for this company
    # changes; render caches key on it.
    generation: Mapped[int] = mapped_column(Integer, default=1)

    __table_args__ = (Index("ix_companies_in_feed", "in_feed", "plugin_key"),)


class Product(Base):
    """One catalog item of a company (published or not; tombstones delete)."""

    __tablename__ = "products"

    plugin_key: Mapped[str] = mapped_column(KEY, primary_key=True)
    sku: Mapped[str] = mapped_column(String(SKU_LENGTH), primary_key=True)
    name: Mapped[str] = mapped_column(Text)
    category_name: Mapped[str] = mapped_column(Text)
    category_slug: Mapped[str] = mapped_column(String(SLUG_LENGTH))
    category_kind: Mapped[str] = mapped_column(String(16))
    tier: Mapped[str | None] = mapped_column(String(8))
    brand: Mapped[str | None] = mapped_column(Text)
    model_numbers: Mapped[list] = mapped_column(JSON, default=list)
    description: Mapped[str | None] = mapped_column(Text)
    price_cents: Mapped[int] = mapped_column(BigInteger)
    published: Mapped[bool] = mapped_column(Boolean)
    image_url: Mapped[str | None] = mapped_column(Text)
    specs: Mapped[dict] = mapped_column(JSON, default=dict)
    upstream_updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    record_hash: Mapped[str] = mapped_column(String(32))
    # What the product is, read by the sync from everything its catalog says (mirror/query/product_reading.py,
    # migration 0011): its kinds (vocabulary concept slugs, the most specific), its sizes and ratings in each
    # quantity's unit ({"capacity": 36000, "seer": 16.2}), and the evidence that decided the kinds.
    kinds: Mapped[list[str] | None] = mapped_column(ARRAY(String(CONCEPT_LENGTH)))
    measures: Mapped[dict | None] = mapped_column(JSON)
    kind_evidence: Mapped[dict | None] = mapped_column(JSON)
    # What its name or specs state it does ("wifi", "variable-speed": mirror/query/ranking.py, migration 0012).
    features: Mapped[list[str] | None] = mapped_column(ARRAY(String(FEATURE_LENGTH)))
    # The labels a page shows of it (mirror/catalog/product_facts.py: {"size": "3 ton", "efficiency":
    # ["16 SEER2"], "warranty": null}), read with the rest when it is written (migration 0017), so rendering a
    # company's documents reads them instead of reading every product's specs and name again.
    labels: Mapped[dict | None] = mapped_column(JSON)

    # The products of one company's category: what a sync summarises again
    # into that offer group (migration 0005).
    __table_args__ = (
        Index("ix_products_plugin_key_category_slug", "plugin_key", "category_slug"),
        Index("ix_products_plugin_key_price_cents", "plugin_key", "price_cents"),  # a browse in price order
        # A browse of one kind ("cheapest part"), in price order (migration 0013).
        Index("ix_products_plugin_key_kind_price_cents", "plugin_key", "category_kind", "price_cents"),
        # A search's "is it a heat pump": one company's products of the kinds asked (migrations 0011, 0013).
        Index(
            "ix_products_plugin_key_kinds",
            "plugin_key",
            "kinds",
            postgresql_using="gin",
            postgresql_with={"gin_pending_list_limit": 256},
        ),
    )


class OfferGroup(Base):
    """Per company and category: the published products' price summary."""

    __tablename__ = "offer_groups"

    plugin_key: Mapped[str] = mapped_column(KEY, primary_key=True)
    category_slug: Mapped[str] = mapped_column(String(255), primary_key=True)
    category_name: Mapped[str] = mapped_column(Text)
    kind: Mapped[str] = mapped_column(String(16))
    currency: Mapped[str] = mapped_column(String(3))
    price_low_cents: Mapped[int] = mapped_column(BigInteger)
    price_high_cents: Mapped[int] = mapped_column(BigInteger)
    offer_count: Mapped[int] = mapped_column(Integer)
    good_cents: Mapped[int | None] = mapped_column(BigInteger)
    better_cents: Mapped[int | None] = mapped_column(BigInteger)
    best_cents: Mapped[int | None] = mapped_column(BigInteger)
    image_url: Mapped[str | None] = mapped_column(Text)
    # The md5 of its public products' record_hash values in SKU order (mirror/catalog/offers.py): what the
    # pricing page and pricing.json list of it changed whenever this did (migration 0008).
    options_digest: Mapped[str | None] = mapped_column(String(32))

    # search_businesses' "who has the category" without a ZIP: the groups of one slug, or of one name in any
    # case (mirror/read/businesses.py `_is_category`; migration 0015).
    __table_args__ = (
        Index("ix_offer_groups_category_slug", "category_slug"),
        Index("ix_offer_groups_lower_category_name", text("lower(category_name)")),
    )


DOCUMENT_KIND_LENGTH = 32
FORMAT_LENGTH = 32


class RenderedDocument(Base):
    """One public document of a company as the sync rendered it: the bytes a request serves (issue 33).

    Written in the run that changed the company, in its transaction
    (mirror/render/documents.py), so a failed run leaves the previous bytes.
    `body` is the document with a slot where each clock-dependent value goes
    (the last sync time, fresh or stale): a request fills them in and serves it.
    It answers a request only while its stamp is the company's (`generation`,
    `record_hash`, `content_version`: mirror.read.gate.Stamp) and its
    `format` is the running release's; otherwise the request renders the
    document from the catalog, as before.
    """

    __tablename__ = "rendered_documents"

    plugin_key: Mapped[str] = mapped_column(
        KEY, ForeignKey("companies.plugin_key", ondelete="CASCADE"), primary_key=True
    )
    kind: Mapped[str] = mapped_column(String(DOCUMENT_KIND_LENGTH), primary_key=True)
    generation: Mapped[int] = mapped_column(Integer)
    record_hash: Mapped[str] = mapped_column(String(32))
    content_version: Mapped[str | None] = mapped_column(String(16))
    format: Mapped[str] = mapped_column(String(FORMAT_LENGTH))
    body: Mapped[str] = mapped_column(Text)


WORD_LENGTH = 64  # the longest word a company's word list keeps


class CompanyWord(Base):
    """One distinct word of a company's public products' names, brands and category names: its spelling list.

    The catalog search corrects a misspelled word to the nearest of the
    searched company's own words (mirror/read/words.py), so a lookup costs
    the same whatever the size of the other catalogs. Each run makes the
    list of every company whose catalog it touched exactly its products'
    words again (mirror/sync/words.py). The trigram index lives outside the
    ORM: a GiST index on (plugin_key, word) (btree_gist and pg_trgm,
    migration 0009).
    """

    __tablename__ = "company_words"

    plugin_key: Mapped[str] = mapped_column(KEY, primary_key=True)
    word: Mapped[str] = mapped_column(String(WORD_LENGTH), primary_key=True)


class CompanyConcept(Base):
    """A kind of product (a vocabulary concept) a company sells: one of its public products is one.

    The business directory's "who sells heat pumps" is a lookup here, not a
    full-text match over every product of every business per question, and so
    is "what do its heat pumps cost" (the prices below). The sync tags the
    companies whose catalog it touched (mirror/sync/concepts.py), from the
    kinds it stored with their products (the catalog search's match).
    """

    __tablename__ = "company_concepts"

    plugin_key: Mapped[str] = mapped_column(KEY, primary_key=True)
    concept: Mapped[str] = mapped_column(String(CONCEPT_LENGTH), primary_key=True)
    # Its public products of this kind (migration 0015): their price range and count, and the category (name,
    # slug) of the cheapest. search_businesses prices a business from here when asked a kind it lists under a
    # category name of its own. NULL only on a tag an older release wrote during an upgrade (retagged next run).
    price_low_cents: Mapped[int | None] = mapped_column(BigInteger)
    price_high_cents: Mapped[int | None] = mapped_column(BigInteger)
    offer_count: Mapped[int | None] = mapped_column(Integer)
    category_name: Mapped[str | None] = mapped_column(Text)
    category_slug: Mapped[str | None] = mapped_column(String(255))

    # "Who sells heat pumps" without a ZIP: the companies of one kind (the primary key starts with the company).
    __table_args__ = (Index("ix_company_concepts_concept", "concept", "plugin_key"),)


class SyncState(Base):
    """Key/value state committed with the rows it covers (watermarks, clocks)."""

    __tablename__ = "sync_state"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class SyncRun(Base):
    """One sync run's history entry."""

    __tablename__ = "sync_runs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    mode: Mapped[str] = mapped_column(String(16))
    company_key: Mapped[str | None] = mapped_column(KEY)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    status: Mapped[str] = mapped_column(String(16), index=True)
    counts: Mapped[dict] = mapped_column(JSON, default=dict)
    error: Mapped[str | None] = mapped_column(Text)


class SourceHit(Base):
    """A request that carried ?source=LABEL (source tracking)."""

    __tablename__ = "source_hits"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    label: Mapped[str] = mapped_column(String(64))
    endpoint: Mapped[str] = mapped_column(String(255))
    method: Mapped[str] = mapped_column(String(8))
    status: Mapped[int] = mapped_column(Integer)
    recorded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class Invocation(Base):
    """One public request or MCP call, as the usage report counts it (web/observability.py).

    Never the client's address: `agent` is a keyed hash of address and User-Agent.
    """

    __tablename__ = "invocations"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    recorded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    endpoint: Mapped[str] = mapped_column(String(255))
    method: Mapped[str] = mapped_column(String(8))
    protocol: Mapped[str] = mapped_column(String(8))
    tool: Mapped[str | None] = mapped_column(String(64))
    platform: Mapped[str] = mapped_column(String(32))
    source: Mapped[str | None] = mapped_column(String(64))
    status: Mapped[int] = mapped_column(Integer)
    outcome: Mapped[str] = mapped_column(String(16))
    duration_ms: Mapped[int] = mapped_column(Integer)
    company_key: Mapped[str | None] = mapped_column(KEY)
    agent: Mapped[str] = mapped_column(String(32))
