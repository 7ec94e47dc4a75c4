"""The one blueprint of `nlweb_server`: each routes module adds its routes to `bp`; the package's `init_app` registers it."""

from flask import Blueprint

bp = Blueprint("nlweb_server", "nlweb_server")
