"""The one blueprint of `feeds`: each routes module adds its routes to `bp`; the package's `init_app` registers it."""

from flask import Blueprint

bp = Blueprint("feeds", "feeds")
