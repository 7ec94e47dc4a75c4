"""How long a free-text input may be: one cap per kind of field, the same on every surface.

Understanding a question costs time in its length (mirror/query), so every
surface refuses an over-long input at its boundary, in its own protocol's
shape (a tool's invalid-argument error, UCP's and A2A's JSON-RPC -32602,
NLWeb's INVALID_REQUEST), and never cuts it silently:

- `SEARCH_TEXT_MAX`: a search query or a name an agent passes as an argument
  (the MCP and webmcp tools' `query`, `keyword` and `category`, UCP
  `catalog.query`, UCP category filters and option names);
- `QUESTION_TEXT_MAX`: a question asked in a sentence (NLWeb `/ask`'s
  `query.text`, the text parts of an A2A message, UCP `context.intent`).
"""

from __future__ import annotations

SEARCH_TEXT_MAX = 200  # characters of a search query or a name
QUESTION_TEXT_MAX = 500  # characters of a question
