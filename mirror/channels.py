"""The one channel rule: whether a company's owner has a surface switched on.

`settings.channels` holds the owner's per-surface switches (the switch table in
docs/contracts/upstream.md). A missing switch means on; only an explicit
`false` closes a surface. Every reader asks `channel_open()`, so no surface
can read the switches with a meaning of its own.

Channels are independent: each switch closes its own surface and nothing
else (`mcp` closes the per-company MCP endpoint, `webmcp` the embed and the
endpoint its tools call). Whether the company is public at all is a separate
fact (`Company.is_public`), checked by the gate and the feed beside this one.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, true
from sqlalchemy.sql.elements import ColumnElement

from mirror.records import CHANNELS


def channel_open(company: Any, channel: str) -> bool:
    """Whether `company`'s `channel` switch is on (missing means on; only `False` closes).

    `company` is anything with a `channels` mapping (a `Company` row); None
    has no open channel. An unknown channel name is a programming error, not
    an open surface, so it raises.
    """
    _known(channel)
    if company is None:
        return False
    switches = company.channels or {}
    return switches.get(channel, True) is not False


def channel_open_clause(channels_column: Any, channel: str) -> ColumnElement[bool]:
    """The same rule as a SQL condition on a `channels` JSON column (the gate's lookup)."""
    return func.coalesce(channels_column[_known(channel)].as_boolean(), true()).is_(True)


def channel_open_sql(channel: str, table: str | None = None) -> str:
    """The same rule as literal Postgres SQL on the `channels` column (of `table`, an alias, if given).

    The gate's autocommit lookups. Safe to splice: the name is one of
    CHANNELS, checked here; `table` is the caller's own alias.
    """
    column = f"{table}.channels" if table else "channels"
    return f"COALESCE(({column} ->> '{_known(channel)}')::boolean, true)"


def _known(channel: str) -> str:
    if channel not in CHANNELS:
        raise ValueError(f"unknown channel {channel!r}; known: {', '.join(CHANNELS)}")
    return channel
