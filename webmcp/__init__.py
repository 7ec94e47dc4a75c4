"""webmcp blueprint."""
from flask import Blueprint

bp = Blueprint("webmcp", __name__)
