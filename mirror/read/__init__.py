"""The read layer: the only code that reads the mirror to serve a request.

Surfaces (feeds/, mcp_server/, webmcp/, a2a_server/) ask here for what they
show and only format it; none of them writes SQL or imports SQLAlchemy.
Every statement is built once with SQLAlchemy; where speed needs a raw
string (one autocommit round trip), it is compiled from that
same statement (mirror.store.db.statement_rows). Rows are read by name,
never by position: the statement's labels (mirror.store.db.rows_by_name),
or a SQLAlchemy row's attributes.

- `gate`: which companies are open, held in memory per process and kept
  within a second of the database (the warm path reads nothing else);
- `company`: one company's snapshot (row, offer groups, last run) and its view;
- `catalog`: a company's products: search (through the query step, mirror/query), the tiers of a category;
- `words`: a company's words in the spelling list, the query step's lexicon;
- `businesses`: the feed businesses the provider tools answer for;
- `feed`: the business feed's pages and changes walks;
- `prices`: the feed businesses' products serving one ZIP, for the directory's price answer;
- `figures`: health, metrics and usage figures.
"""

# The session type a surface passes to these reads (and only passes along: surfaces import no SQLAlchemy).
from sqlalchemy.orm import Session as ReadSession

__all__ = ["ReadSession"]
