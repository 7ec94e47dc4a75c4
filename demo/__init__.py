"""The demo upstream: a stand-in for the commerce platform's API.

It generates a seeded catalog, serves it over HTTP exactly as the platform's
API contract describes (docs/contracts/), and can inject faults. The mirror
speaks to it only over HTTP; nothing in `mirror/` imports it.
"""
