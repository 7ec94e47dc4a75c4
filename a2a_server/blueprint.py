"""The one blueprint of `a2a_server`: each routes module adds its routes to `bp`; the package's `init_app` registers it."""

from flask import Blueprint

bp = Blueprint("a2a_server", "a2a_server")
