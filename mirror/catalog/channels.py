"""The one gate rule: whether a company's surface is open to the public.

A surface of a company is open when the company is public (`active` and
`storefront_live`, decided by the sync: `is_public`) and the owner has not
switched that surface's channel off (`settings.channels`, the switch table in
docs/contracts/upstream.md; a missing switch means on, only an explicit
`false` closes). `company_open()` is that rule for a row, a gate entry or a
view in memory, and `company_open_clause()` the same rule in SQL; nothing
else reads `is_public` or the switches to decide what to serve.

Channels are independent: each switch closes its own surface and nothing
else (`mcp` closes the per-company MCP endpoint, `webmcp` the embed and the
endpoint its tools call).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from sqlalchemy import and_, func, true
from sqlalchemy.sql.elements import ColumnElement


class Channel(StrEnum):
    """The owner's per-surface switches (docs/contracts/upstream.md, the switch table)."""

    JSONLD = "jsonld"
    MCP = "mcp"
    WEBMCP = "webmcp"
    FEED = "feed"
    PRICING = "pricing"
    QUOTE = "quote"
    A2A = "a2a"


CHANNELS = tuple(Channel)


def company_open(company: Any, channel: Channel | str | None = None) -> bool:
    """Whether `company` is public and its `channel` switch on (None: public at all).

    `company` is anything with `is_public` and a `channels` mapping (a
    `Company` row, a gate entry); None is open for nothing. An unknown
    channel name is a programming error, not an open surface, so it raises.
    """
    if company is None or not company.is_public:
        return False
    return channel is None or switch_on(company.channels, channel)


def switch_on(channels: dict | None, channel: Channel | str) -> bool:
    """Whether the switches `channels` (a company's, or a view's) leave `channel` on: unless explicitly false."""
    return (channels or {}).get(_known(channel), True) is not False


def company_open_clause(table: Any, channel: Channel | str | None = None) -> ColumnElement[bool]:
    """The same rule as a SQL condition on a companies table (or an alias of one)."""
    public = table.c.is_public.is_(True)
    if channel is None:
        return public
    switch = func.coalesce(table.c.channels[_known(channel)].as_boolean(), true()).is_(True)
    return and_(public, switch)


def _known(channel: Channel | str) -> str:
    try:
        return Channel(channel).value
    except ValueError:
        raise ValueError(f"unknown channel {channel!r}; known: {', '.join(CHANNELS)}") from None
