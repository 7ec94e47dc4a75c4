"""feeds blueprint."""
from flask import Blueprint

bp = Blueprint("feeds", __name__)
