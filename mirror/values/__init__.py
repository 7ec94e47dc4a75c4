"""Values and their one spelling, with no database and no settings: the bottom of `mirror/`.

- `money`: cents to exact amounts and back, and amounts as people read them;
- `timestamps`: aware UTC, RFC 3339 with a Z;
- `jsontext`: JSON text written one way everywhere;
- `storable`: text the database can store (refused from clients, repaired from the upstream), cut at a word;
- `addresses`: what an IP address is, and the one spelling of a host and port.

Imports nothing of `mirror/` (the layers contract in pyproject.toml holds it).
"""
