"""URL rules shared by every surface: safe redirect targets and referrer stamping."""
from __future__ import annotations

from urllib.parse import quote, unquote_plus, urlsplit, urlunsplit

from mirror.records import normalise_url

REFERRER_VARIABLES = ("ref", "referrer", "utm_source")


def is_safe_redirect(url: str | None) -> bool:
    """Only URLs that pass the sync's complete URL check (absolute http(s), valid host and port) are redirected to.

    Rows stored before that check was complete are held to it here too.
    """
    return bool(url) and normalise_url(url) is not None


def stamp_referrer(url: str, stamp: str) -> str:
    """Replace the value of each referrer variable already on the URL with `stamp`.

    Names match case-insensitively (`ref`, `referrer`, `utm_source`); none is
    added; order, other parameters and the fragment are kept.
    """
    parts = urlsplit(url)
    if not parts.query:
        return url
    # Work on the raw segments so every other parameter keeps its exact bytes.
    segments = parts.query.split("&")
    stamped = [_stamp_segment(segment, stamp) for segment in segments]
    if stamped == segments:
        return url
    return urlunsplit(parts._replace(query="&".join(stamped)))


def _stamp_segment(segment: str, stamp: str) -> str:
    name, sep, _value = segment.partition("=")
    if unquote_plus(name).lower() not in REFERRER_VARIABLES:
        return segment
    return name + "=" + quote(stamp, safe="")
