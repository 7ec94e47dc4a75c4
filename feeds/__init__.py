"""Public web surfaces: JSON-LD, pricing.json, hosted pages, the quote redirect, the business feed.

Each module adds its routes to the one blueprint `bp`; `init_app(app)` registers it.
"""

from flask import Flask

from feeds import business_feed, jsonld, pages, pricing  # noqa: F401  (register routes)
from feeds.blueprint import bp


def init_app(app: Flask) -> None:
    """Register the blueprint, the app's business-feed index and the hosted pages as stored documents."""
    business_feed.init_feed_index(app)
    app.register_blueprint(bp)
    pages.init_page_documents(app)
