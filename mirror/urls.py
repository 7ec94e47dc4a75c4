"""URL rules shared by every surface: safe redirect targets and referrer stamping."""
from __future__ import annotations

from urllib.parse import quote, unquote_plus, urlsplit, urlunsplit

REFERRER_VARIABLES = ("ref", "referrer", "utm_source")


def is_safe_redirect(url: str | None) -> bool:
    """Only absolute http(s) URLs with a host are ever redirected to."""
    if not url:
        return False
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.hostname) and not any(
        c.isspace() or ord(c) < 32 for c in url
    )


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
