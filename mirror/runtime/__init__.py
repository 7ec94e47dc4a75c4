"""What a running process is configured with and bounded by.

- `config`: every setting, declared once (`Settings`, `load_settings`), and the README's table from it;
- `deadline`: the per-request deadline every read and loop of a request obeys.

May import `mirror.values` only.
"""
