"""Public web surfaces: JSON-LD, pricing.json, hosted pages, the quote redirect, the business feed.

Each module adds its routes to the one blueprint `bp`.
"""
from flask import Blueprint

bp = Blueprint("feeds", __name__)

from feeds import business_feed, jsonld, pages, pricing  # noqa: E402,F401  (register routes)
